import Foundation
import ReqPlanImport
import ReqPlanPipeline
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

/// `reqplan import openapi` on real descriptions: each plan written matches its golden
/// (`Tests/Fixtures/import/openapi/NAME.plan.yaml`) and validates clean under `--strict` beside its
/// description, bound to it; on large public descriptions (Box, Discord, OpenAI, Mistral) every plan validates
/// clean too, and the path parameters read from other steps' responses number in the hundreds.
///
/// Run with `RECORD_GOLDEN=1` to (re)write the goldens from the current output (the recording run fails).
@Suite("Golden corpus of OpenAPI imports")
struct ImportOpenAPICorpusTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// Golden name → description, relative to `Tests/Fixtures`.
    static let goldenCases: [String: String] = [
        "link-example": "import/openapi/link-example.yaml",
        "petstore-expanded": "openapi/petstore-expanded.yaml",
        "swagger-petstore": "openapi/swagger-petstore/openapi.yaml",
        "credential-schemes": "openapi/credentials/schemes.yaml",
        "swagger-20-forms": "openapi/swagger-20-forms.yaml",
        "multi-file": "openapi/multi-file/openapi.yaml",
    ]

    /// Large public descriptions, and the fewest references to other steps each plan must have.
    static let realCases: [String: Int] = [
        "openapi/real/box/openapi.json": 100, "openapi/real/discord/openapi.json": 150,
        "openapi/real/openai/openapi.yaml": 150, "openapi/real/mistral/openapi.yaml": 80,
        // Resources in envelopes: `{ data: { gid } }` (Asana), `{ issue: { id } }` at `/issues.{format}` (Redmine).
        "openapi/real/asana/asana_oas.yaml": 150, "openapi/real/redmine/openapi.yaml": 40,
    ]

    /// The plan of the description at `path` (relative to the fixtures), as written beside it, and the
    /// diagnostics of validating it there under `--strict` (none when it is clean).
    static func importAndValidate(_ path: String, options: OpenAPIImportOptions = OpenAPIImportOptions())
        throws -> [(plan: OpenAPIImportedPlan, problems: String)]
    {
        let description = fixtures.appendingPathComponent(path)
        let beside = description.deletingLastPathComponent().appendingPathComponent("imported.plan.yaml")
        let pipeline = Pipeline()
        let plans = try pipeline.importOpenAPI(
            fileAt: description.path,
            writingTo: options.grouping == .tag
                ? beside.deletingLastPathComponent().path
                : beside.path, options: options
        ).get()
        return plans.map { plan in
            let report = pipeline.validate(SourceFile(path: beside.path, text: plan.text))
            let problems =
                report.isValid(strict: true)
                ? "" : DiagnosticRenderer(colors: false, files: report.sources).text(report.diagnostics)
            return (plan, problems)
        }
    }

    @Test("imported plan", arguments: goldenCases.keys.sorted())
    func importedPlanMatchesItsGoldenAndValidatesStrictly(_ name: String) throws {
        let imported = try Self.importAndValidate(try #require(Self.goldenCases[name]))
        let plan = try #require(imported.first)
        #expect(imported.count == 1)
        try Golden.check(
            plan.plan.text, against: Self.fixtures.appendingPathComponent("import/openapi/\(name).plan.yaml"))
        #expect(plan.problems.isEmpty, "\(plan.problems)")
    }

    @Test("large description", arguments: realCases.keys.sorted())
    func aLargeDescriptionImportsToAStrictlyValidPlanWithDataFlow(_ path: String) throws {
        let imported = try Self.importAndValidate(path)
        let plan = try #require(imported.first)
        #expect(plan.problems.isEmpty, "\(plan.problems)")
        let references = plan.plan.text.matches(of: /\$\{\{ steps\.[A-Za-z0-9_-]+\.(body|headers)/).count
        #expect(references >= Self.realCases[path, default: 0], "\(references) references")
    }

    @Test func linksBecomeDataFlowAndTheirFieldsAreMadeSureOf() throws {
        let plan = try #require(try Self.importAndValidate("import/openapi/link-example.yaml").first).plan.text
        // `userRepositories` links `username` of `getUserByName`'s response to `getRepositoriesByOwner`.
        #expect(plan.contains(#"username: "${{ steps.getUserByName.body.username }}""#))
        // The response does not require `username`: the giving step checks it is there, so the reference is sure.
        #expect(plan.contains("  getUserByName:\n    request:\n      operation: link_example.getUserByName"))
        #expect(plan.contains("        username:\n          exists: true"))
        // `UserRepository` points into an object, but the response is a list: that link is not followed.
        #expect(!plan.contains("steps.getRepositoriesByOwner.body.owner"))
    }

    @Test func aPlanPerTagHoldsEveryOperationOnce() throws {
        let imported = try Self.importAndValidate(
            "openapi/swagger-petstore/openapi.yaml", options: OpenAPIImportOptions(grouping: .tag))
        #expect(imported.map(\.plan.fileName) == ["pet.yaml", "store.yaml", "user.yaml"])
        for plan in imported { #expect(plan.problems.isEmpty, "\(plan.plan.fileName): \(plan.problems)") }
        let operations = imported.flatMap {
            $0.plan.text.matches(of: /operation: swagger_petstore\.([A-Za-z]+)/).map(\.output.1)
        }
        #expect(operations.count == 19)
        #expect(Set(operations).count == 19)
        // Within the `store` plan, the order placed is the one read and deleted.
        let store = imported[1].plan.text
        #expect(store.contains(#"orderId: "${{ steps.placeOrder.body.id }}""#))
        #expect(store.contains("needs: [getOrderById]"))
    }

    @Test func aTagTheDescriptionDoesNotHaveIsRefusedWithItsTags() throws {
        let description = Self.fixtures.appendingPathComponent("openapi/swagger-petstore/openapi.yaml")
        let result = Pipeline().importOpenAPI(
            fileAt: description.path, writingTo: nil, options: OpenAPIImportOptions(tags: ["pets"]))
        guard case .failure(let diagnostic) = result else {
            Issue.record("a plan of an unknown tag")
            return
        }
        #expect(diagnostic.code == .importNothing)
        #expect(diagnostic.message == "the description has no tag `pets`")
        #expect(diagnostic.hint == "its tags are `pet`, `store`, `user`")
    }

    @Test func aDescriptionThatCannotBeReadIsRP0801() throws {
        let result = Pipeline().importOpenAPI(
            fileAt: Self.fixtures.appendingPathComponent("openapi/not-openapi.json").path, writingTo: nil,
            options: OpenAPIImportOptions())
        guard case .failure(let diagnostic) = result else {
            Issue.record("a plan of a document that is not OpenAPI")
            return
        }
        #expect(diagnostic.code == .apiDescriptionUnreadable)
        #expect(diagnostic.file?.hasSuffix("not-openapi.json") == true)
    }
}
