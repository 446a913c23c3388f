import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

@Suite(.timeSensitive) struct RunRedactionTests {
    static let secret = "s3cr3t-token-value-42"

    static let plan = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
          token: { env: REQPLAN_TEST_TOKEN, secret: true }
        defaults:
          base_url: ${{ inputs.base_url }}
        steps:
          echo:
            request: { url: "/echo?token=${{ inputs.token }}", headers: { X-Token: "${{ inputs.token }}" } }
          leak:
            request: { url: "/status/500?token=${{ inputs.token }}" }
        outputs:
          seen: ${{ steps.echo.body.query.raw }}
          token: ${{ inputs.token }}
        """

    @Test func secretInputsNeverAppearInRunOutput() async throws {
        let file = try CommandRunner.temporaryPlan(Self.plan)
        try await DemoAPI.withServer { base in
            let result = try await CommandRunner.run(
                ["run", file.path, "--input", "base_url=\(base)"],
                environment: ["REQPLAN_TEST_TOKEN": Self.secret], within: .seconds(30))
            #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
            // The secret really was sent (the echo saw it) and was hidden everywhere it would have shown.
            #expect(result.stdout.contains("token=***"))
            #expect(result.stderr.contains("token=***"))
            #expect(!result.stdout.contains(Self.secret))
            #expect(!result.stderr.contains(Self.secret))
        }
    }
}

@Suite(.timeSensitive) struct EveryOutputRedactionTests {
    static let secret = "Zq9-secret-4711"

    static let plan = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
          token: { env: REQPLAN_TEST_TOKEN, secret: true }
        redact_headers: [X-Api-Key]
        defaults:
          base_url: ${{ inputs.base_url }}
          headers: { Authorization: "Bearer ${{ inputs.token }}", X-Api-Key: "${{ inputs.token }}" }
        steps:
          echo: { request: { method: POST, url: "/echo?t=${{ inputs.token }}", json: { token: "${{ inputs.token }}" } } }
          broken: { request: { url: "/status/500?t=${{ inputs.token }}" } }
        outputs:
          token: ${{ inputs.token }}
          echoed: ${{ steps.echo.body }}
        """

    @Test func theSecretIsInNoByteOfAnyOutput() async throws {
        let file = try CommandRunner.temporaryPlan(Self.plan)
        try await DemoAPI.withServer { base in
            let outputs = try await EveryOutput.collect(
                plan: file, arguments: ["--input", "base_url=\(base)"],
                environment: ["REQPLAN_TEST_TOKEN": Self.secret], status: 1)
            // The run really used the secret: the verbose dump shows the echo of it, redacted.
            #expect(outputs["text stderr"]?.contains("t=***") == true)
            #expect(outputs["text stderr"]?.contains("Authorization: ***") == true)
            #expect(outputs["text stderr"]?.contains("X-Api-Key: ***") == true)
            for (name, text) in outputs {
                #expect(!text.isEmpty || name.hasSuffix("stderr"), "\(name) is empty")
                for form in [Self.secret, Self.secret.replacingOccurrences(of: "-", with: "%2D")] {
                    #expect(!text.contains(form), "the secret leaks in \(name)")
                }
            }
        }
    }
}
