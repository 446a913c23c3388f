import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

/// `reqplan import openapi` end to end: the demo API's own description imports to a plan that validates
/// clean under `--strict` and runs green against the demo API, the item it creates read, changed and
/// deleted through the data flow found; `--by tag` writes a plan per tag and needs a folder.
@Suite(.timeSensitive) struct ImportOpenAPICommandTests {
    static let document = CommandRunner.packageRoot.appendingPathComponent("plans/_openapi/demo-api.yaml")

    @Test func theDemoAPIsDescriptionImportsToAPlanThatRunsGreenAgainstIt() async throws {
        let folder = try CommandRunner.temporaryPlan("", name: "unused.yaml").deletingLastPathComponent()
        let description = folder.appendingPathComponent("demo-api.yaml")
        try FileManager.default.copyItem(at: Self.document, to: description)
        let plan = folder.appendingPathComponent("plan.yaml")
        let imported = try await CommandRunner.run(
            ["import", "openapi", description.path, "-o", plan.path], within: .seconds(60))
        #expect(imported.status == 0, "\(imported.stderr)")
        let text = try String(contentsOf: plan, encoding: .utf8)
        #expect(text.contains("openapi:\n  demo_api: demo-api.yaml\n"))
        #expect(text.contains(#"id: "${{ steps.createItem.body.id }}""#))
        #expect(text.contains("needs: [getItem, patchItem, replaceItem]"))
        let validated = try await CommandRunner.run(["validate", "--strict", plan.path], within: .seconds(60))
        #expect(validated.status == 0, "\(validated.stdout)\(validated.stderr)")
        try await DemoAPI.withServer { base in
            // `stock-report` answers counts as strings on purpose (the demo of response checks): the plan is
            // run here for its requests and data flow, without checking responses against the description.
            let run = try await CommandRunner.run(
                [
                    "run", plan.path, "--input", "base_url=\(base)", "--progress", "none", "--color", "never",
                    "--no-response-schema-check",
                ], within: .seconds(60))
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains("9 steps: 9 succeeded"), "\(run.stdout)")
            #expect(run.stdout.contains("✓ deleteItem"))
        }
    }

    @Test func aPlanPerTagNeedsAFolder() async throws {
        let result = try await CommandRunner.run(
            ["import", "openapi", Self.document.path, "--by", "tag"], within: .seconds(60))
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("`--by tag` writes a plan per tag: name their folder with `-o`"))
        let other = try await CommandRunner.run(
            ["import", "curl", Self.document.path, "--tag", "items"], within: .seconds(60))
        #expect(other.status == 64)
        #expect(other.stderr.contains("`--by` and `--tag` are options of `reqplan import openapi`"))
    }

    @Test func aPlanPerTagIsWrittenIntoTheFolder() async throws {
        let folder = try CommandRunner.temporaryPlan("", name: "unused.yaml").deletingLastPathComponent()
        let description = folder.appendingPathComponent("petstore.yaml")
        try FileManager.default.copyItem(
            at: CommandRunner.packageRoot.appendingPathComponent(
                "Tests/Fixtures/openapi/swagger-petstore/openapi.yaml"),
            to: description)
        // The folder is a project (`.reqplan`): the plans in `plans/` may name the description above them.
        try Data().write(to: folder.appendingPathComponent(".reqplan"))
        let plans = folder.appendingPathComponent("plans")
        let result = try await CommandRunner.run(
            ["import", "openapi", description.path, "--by", "tag", "-o", plans.path], within: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        for tag in ["pet", "store", "user"] {
            let plan = plans.appendingPathComponent("\(tag).yaml")
            #expect(result.stderr.contains("wrote \(plan.path)"))
            let text = try String(contentsOf: plan, encoding: .utf8)
            #expect(text.contains(#""../petstore.yaml""#), "\(text.prefix(600))")
            let validated = try await CommandRunner.run(["validate", "--strict", plan.path], within: .seconds(60))
            #expect(validated.status == 0, "\(validated.stdout)\(validated.stderr)")
        }
    }
}

/// The plan `reqplan import openapi` writes from the Swagger Petstore's description runs against connexion's
/// mock of that description (PyPI, `--mock=all`): a server nobody here wrote, answering with the
/// description's examples.
@Suite("Imported OpenAPI plans against connexion", .timeSensitive)
struct ImportedOpenAPIPlanRunTests {
    static let description = CommandRunner.packageRoot.appendingPathComponent(
        "Tests/Fixtures/openapi/swagger-petstore/openapi.yaml")

    @Test(
        "the Swagger Petstore's starter plan runs against connexion's mock, the pet added read and deleted",
        ExternalServers.needed(.connexion))
    func theSwaggerPetstoresPlanRunsAgainstConnexion() async throws {
        let folder = try CommandRunner.temporaryPlan("", name: "unused.yaml").deletingLastPathComponent()
        let copy = folder.appendingPathComponent("petstore.yaml")
        try FileManager.default.copyItem(at: Self.description, to: copy)
        let photo = folder.appendingPathComponent("photo.png")
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: photo)
        let plan = folder.appendingPathComponent("plan.yaml")
        let imported = try await CommandRunner.run(
            ["import", "openapi", copy.path, "-o", plan.path], within: .seconds(60))
        #expect(imported.status == 0, "\(imported.stderr)")
        let mock = try await ConnexionMock.start(serving: Self.description)
        defer { mock.stop() }
        let run = try await CommandRunner.run(
            [
                "run", plan.path, "--input", "base_url=\(mock.url)/api/v3", "--input", "api_key=unused",
                "--input", "petstore_auth_token=unused", "--input", "uploadfile_file=\(photo.path)",
                "--progress", "none", "--color", "never", "--no-response-schema-check",
            ], environment: ["no_proxy": "*"], within: .seconds(90))
        // connexion's mock answers 501 for a response with no example to serve: `getInventory` (a map) and
        // `loginUser` (a string). Every other operation succeeds.
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("19 steps: 17 succeeded, 2 failed"), "\(run.stdout)")
        let failed = run.stdout.matches(of: /✗ ([A-Za-z]+) +GET → 501/).map { String($0.output.1) }
        #expect(Set(failed) == ["getInventory", "loginUser"], "\(run.stdout)")
        let log = mock.process.read("connexion.console.log")
        // The pet the mock answered `addPet` with (the Pet example, id 10) is the one read and deleted.
        for request in ["POST /api/v3/pet", "GET /api/v3/pet/10", "DELETE /api/v3/pet/10"] {
            #expect(log.contains("\"\(request) HTTP/1.1\""), "\(request) not in the mock's log: \(log)")
        }
    }
}
