import Foundation
import ReqPlanTestSupport
import Testing

/// `reqplan run` of an Arazzo workflow whose credentials Redocly Respect's `x-security` describes, against
/// connexion checking them as the description's `securitySchemes` say: a scheme named in the description (an
/// API key in a header, a bearer token), one written inline (basic), and the workflow's (an API key in the
/// query, embedded in text) for the step that has none of its own. Wrong values get connexion's 401, and no
/// credential shows in any output.
@Suite(.timeSensitive) struct ArazzoXSecurityTests {
    static let description = CommandRunner.packageRoot.appendingPathComponent(
        "Tests/Fixtures/openapi/credentials/schemes.yaml")

    static let workflow = """
        arazzo: 1.0.1
        info: { title: Credentials as Respect's x-security writes them, version: "1" }
        sourceDescriptions:
          - { name: api, url: api.yaml, type: openapi }
        workflows:
          - workflowId: calls
            inputs:
              type: object
              properties:
                key: { type: string }
                token: { type: string }
                password: { type: string }
            x-security:
              - scheme: { type: apiKey, in: query, name: api_key }
                values: { apiKey: '{$inputs.key}' }
            steps:
              - stepId: header
                operationId: byHeader
                x-security:
                  - schemeName: headerKey
                    values: { apiKey: $inputs.key }
                successCriteria: [{ condition: $statusCode == 200 }]
              - stepId: token
                operationId: byToken
                x-security:
                  - schemeName: token
                    values: { token: $inputs.token }
                successCriteria: [{ condition: $statusCode == 200 }]
              - stepId: user
                operationId: byUser
                x-security:
                  - scheme: { type: http, scheme: basic }
                    values: { username: \(ConnexionMock.validUser.name), password: $inputs.password }
                successCriteria: [{ condition: $statusCode == 200 }]
              - stepId: query
                operationId: byQuery
                successCriteria: [{ condition: $statusCode == 200 }]
        """

    @Test(ExternalServers.needed(.connexion), arguments: [true, false])
    func theStepsSendTheirXSecurity(right: Bool) async throws {
        let mock = try await ConnexionMock.start(serving: Self.description, checkingCredentials: true)
        defer { mock.stop() }
        let file = try CommandRunner.temporaryPlan(Self.workflow, name: "calls.arazzo.yaml")
        let copy = file.deletingLastPathComponent().appendingPathComponent("api.yaml")
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: Self.description, to: copy)
        let suffix = right ? "" : "-wrong"
        let result = try await CommandRunner.run(
            [
                "run", file.path, "--output", "json", "--server", "api=\(mock.url)/v1",
                "--input", "key=\(ConnexionMock.validKey)\(suffix)",
                "--input", "token=\(ConnexionMock.validToken)\(suffix)",
                "--input", "password=\(ConnexionMock.validUser.password)\(suffix)",
            ], within: .seconds(60))
        // Each step's criteria want 200: exit 0 only when every request sent what its scheme asks for.
        #expect(result.status == (right ? 0 : 1), "\(result.stdout)\(result.stderr)")
        if !right {
            // Refused by connexion (401), not by reqplan before sending.
            #expect((result.stdout + result.stderr).contains("401"), "\(result.stdout)\(result.stderr)")
        }
        for secret in [ConnexionMock.validKey, ConnexionMock.validToken, ConnexionMock.validUser.password] {
            #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "\(secret) shown")
        }
    }
}
