import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

/// What users compare against is GitHub Actions' masking: a value marked secret never appears in a log.
/// - A secret of 8 characters or more is hidden in every string every output shows, wherever the text came
///   from: here the plan writes it literally in a URL path, beside the secret input that holds it.
/// - A shorter secret is hidden wherever reqplan put it (a header, the query, a JSON body), on every hop:
///   a 307 sends the same header and body again, and the hop after it shows them as the first did.
@Suite("Secrets in every output, on every hop", .timeSensitive)
struct SecretMaskingTests {
    static let long = "s3cr3t-pw"
    static let short = "k3y9"

    static let plan = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
          password: { default: "\(long)", secret: true }
          key: { default: "\(short)", secret: true }
        defaults: { base_url: "${{ inputs.base_url }}" }
        steps:
          login:
            request:
              url: /basic-auth/alice/\(long)
              auth: { basic: { username: alice, password: "${{ inputs.password }}" } }
            expect: { status: 201 }
          hop:
            request:
              method: POST
              url: "/redirect-to?status=307&url=%2Fhealth%3Fkey%3D${{ inputs.key }}&key=${{ inputs.key }}"
              headers: { X-Key: "${{ inputs.key }}" }
              json: { key: "${{ inputs.key }}", name: widget }
        """

    @Test func noOutputShowsALongSecretAndNoHopShowsAShortOne() async throws {
        try await DemoAPI.withServer { base in
            let plan = try CommandRunner.temporaryPlan(Self.plan)
            let folder = plan.deletingLastPathComponent()
            let reports = ["json", "junit", "trace", "har", "html"].map {
                ($0, folder.appendingPathComponent("run.\($0)"))
            }
            let result = try await CommandRunner.run(
                ["run", plan.path, "--input", "base_url=\(base)", "--verbose", "--progress", "lines"]
                    + reports.flatMap { ["--report", "\($0.0):\($0.1.path)"] }, within: .seconds(60))
            #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
            var outputs = [("standard output and error", result.stdout + result.stderr)]
            for (kind, file) in reports { outputs.append((kind, try String(contentsOf: file, encoding: .utf8))) }
            for (name, text) in outputs {
                #expect(!text.contains(Self.long), "the long secret is in \(name)")
            }
            // The hop after the 307: its request as sent again, shown with `***` in the header, the body and
            // the query the redirect kept.
            let har = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: reports[3].1)) as? [String: Any])
            let entries = try #require((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
            let hops = entries.filter { $0["_step"] as? String == "hop" }
            #expect(hops.count == 2, "\(entries.map { $0["_step"] ?? "" })")
            for (index, entry) in hops.enumerated() {
                let request = try #require(entry["request"] as? [String: Any])
                let text = String(
                    decoding: try JSONSerialization.data(withJSONObject: request, options: [.sortedKeys]), as: UTF8.self
                )
                #expect(!text.contains(Self.short), "hop \(index + 1) shows the short secret: \(text)")
                let headers = try #require(request["headers"] as? [[String: String]])
                #expect(headers.first { $0["name"] == "X-Key" }?["value"] == "***", "hop \(index + 1): \(headers)")
            }
            for marker in ["> hop: POST", "X-Key: ***", #""key":"***""#] {
                #expect(result.stderr.contains(marker), "\(marker) not in the verbose log: \(result.stderr)")
            }
            let verboseHops = result.stderr.components(separatedBy: "> hop").dropFirst()
            #expect(
                verboseHops.allSatisfy { !$0.prefix(while: { $0 != "<" }).contains(Self.short) }, "\(result.stderr)")
        }
    }
}
