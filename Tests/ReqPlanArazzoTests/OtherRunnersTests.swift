import Foundation
import ReqPlanArazzo
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// Documents written for Redocly Respect and Jentic's arazzo-runner: each shorthand is read as exactly the
/// specification's form it stands for, with a warning (RP1014), and only where that is the one reading.
@Suite("Documents written for other runners")
struct OtherRunnersTests {
    static let golden = ArazzoFixtures.folder.appendingPathComponent("golden")

    /// A reader as the command line's: the source descriptions read through a loader.
    static let reader = ArazzoReader(apiLoader: OpenAPIDocumentLoader())

    /// `text`, read as a document in the golden folder (its descriptions are found from there).
    static func source(_ text: String) -> SourceFile {
        SourceFile(path: golden.appendingPathComponent("written-for-another-runner.arazzo.yaml").path, text: text)
    }

    /// What `validate` says of `text`: the code and line of each diagnostic.
    static func codes(_ text: String, reader: ArazzoReader = reader) -> [String] {
        let library = PlanLibrary(apiLoader: OpenAPIDocumentLoader(), documentReader: reader)
        return PlanValidator.validate(source(text), library: library).diagnostics.map {
            "\($0.code.rawValue)@\($0.range?.start.line ?? 0)"
        }
    }

    /// The last step of the plan of `text`'s one workflow: the one each golden case writes as a shorthand.
    static func lastStep(_ text: String) throws -> Step {
        let result = reader.parse(source(text), file: source(text).path, entry: nil, limits: ParseLimits())
        return try #require(result.plan?.steps.last, "\(result.diagnostics)")
    }

    /// What binds a step to its operation, without where it is written.
    static func target(_ step: Step) -> String {
        switch step.kind {
        case .request(let request):
            guard let operation = request.operation else { return "no operation" }
            switch operation.operation {
            case .id(let id): return "\(operation.api).\(id)"
            case .route(let method, let path): return "\(operation.api) \(method) \(path)"
            }
        case .plan(let call): return "\(call.file.value)#\(call.entry ?? "")"
        default: return "\(step.kind)"
        }
    }

    @Test(
        "each shorthand is read as the specification's form: the same operation or workflow, with one warning",
        arguments: [
            ("shorthand-operation-id", "petstore.getPetCoupons", "$sourceDescriptions.petstore.getPetCoupons"),
            (
                "shorthand-operation-path-respect", "$sourceDescriptions.petstore#/paths/~1pet~1{petId}~1coupons/get",
                "'{$sourceDescriptions.petstore.url}#/paths/~1pet~1{petId}~1coupons/get'"
            ),
            (
                "shorthand-operation-path-arazzo-runner", "\"petstore#/paths/~1pet~1{petId}~1coupons/get\"",
                "\"{$sourceDescriptions.petstore.url}#/paths/~1pet~1{petId}~1coupons/get\""
            ),
            (
                "shorthand-workflow-id", "$sourceDescriptions.orders.workflows.place-order",
                "$sourceDescriptions.orders.place-order"
            ),
        ])
    func shorthandIsReadAsTheSpecificationsForm(_ name: String, _ written: String, _ specForm: String) throws {
        let text = try String(contentsOf: Self.golden.appendingPathComponent(name + ".arazzo.yaml"), encoding: .utf8)
        #expect(text.contains(": " + written + "\n"))
        let spec = text.replacingOccurrences(of: ": " + written + "\n", with: ": " + specForm + "\n")
        #expect(Self.target(try Self.lastStep(text)) == Self.target(try Self.lastStep(spec)))
        let shorthandCodes = Self.codes(text)
        #expect(shorthandCodes.filter { $0.hasPrefix("RP1014@") }.count == 1, "\(shorthandCodes)")
        #expect(Self.codes(spec) == shorthandCodes.filter { !$0.hasPrefix("RP1014@") })
    }

    /// A document whose one step calls `operationId: written`, its source descriptions `sources`.
    static func document(operationID written: String, sources: [(String, String)]) -> String {
        """
        arazzo: 1.0.1
        info: { title: t, version: 1.0.0 }
        sourceDescriptions:
        \(sources.map { "  - { name: \($0.0), url: \($0.1), type: openapi }" }.joined(separator: "\n"))
        workflows:
          - workflowId: w
            steps:
              - stepId: s
                operationId: \(written)

        """
    }

    static let petstore = ("petstore", "../examples/pet-coupons.openapi.yaml")

    @Test("SOURCE.opId that is the id of the one description's operation is that operation, without a warning")
    func anOperationOfThatIdIsTheSpecificationsReading() throws {
        let text = Self.document(
            operationID: "petstore.findPetsByTags", sources: [("petstore", "dotted-ids.openapi.yaml")])
        #expect(Self.codes(text).isEmpty, "\(Self.codes(text))")
        #expect(Self.target(try Self.lastStep(text)) == "petstore.petstore.findPetsByTags")
    }

    @Test("SOURCE.opId that is the id of another description's operation as well is ambiguous: an error")
    func bothReadingsAreAnError() {
        let text = Self.document(
            operationID: "petstore.findPetsByTags", sources: [Self.petstore, ("legacy", "dotted-ids.openapi.yaml")])
        #expect(Self.codes(text) == ["RP0105@10"])
    }

    @Test("SOURCE.opId whose description has no opId is no shorthand: the operation is not found")
    func aShorthandForNoOperationIsNotRead() {
        let text = Self.document(operationID: "petstore.findPetsByTag", sources: [Self.petstore])
        #expect(Self.codes(text) == ["RP0802@9"])
    }

    @Test("SOURCE.opId where SOURCE is no source description is no shorthand")
    func aShorthandOfNoSourceIsNotRead() {
        let text = Self.document(operationID: "pets.findPetsByTags", sources: [Self.petstore])
        #expect(Self.codes(text) == ["RP0802@9"])
    }

    @Test("without a loader to read the descriptions, SOURCE.opId is read as Respect's where SOURCE is a source")
    func withoutALoaderTheShorthandIsRead() {
        let text = Self.document(operationID: "petstore.findPetsByTags", sources: [Self.petstore])
        #expect(Self.codes(text, reader: ArazzoReader()) == ["RP1014@9"])
    }

    @Test("NAME#/paths/… where NAME is no source description stays an error")
    func anOperationPathOfNoSourceIsNotRead() {
        let text = Self.document(operationID: "x", sources: [Self.petstore])
            .replacingOccurrences(
                of: "operationId: x", with: "operationPath: pets#/paths/~1pet~1findByTags/get")
        #expect(Self.codes(text) == ["RP0105@9"])
    }

    @Test("$sourceDescriptions.NAME.workflows.ID where that document has no workflow ID stays an error")
    func aWorkflowShorthandForNoWorkflowIsNotRead() {
        let text = """
            arazzo: 1.0.1
            info: { title: t, version: 1.0.0 }
            sourceDescriptions:
              - { name: orders, url: ../run/pet-coupons.arazzo.yaml, type: arazzo }
            workflows:
              - workflowId: w
                steps:
                  - stepId: s
                    workflowId: $sourceDescriptions.orders.workflows.place-ordr

            """
        #expect(Self.codes(text) == ["RP1008@9"])
    }
}
