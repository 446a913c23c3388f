import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

/// `reqplan import` end to end: the HAR of a login → create → read → delete session against the demo API
/// imports to a plan with no copied id or token, which runs green against a freshly started demo API (where
/// the copied literals would fail); `-o` writes whole files and never the input.
@Suite(.timeSensitive) struct ImportCommandTests {
    static let session = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
        defaults:
          base_url: ${{ inputs.base_url }}
        steps:
          login:
            request: { method: POST, url: /login, json: { user: alice } }
          create:
            request:
              method: POST
              url: /items
              headers: { Authorization: "Bearer ${{ steps.login.body.token }}" }
              json: { name: imported, kind: note }
          read:
            request:
              url: "/items/${{ steps.create.body.id }}"
              headers: { X-Session: "${{ steps.login.body.token }}" }
          remove:
            request:
              method: DELETE
              url: "/items/${{ steps.read.body.id }}"
              headers: { Authorization: "Bearer ${{ steps.login.body.token }}" }
        """

    @Test func aHARSessionImportsWithoutCopiedValuesAndRunsAgainstAFreshServer() async throws {
        let plan = try CommandRunner.temporaryPlan(Self.session, name: "session.yaml")
        let folder = plan.deletingLastPathComponent()
        let har = folder.appendingPathComponent("session.har")
        // Recorded on a server that has run the session once already: the item's id is not a fresh server's.
        let recorded = try await DemoAPI.withServer { base in
            for _ in 0..<2 {
                let run = try await CommandRunner.run(
                    ["run", plan.path, "--input", "base_url=\(base)", "--report", "har:\(har.path)"],
                    within: .seconds(60))
                #expect(run.status == 0, "\(run.stderr)")
            }
            return try String(contentsOf: har, encoding: .utf8)
        }
        let id = try #require(recorded.firstMatch(of: /"Location",\s*"value"\s*:\s*"\/items\/([0-9]+)"/)?.output.1)
        let text = try await Self.importedRunningAgainstAFreshServer(har)
        // Comments say which request each step was; the plan's values copy nothing.
        let values = text.split(separator: "\n").filter { !$0.trimmingPrefix(while: { $0 == " " }).hasPrefix("#") }
            .joined(separator: "\n")
        #expect(!values.contains("/items/\(id)") && !values.contains(": \(id)"), "\(text)")
        #expect(!text.contains("rp.alice."), "a token was copied: \(text)")
        #expect(text.contains("${{ steps.login.body.token }}") && text.contains("steps.create."))
    }

    /// The plan `reqplan import har HAR -o …` writes, once it has validated under `--strict` and run green
    /// against a demo API started for it.
    static func importedRunningAgainstAFreshServer(_ har: URL) async throws -> String {
        let imported = har.deletingPathExtension().appendingPathExtension("yaml")
        let result = try await CommandRunner.run(
            ["import", "har", har.path, "-o", imported.path], within: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        let validate = try await CommandRunner.run(["validate", "--strict", imported.path], within: .seconds(60))
        #expect(validate.status == 0, "\(validate.stdout)")
        try await DemoAPI.withServer { base in
            let run = try await CommandRunner.run(
                ["run", imported.path, "--input", "base_url=\(base)"], within: .seconds(60))
            #expect(run.status == 0, "\(run.stderr)")
        }
        return try String(contentsOf: imported, encoding: .utf8)
    }

    /// The same session, run by a page's script in headless Chromium and saved as the browser's HAR
    /// (`scripts/record-browser-har.py`): nothing redacted, browser headers, a favicon.
    @Test(ExternalServers.needed(.browser))
    func aChromiumSessionSavedAsHARImportsAndRunsAgainstAFreshServer() async throws {
        let folder = TestFolders.unique("import-browser")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let har = folder.appendingPathComponent("browser.har")
        let script = CommandRunner.packageRoot.appendingPathComponent("scripts/record-browser-har.py")
        let plan = try CommandRunner.temporaryPlan(Self.session, name: "first.yaml")
        let recorded = try await DemoAPI.withServer { base in
            // An item made first: the browser's is not the first a fresh server gives.
            let first = try await CommandRunner.run(
                ["run", plan.path, "--input", "base_url=\(base)"], within: .seconds(60))
            #expect(first.status == 0, "\(first.stderr)")
            // Waited for off the concurrency pool: the demo API answers the browser's requests on that pool, and a
            // wait blocking one of its threads (beside another test blocking the other) held the page's load past
            // its 120 s in a CI run.
            return try await CommandRunner.run(
                ["python3", script.path, base, har.path], executable: URL(fileURLWithPath: "/usr/bin/env"),
                within: .seconds(300))
        }
        #expect(recorded.status == 0, "\(recorded.stdout)\(recorded.stderr)")
        let text = try await Self.importedRunningAgainstAFreshServer(har)
        #expect(!text.contains("rp.alice."), "a token was copied: \(text)")
        #expect(text.contains("bearer: \"${{ steps.post_login.body.token }}\""), "\(text)")
        #expect(text.contains("url: \"${{ steps.post_items.headers.location }}\""), "\(text)")
    }

    @Test func outputIsWrittenWholeAndNeverOverTheInput() async throws {
        let script = try CommandRunner.temporaryPlan("curl https://h.example/a\n", name: "commands.sh")
        let refused = try await CommandRunner.run(
            ["import", "curl", script.path, "-o", script.path], within: .seconds(30))
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(try String(contentsOf: script, encoding: .utf8) == "curl https://h.example/a\n")
        let output = script.deletingLastPathComponent().appendingPathComponent("plan.yaml")
        let written = try await CommandRunner.run(
            ["import", "curl", script.path, "-o", output.path], within: .seconds(30))
        #expect(written.status == 0 && written.stdout.isEmpty)
        #expect(try String(contentsOf: output, encoding: .utf8).hasPrefix("# Written by `reqplan import curl`"))
        // A failed import leaves the file there as it was.
        let bad = script.deletingLastPathComponent().appendingPathComponent("bad.sh")
        try "curl 'https://h.example/\n".write(to: bad, atomically: true, encoding: .utf8)
        let failed = try await CommandRunner.run(["import", "curl", bad.path, "-o", output.path], within: .seconds(30))
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("error[RP1401]") && failed.stderr.contains("--> \(bad.path):1:6"))
        #expect(try String(contentsOf: output, encoding: .utf8).hasPrefix("# Written by `reqplan import curl`"))
    }

    @Test func standardInputIsReadAsDash() throws {
        let script = try CommandRunner.temporaryPlan("$ curl -sSL https://h.example/items\n", name: "in.sh")
        let process = Process()
        process.executableURL = CommandRunner.binary
        process.arguments = ["import", "curl", "-"]
        process.standardInput = try FileHandle(forReadingFrom: script)
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text.contains("url: /items") && text.contains("<stdin>"))
    }
}
