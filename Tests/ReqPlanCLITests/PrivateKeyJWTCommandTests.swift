import Foundation
import ReqPlanTestSupport
import Testing

/// `reqplan run` with `client_auth: private_key_jwt` against Authlib's authorization server: the private key,
/// the assertions it signed and the token the server granted (read from the server's own records after the
/// run) are in no output: the terminal, `--verbose`, and the JSON, JUnit, trace, HAR and HTML reports.
@Suite(.timeSensitive) struct PrivateKeyJWTCommandTests {
    @Test(ExternalServers.needed(.authlib))
    func noKeyAssertionOrTokenIsInAnyOutput() async throws {
        let provider = try await AuthlibProvider.start()
        defer { provider.stop() }
        let key = try provider.privateKey(of: "ec-client")
        let plan = """
            reqplan: 1
            name: private-key-jwt-outputs
            inputs:
              client_key: { env: CLIENT_KEY }
            defaults:
              auth:
                oauth2:
                  token_url: \(provider.tokenURL)
                  client_id: ec-client
                  client_auth: private_key_jwt
                  private_key: "${{ inputs.client_key }}"
                  scope: read
            steps:
              me:
                request: { url: "\(provider.resourceURL)" }
                expect: { body: { client: nobody } }
            """
        let file = try CommandRunner.temporaryPlan(plan)
        let folder = file.deletingLastPathComponent()
        let kinds = ["json", "junit", "trace", "har", "html"]
        let reports = kinds.flatMap { ["--report", "\($0):\(folder.appendingPathComponent("report.\($0)").path)"] }
        let result = try await CommandRunner.run(
            ["run", file.path, "--verbose", "--output", "json"] + reports, environment: ["CLIENT_KEY": key],
            within: .seconds(60))
        // `me` fails on purpose (the body names `ec-client`), so that the failure note quotes the response.
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("> Authorization: ***"), "\(result.stderr)")
        var outputs = ["stdout": result.stdout, "stderr": result.stderr]
        for kind in kinds {
            outputs["\(kind) report"] = try String(
                contentsOf: folder.appendingPathComponent("report.\(kind)"), encoding: .utf8)
        }
        let (tokens, assertions) = provider.granted
        #expect(tokens.count == 1 && assertions.count == 1)
        // The key's body, line by line: no part of it shows.
        let keyLines = key.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-----") }
        for (name, output) in outputs {
            for secret in tokens + assertions + keyLines {
                #expect(!output.contains(secret), "a secret is in \(name)")
            }
        }
        try await SecretValueTests.expectReportsParse(in: folder)
    }
}
