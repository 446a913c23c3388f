import Foundation
import ReqPlanTestSupport
import Testing

/// `reqplan import postman|insomnia|bruno|hurl` end to end: a collection imports to a plan that validates under
/// `--strict` and runs green against a local httpbin, the token one answer gave read by the next request
/// (data flow from a Postman test script, an Insomnia `{% response %}` tag), not copied.
@Suite(.timeSensitive) struct ImportCollectionCommandTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/import")

    @Test(
        ExternalServers.needed(.httpbin),
        arguments: [
            [
                "postman", "postman/reqplan-httpbin-session.postman_collection.json",
                "postman/reqplan-httpbin-session.postman_environment.json",
            ],
            ["postman", "postman/newman-sample-collection.postman_collection.json"],
            ["insomnia", "insomnia/reqplan-httpbin-session.insomnia.yaml"],
            ["bruno", "bruno/reqplan-httpbin"],
            ["bruno", "opencollection/reqplan-httpbin"],
            ["hurl", "hurl/reqplan-httpbin-session.hurl"],
        ])
    func anImportedCollectionRunsGreenAgainstHttpbin(_ arguments: [String]) async throws {
        let httpbin = try await Httpbin.shared()
        let folder = try CommandRunner.temporaryPlan("", name: "unused.yaml").deletingLastPathComponent()
        let plan = folder.appendingPathComponent("imported.yaml")
        let files = arguments.dropFirst().map { Self.fixtures.appendingPathComponent($0).path }
        let imported = try await CommandRunner.run(
            ["import", arguments[0]] + files + ["-o", plan.path], within: .seconds(60))
        #expect(imported.status == 0, "\(imported.stderr)")
        let text = try String(contentsOf: plan, encoding: .utf8)
        #expect(!text.contains("s3cret-pass"), "\(text)")
        let validate = try await CommandRunner.run(["validate", "--strict", plan.path], within: .seconds(60))
        #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")
        let inputs = text.contains("inputs.baseurl") ? "baseurl" : "base_url"
        var run = ["run", plan.path, "--input", "\(inputs)=\(httpbin.url)"]
        if text.contains("inputs.password") { run += ["--input", "password=s3cret-pass"] }
        let result = try await CommandRunner.run(run, within: .seconds(60))
        #expect(result.status == 0, "\(text)\n\(result.stdout)\(result.stderr)")
    }
}
