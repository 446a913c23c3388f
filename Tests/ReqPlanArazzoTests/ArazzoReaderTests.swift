import Foundation
import ReqPlanArazzo
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// How `ArazzoReader` tells an Arazzo document from a plan, and the limits it reads one under.
@Suite("Reading Arazzo documents")
struct ArazzoReaderTests {
    @Test(
        "a document is recognised by its top-level arazzo key, in YAML or JSON, after comments",
        arguments: [
            "arazzo: 1.0.1\ninfo: {}\n", "# a workflow\n\narazzo: 1.1.0\n", "{\"arazzo\": \"1.0.1\", \"info\": {}}",
            "{\n  \"arazzo\": \"1.0.1\"\n}\n",
        ])
    func recognisesArazzo(_ text: String) {
        #expect(ArazzoReader().recognises(SourceFile(path: "w.yaml", text: text)))
    }

    @Test(
        "a plan, even one that mentions arazzo below its top level, is not an Arazzo document",
        arguments: ["reqplan: 1\nsteps: []\n", "reqplan: 1\ninputs:\n  arazzo: { default: x }\n"])
    func leavesPlansAlone(_ text: String) {
        #expect(!ArazzoReader().recognises(SourceFile(path: "p.yaml", text: text)))
    }

    @Test("a folder stands for its Arazzo documents in JSON too, but not for the other JSON beside them")
    func folderHoldsJSONArazzoDocuments() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("arazzo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["orders.arazzo.json", "petstore.openapi.json", "data.json", "smoke.yaml", "staging.env.yaml"] {
            try Data("{}".utf8).write(to: folder.appendingPathComponent(name))
        }
        let names = SuiteFiles([folder.path]).files.map { URL(fileURLWithPath: $0).lastPathComponent }
        #expect(names == ["orders.arazzo.json", "smoke.yaml"])
    }

    @Test("an alias bomb is refused under the limits of every file, located, before anything is translated")
    func aliasBombIsRefusedWithItsPlace() {
        var text = "arazzo: 1.0.1\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1..<9 {
            text +=
                "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
                + "]\n"
        }
        let result = ArazzoReader().parse(
            SourceFile(path: "bomb.arazzo.yaml", text: text), file: nil, entry: nil, limits: ParseLimits())
        #expect(result.plan == nil)
        #expect(result.diagnostics.map(\.code) == [.aliasExpansion], "\(result.diagnostics)")
        #expect(result.diagnostics.first?.range != nil)
    }
}

/// `--server NAME=URL` and `--workflow ID` name what the document has.
@Suite("Servers and workflows named on the command line")
struct ArazzoSelectionTests {
    static let document = ArazzoFixtures.folder.appendingPathComponent("golden/valid.arazzo.yaml")

    static func codes(_ reader: ArazzoReader) -> [String] {
        PlanValidator.validate(
            fileAt: document.path, displayPath: "golden/valid.arazzo.yaml", allowFilesOutside: true,
            library: PlanLibrary(apiLoader: OpenAPIDocumentLoader(), documentReader: reader)
        ).diagnostics.filter { $0.severity == .error }.map(\.code.rawValue)
    }

    @Test("a server for a source description the document does not have is an error")
    func serverForUnknownSource() {
        #expect(Self.codes(ArazzoReader(servers: ["petstor": "http://127.0.0.1:1"])) == ["RP1003"])
        #expect(Self.codes(ArazzoReader(servers: ["petstore": "http://127.0.0.1:1"])).isEmpty)
    }

    @Test("a workflow the document does not have is an error")
    func unknownWorkflow() {
        #expect(Self.codes(ArazzoReader(workflow: "find-coupons")) == ["RP1008"])
    }
}

/// A stepId may hold `/` (Arazzo only recommends a pattern), and a sub-workflow's steps are named by their
/// path (`sub/inner`): every id in the graph, and so in every report, names one step.
@Suite("Step ids in reports")
struct StepPathTests {
    @Test("a stepId with `/` is not the path of a sub-workflow's step")
    func aSlashInAStepIdIsEscaped() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("arazzo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let description = ArazzoFixtures.folder.appendingPathComponent("examples/pet-coupons.openapi.yaml").path
        let document = """
            arazzo: 1.0.1
            info: { title: paths, version: "1" }
            sourceDescriptions:
              - { name: pets, url: "\(description)", type: openapi }
            workflows:
              - workflowId: main
                steps:
                  - { stepId: sub, workflowId: other }
                  - stepId: sub/inner
                    operationId: findPetsByStatus
                    parameters: [{ name: status, in: query, value: available }, { name: page, in: query, value: 1 }, { name: pageSize, in: query, value: 10 }]
                  - stepId: "a~b"
                    operationId: findPetsByStatus
                    parameters: [{ name: status, in: query, value: sold }, { name: page, in: query, value: 1 }, { name: pageSize, in: query, value: 10 }]
              - workflowId: other
                steps:
                  - stepId: inner
                    operationId: findPetsByStatus
                    parameters: [{ name: status, in: query, value: pending }, { name: page, in: query, value: 1 }, { name: pageSize, in: query, value: 10 }]
            """
        let file = folder.appendingPathComponent("paths.arazzo.yaml")
        try Data(document.utf8).write(to: file)
        let report = PlanValidator.validate(
            fileAt: file.path, allowFilesOutside: true,
            library: PlanLibrary(apiLoader: OpenAPIDocumentLoader(), documentReader: ArazzoReader(workflow: "main")))
        let graph = try #require(report.graph, "\(report.diagnostics)")
        let ids = graph.nodes.map(\.id)
        #expect(Set(ids).count == ids.count, "\(ids)")
        #expect(ids.contains("sub/inner") && ids.contains("sub~1inner") && ids.contains("a~0b"), "\(ids)")
        // Each id finds its own step.
        #expect(graph.node("sub~1inner")?.localID == "sub/inner")
        #expect(graph.node("sub/inner")?.localID == "inner")
    }
}

/// Inputs the `arazzo` fuzz target found (FUZZING.md), each checked without a crash.
@Suite("Arazzo documents the fuzzer found")
struct ArazzoFuzzRegressionTests {
    @Test(
        "a `$` alone at the end of a simple condition is reported, not written past the condition",
        arguments: ["$statusCode == 200$", "$", "$ == 1", "1 == $"])
    func aDollarAloneInACondition(_ condition: String) {
        let text = """
            arazzo: 1.0.1
            info: { title: t, version: "1" }
            sourceDescriptions: [{ name: api, url: api.yaml, type: openapi }]
            workflows:
              - workflowId: w
                steps:
                  - stepId: s
                    operationPath: '{$sourceDescriptions.api.url}#/paths/~1pets/get'
                    successCriteria: [{ condition: "\(condition)" }]
            """
        let report = PlanValidator.validate(
            SourceFile(path: "/tmp/fuzz.arazzo.yaml", text: text), library: PlanLibrary(documentReader: ArazzoReader()))
        #expect(report.diagnostics.contains { $0.code.rawValue == "RP1004" }, "\(report.diagnostics)")
    }
}

/// A workflow's input schema is JSON Schema: a property without a `type` takes any value, and an open schema
/// (no `additionalProperties: false`) lets the workflow read an input it does not list, which takes any value.
@Suite("Inputs of an open schema")
struct ArazzoOpenInputTests {
    @Test("an untyped property and an input read but not listed take any value; a typed one keeps its type")
    func untypedAndUnlistedInputsTakeAnyValue() throws {
        let text = """
            arazzo: 1.0.1
            info: { title: t, version: "1" }
            sourceDescriptions: [{ name: pets, url: pets.openapi.yaml, type: openapi }]
            workflows:
              - workflowId: w
                inputs:
                  type: object
                  properties:
                    typed: { type: integer }
                    untyped: { description: anything }
                steps:
                  - stepId: s
                    operationId: getPetCoupons
                    parameters:
                      - { name: a, in: query, value: $inputs.typed }
                      - { name: b, in: query, value: $inputs.untyped }
                      - { name: c, in: query, value: $inputs.unlisted }
            """
        let result = ArazzoReader().parse(
            SourceFile(path: "w.arazzo.yaml", text: text), file: nil, entry: nil, limits: ParseLimits())
        let plan = try #require(result.plan, "\(result.diagnostics.map(\.message))")
        let inputs = Dictionary(plan.inputs.map { ($0.name.value, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(inputs["typed"]?.knownType == .number)
        #expect(inputs["untyped"]?.knownType == nil)
        #expect(inputs["unlisted"]?.knownType == nil)
        #expect(inputs["unlisted"]?.isRequired == false)
        let unlisted = result.diagnostics.filter { $0.code == .unknownInput }
        #expect(unlisted.map(\.severity) == [.warning], "\(result.diagnostics.map(\.message))")
        #expect(unlisted.first?.range?.start.line == 17)
    }
}
