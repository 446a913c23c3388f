import Foundation
import ReqPlanTestSupport
import Testing

/// The headers reqplan adds to a request the plan does not set (grammar.md §6.5), as a third-party server sees
/// them: httpbin's `/headers` echoes what came. Both HTTP clients send the same.
@Suite struct DefaultHeadersTests {
    static func plan(base: String, host: String, version: String) -> String {
        """
        reqplan: 1
        steps:
          added:
            request: { url: "\(base)/headers" }
            expect:
              body:
                "$.headers['User-Agent']": "reqplan/\(version)"
                "$.headers['Accept-Encoding']": "deflate, gzip"
                "$.headers.Host": "\(host)"
          own:
            request:
              url: \(base)/headers
              headers: { user-agent: mine/1, accept-encoding: identity }
            expect:
              body:
                "$.headers['User-Agent']": mine/1
                "$.headers['Accept-Encoding']": identity
        """
    }

    /// `User-Agent` names the version `reqplan --version` prints (it said `reqplan/0.1` beside `0.1.0`), and a
    /// plan's own `User-Agent` and `Accept-Encoding`, in any case, replace reqplan's: not doubled (httpbin
    /// joins a repeated header's values with a comma, which the expectations would not equal).
    @Test(ExternalServers.needed(.httpbin), arguments: ["reqplan", "asynchttpclient"])
    func aRequestCarriesReqplansUserAgentAndAcceptEncodingUnlessThePlanSetsThem(_ client: String) async throws {
        let httpbin = try await Httpbin.shared()
        let version = try await CommandRunner.run(["--version"], within: .seconds(60))
        #expect(version.status == 0)
        let plan = try CommandRunner.temporaryPlan(
            Self.plan(
                base: httpbin.url, host: "127.0.0.1:\(httpbin.port)",
                version: version.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let run = try await CommandRunner.run(
            ["run", plan.path, "--http-client", client], environment: ["no_proxy": "*"], within: .seconds(60))
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    }

    /// What `--verbose` and the HAR report show of a request's headers is the head the server received:
    /// `Host`, `Content-Length` (by the framing's rules: none for a DELETE without a body, `0` for a PUT) and
    /// `Accept-Encoding` included, a plan's `Host` in place of reqplan's, and a `Content-Length` that would tell
    /// a secret's length hidden. httpbin's `/anything` echoes the headers it got; before, the outputs lacked the
    /// three the client adds. (Both clients write the same head: AsyncHTTPClient is given reqplan's `Host`, which
    /// keeps a default port the URL writes, where its own would leave it out; telling the two apart takes port 80,
    /// which a test cannot count on, so that was checked by hand with a socket on it.)
    @Test(ExternalServers.needed(.httpbin), arguments: ["reqplan", "asynchttpclient"])
    func theOutputsShowTheHeadersTheServerReceived(_ client: String) async throws {
        let httpbin = try await Httpbin.shared()
        let plan = try CommandRunner.temporaryPlan(
            """
            reqplan: 1
            inputs:
              token: { env: DEFAULT_HEADERS_TOKEN, secret: true }
            steps:
              post:
                request: { method: POST, url: "\(httpbin.url)/anything", json: { a: 1 } }
              put:
                request: { method: PUT, url: "\(httpbin.url)/anything", headers: { Host: example.test } }
              delete:
                request: { method: DELETE, url: "\(httpbin.url)/anything" }
              secret:
                request: { method: POST, url: "\(httpbin.url)/anything", json: { token: "${{ inputs.token }}" } }
            """)
        let version = try await CommandRunner.run(["--version"], within: .seconds(60))
        let userAgent = "reqplan/" + version.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let har = plan.deletingLastPathComponent().appendingPathComponent("run.har")
        let run = try await CommandRunner.run(
            ["run", plan.path, "--http-client", client, "--verbose", "--report", "har:\(har.path)"],
            environment: ["no_proxy": "*", "DEFAULT_HEADERS_TOKEN": "k3y9"], within: .seconds(60))
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: har)) as? [String: Any])
        let entries = try #require((document["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.count == 4)
        func fields(_ list: Any?) -> [String: String] {
            var fields: [String: String] = [:]
            for field in list as? [[String: Any]] ?? [] {
                if let name = field["name"] as? String, let value = field["value"] as? String {
                    fields[name.lowercased()] = value
                }
            }
            return fields
        }
        var shownByMethodAndHost: [String: [String: String]] = [:]
        for entry in entries {
            let request = try #require(entry["request"] as? [String: Any])
            let shown = fields(request["headers"])
            let content = try #require((entry["response"] as? [String: Any])?["content"] as? [String: Any])
            let text = try #require(content["text"] as? String)
            let echo = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let received = ((echo["headers"] as? [String: String]) ?? [:])
                .reduce(into: [String: String]()) { $0[$1.key.lowercased()] = $1.value }
            let method = try #require(request["method"] as? String)
            if shown["content-length"] == "***" {
                // The secret's request: everything else as received, its length not shown.
                #expect(received["content-length"] == String(#"{"token":"k3y9"}"#.utf8.count))
                #expect(shown.filter { $0.key != "content-length" } == received.filter { $0.key != "content-length" })
            } else {
                #expect(shown == received, "\(method): shown \(shown), received \(received)")
                shownByMethodAndHost[method + " " + (shown["host"] ?? "")] = shown
            }
        }
        #expect(shownByMethodAndHost["PUT example.test"]?["content-length"] == "0")
        #expect(shownByMethodAndHost["DELETE 127.0.0.1:\(httpbin.port)"].map { $0["content-length"] == nil } == true)
        #expect(shownByMethodAndHost["POST 127.0.0.1:\(httpbin.port)"]?["accept-encoding"] == "deflate, gzip")
        // --verbose shows the same head: the POST's lines, in the order the client writes them.
        let post = run.stderr.components(separatedBy: "\n").drop { !$0.hasPrefix("> post:") }.dropFirst()
            .prefix { $0.hasPrefix("> ") && !$0.hasPrefix("> {") }
        #expect(
            Array(post) == [
                "> Host: 127.0.0.1:\(httpbin.port)", "> Content-Type: application/json",
                "> User-Agent: \(userAgent)", "> Content-Length: 7", "> Accept-Encoding: deflate, gzip",
            ], "\(run.stderr)")
        // What was sent shows no secret (httpbin's echo does: the textual net leaves a secret that short alone).
        let sentLines = run.stderr.components(separatedBy: "\n").filter { $0.hasPrefix(">") }
        #expect(!sentLines.isEmpty && !sentLines.contains { $0.contains("k3y9") })
        for entry in entries {
            let request = try JSONSerialization.data(withJSONObject: try #require(entry["request"]))
            #expect(!String(decoding: request, as: UTF8.self).contains("k3y9"))
        }
    }
}
