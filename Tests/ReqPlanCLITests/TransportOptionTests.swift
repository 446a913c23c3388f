import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

/// `reqplan run`'s transport options, end to end: `--connect-timeout`, `--no-follow-redirects` and
/// `--http-client`.
@Suite(.timeSensitive) struct TransportOptionTests {
    static let redirectPlan = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
        defaults: { base_url: "${{ inputs.base_url }}" }
        steps:
          moved:
            request: { url: "/redirect-to?url=/health&status=302" }
            expect: { status: 302, headers: { Location: /health } }
        """

    @Test func noFollowRedirectsReturnsTheRedirectAsItIs() async throws {
        let file = try CommandRunner.temporaryPlan(Self.redirectPlan)
        try await DemoAPI.withServer { base in
            let unfollowed = try await CommandRunner.run(
                ["run", file.path, "--input", "base_url=\(base)", "--no-follow-redirects"], within: .seconds(30))
            #expect(unfollowed.status == 0, "\(unfollowed.stdout)\(unfollowed.stderr)")
            // By default the redirect is followed, so the step sees /health's 200.
            let followed = try await CommandRunner.run(
                ["run", file.path, "--input", "base_url=\(base)"],
                within: .seconds(30))
            #expect(followed.status == 1)
            #expect(followed.stderr.contains("expected status 302, got 200"), "\(followed.stderr)")
        }
    }

    @Test func connectTimeoutBoundsAHostThatNeverAnswers() async throws {
        let silent = try SilentPort()
        defer { silent.close() }
        let file = try CommandRunner.temporaryPlan(
            """
            reqplan: 1
            steps:
              silent: { request: { url: "http://127.0.0.1:\(silent.port)/" } }
            """)
        let result = try await CommandRunner.run(
            ["run", file.path, "--connect-timeout", "300ms"], within: .seconds(30))
        #expect(!result.killedAfterTimeout)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("connecting to 127.0.0.1:\(silent.port) timed out after 300ms"), "\(result.stderr)")
    }

    @Test(arguments: ["soon", "0s", ""]) func aConnectTimeoutThatIsNotADurationIsAUsageError(_ value: String) throws {
        let file = try CommandRunner.temporaryPlan(Self.redirectPlan)
        let result = try CommandRunner.run(["run", file.path, "--connect-timeout", value])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--connect-timeout must be a duration such as 5s or 500ms"), "\(result.stderr)")
    }

    @Test(arguments: ["reqplan", "asynchttpclient"]) func eitherHTTPClientRunsThePlan(_ client: String) async throws {
        let file = try CommandRunner.temporaryPlan(Self.redirectPlan)
        try await DemoAPI.withServer(tls: true) { base in
            let result = try await CommandRunner.run(
                [
                    "run", file.path, "--input", "base_url=\(base)", "--insecure", "--no-follow-redirects",
                    "--http-client", client,
                ], within: .seconds(30))
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
    }

    @Test func anUnknownHTTPClientIsAUsageError() throws {
        let file = try CommandRunner.temporaryPlan(Self.redirectPlan)
        let result = try CommandRunner.run(["run", file.path, "--http-client", "curl"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("reqplan") && result.stderr.contains("asynchttpclient"), "\(result.stderr)")
    }
}
