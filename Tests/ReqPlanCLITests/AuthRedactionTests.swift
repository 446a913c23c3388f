import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

/// Credentials from `auth:` and from URLs, and required environment inputs, through the built binary.
@Suite(.timeSensitive) struct AuthRedactionTests {
    /// Neither input is `secret`: credentials are hidden because they are credentials.
    static let password = "Pw-Zebra-93"
    static let token = "Tok-Okapi-71"
    static let urlPassword = "Url-Gecko-58"

    static let plan = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
          authority: { default: "127.0.0.1:1" }
          password: { default: "\(password)" }
          url_password: { default: "\(urlPassword)" }
          token: { env: REQPLAN_TEST_BEARER, required: true }
        defaults:
          base_url: ${{ inputs.base_url }}
        steps:
          basic:
            request:
              url: /basic-auth/alice/${{ inputs.password }}
              auth: { basic: { username: alice, password: "${{ inputs.password }}" } }
          echo:
            request:
              method: POST
              url: /echo
              auth: { basic: { username: alice, password: "${{ inputs.password }}" } }
          url-credentials:
            request: { url: "http://carol:${{ inputs.url_password }}@${{ inputs.authority }}/basic-auth/carol/${{ inputs.url_password }}" }
          bearer-fails:
            request: { url: /status/500, auth: { bearer: "${{ inputs.token }}" } }
        outputs:
          echoed: ${{ steps.echo.body }}
          url: ${{ steps.url-credentials.body }}
        """

    static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    @Test func noCredentialNorItsBase64FormAppearsInAnyOutput() async throws {
        let file = try CommandRunner.temporaryPlan(Self.plan)
        try await DemoAPI.withServer { base in
            let authority = String(base.dropFirst("http://".count))
            let outputs = try await EveryOutput.collect(
                plan: file, arguments: ["--input", "base_url=\(base)", "--input", "authority=\(authority)"],
                environment: ["REQPLAN_TEST_BEARER": Self.token], status: 1)
            // The credentials were sent and accepted (only the 500 fails), and shown hidden.
            let text = outputs["text stderr"] ?? ""
            #expect(text.contains("✓ basic"), "\(text)")
            #expect(text.contains("✓ url-credentials"), "\(text)")
            #expect(text.contains("✗ bearer-fails"), "\(text)")
            #expect(text.contains("Authorization: ***"))
            // The URL is shown without its user information; the password a server path repeats is hidden
            // by the textual net (it is long enough), the user name (not a secret, and short) is not.
            #expect(text.contains("GET \(base)/basic-auth/carol/***"), "\(text)")
            let echoedHeader = "\"name\": \"authorization\",\n        \"value\": \"***\""
            #expect(outputs["json stdout"]?.contains(echoedHeader) == true, "the echo of the header is hidden")
            let forms = [
                Self.password, Self.base64("alice:\(Self.password)"), Self.token,
                Self.urlPassword, Self.base64("carol:\(Self.urlPassword)"), "carol:",
            ]
            for (name, output) in outputs {
                #expect(!output.isEmpty || name.hasSuffix("stderr"), "\(name) is empty")
                for form in forms {
                    #expect(!output.contains(form), "`\(form)` leaks in \(name)")
                }
            }
        }
    }

    @Test(arguments: [[:], ["REQPLAN_TEST_BEARER": ""]])
    func anUnsetRequiredVariableStopsTheRunBeforeAnythingIsSent(environment: [String: String]) async throws {
        let file = try CommandRunner.temporaryPlan(Self.plan)
        // Nothing listens on port 1: were a request sent, it would fail with exit code 1, not 2.
        let result = try await CommandRunner.run(["run", file.path], environment: environment, within: .seconds(30))
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        let state = environment.isEmpty ? "is not set" : "is empty"
        #expect(
            result.stderr.contains(
                "error[RP0502]: input `token` is required, but the environment variable `REQPLAN_TEST_BEARER` \(state)"),
            "\(result.stderr)")
        #expect(result.stderr.contains("plan.yaml:7:3"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
