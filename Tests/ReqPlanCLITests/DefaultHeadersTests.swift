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
}
