import Foundation
import ReqPlanTestSupport
import Testing

/// `run --report har:` against httpbin (issue 23): a suite of two plan files gives a page each; every
/// exchange is an entry (each redirect hop, each retry, a request that got no response), named by its
/// step; the secret password is in no byte of the file; haralyzer (PyPI) reads it back and
/// `scripts/check-har.py` finds the HAR 1.2 structure whole.
@Suite(.timeSensitive) struct HARReportTests {
    static let password = "Pw-Osprey-9931"

    static let plan = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
          password: { default: "\(password)", secret: true }
        defaults:
          base_url: ${{ inputs.base_url }}
        steps:
          hops:
            request: { url: /redirect/2 }
          flaky:
            request: { url: /status/503 }
            retry: { attempts: 2, backoff: 10ms }
          login:
            request:
              url: /basic-auth/alice/${{ inputs.password }}
              auth: { basic: { username: alice, password: "${{ inputs.password }}" } }
          echo:
            request: { method: POST, url: /anything, json: { password: "${{ inputs.password }}" } }
          refused:
            request: { url: "http://127.0.0.1:1/nothing" }
        """

    static let other = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
        steps:
          get:
            request: { url: "${{ inputs.base_url }}/get" }
            expect:
              status: 200
              headers: { content-type: { matches: json } }
              body: { $.url: { type: string }, $.args.page: { exists: true } }
        """

    static let checker = CommandRunner.packageRoot.appendingPathComponent("scripts/check-har.py")

    @Test(ExternalServers.needed(.httpbin))
    func everyExchangeIsAnEntryOfItsPlansPageAndTheSecretIsInNoByte() async throws {
        let httpbin = try await Httpbin.shared()
        let first = try CommandRunner.temporaryPlan(Self.plan, name: "a.yaml")
        let folder = first.deletingLastPathComponent()
        try Self.other.write(to: folder.appendingPathComponent("b.yaml"), atomically: true, encoding: .utf8)
        let har = folder.appendingPathComponent("run.har")
        let result = try await CommandRunner.run(
            ["run", folder.path, "--input", "base_url=\(httpbin.url)", "--report", "har:\(har.path)"],
            environment: ["no_proxy": "*"], within: .seconds(60))
        #expect(result.status == 1, "\(result.stderr)")
        let bytes = try Data(contentsOf: har)
        #expect(!String(decoding: bytes, as: UTF8.self).contains(Self.password), "the password leaks in the HAR")
        #expect(!bytes.isEmpty && bytes.range(of: Data(Self.password.utf8)) == nil)

        let log = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])["log"] as? [String: Any]
        let pages = try #require(log?["pages"] as? [[String: Any]])
        #expect(
            pages.compactMap { $0["title"] as? String }.map { URL(fileURLWithPath: $0).lastPathComponent } == [
                "a.yaml", "b.yaml",
            ])
        let entries = try #require(log?["entries"] as? [[String: Any]])
        func entriesOf(_ step: String) -> [[String: Any]] { entries.filter { $0["_step"] as? String == step } }
        func statuses(of step: String) -> [Int] {
            entriesOf(step).compactMap { ($0["response"] as? [String: Any])?["status"] as? Int }
        }
        // /redirect/2 → /relative-redirect/1 → /get: three exchanges, in order.
        #expect(statuses(of: "hops") == [302, 302, 200])
        #expect(
            entriesOf("hops").compactMap { ($0["request"] as? [String: Any])?["url"] as? String }
                .map { URL(string: $0)?.path ?? "" } == ["/redirect/2", "/relative-redirect/1", "/get"])
        #expect(statuses(of: "flaky") == [503, 503])
        #expect(entriesOf("flaky").compactMap { $0["_attempt"] as? Int } == [1, 2])
        #expect(statuses(of: "login") == [200])
        let refused = entriesOf("refused")
        #expect(refused.count == 1 && statuses(of: "refused") == [0])
        let error = refused.first?["_error"] as? String ?? ""
        #expect(error.contains("refused"), "\(error)")
        // The plan's entries are on its page, the other plan's on the second.
        #expect(entries.filter { $0["pageref"] as? String == "page_1" }.count == 8)
        #expect(entriesOf("get").map { $0["pageref"] as? String } == ["page_2"])

        if ExternalServers.canRun(.haralyzer) {
            let check = try runCommand("python3", [Self.checker.path, har.path])
            #expect(check.status == 0, "\(check.output)")
            #expect(check.output.contains("entries 9 pages 2"), "\(check.output)")
        }
    }
}
