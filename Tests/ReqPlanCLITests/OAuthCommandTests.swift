import Foundation
import ReqPlanTestSupport
import Testing

/// `reqplan run` with `auth: { oauth2 }` against django-oauth-toolkit, a real provider: the token it grants is
/// sent to the resource it protects and to httpbin, which echoes it back. No client secret and no token the
/// provider granted (read from its own database after the run) is in any output: the terminal, `--verbose`,
/// and the JSON, JUnit, trace, HAR and HTML reports, each of which parses.
@Suite(.timeSensitive) struct OAuthCommandTests {
    @Test(ExternalServers.needed(.oauthProvider), ExternalServers.needed(.httpbin))
    func noTokenOrSecretIsInAnyOutputAndEveryReportParses() async throws {
        let provider = try await DjangoOAuthProvider.start(tokenLifetime: 300)
        defer { provider.stop() }
        let httpbin = try await Httpbin.shared()
        let plan = """
            reqplan: 1
            name: oauth-outputs
            inputs:
              client_secret: { env: CLIENT_SECRET }
            defaults:
              auth:
                oauth2:
                  token_url: \(provider.tokenURL)
                  client_id: "\(DjangoOAuthProvider.awkwardClient.id)"
                  client_secret: "${{ inputs.client_secret }}"
                  scope: [read]
            steps:
              me:
                request: { url: "\(provider.resourceURL)" }
                expect: { body: { client: "\(DjangoOAuthProvider.awkwardClient.id)" } }
              echo:
                request: { url: "\(httpbin.url)/headers" }
                expect: { status: 500 }
            outputs:
              echoed: ${{ steps.echo.body.headers.Authorization }}
            """
        let file = try CommandRunner.temporaryPlan(plan)
        let folder = file.deletingLastPathComponent()
        let kinds = ["json", "junit", "trace", "har", "html"]
        let reports = kinds.flatMap { ["--report", "\($0):\(folder.appendingPathComponent("report.\($0)").path)"] }
        let result = try await CommandRunner.run(
            ["run", file.path, "--verbose", "--progress", "lines", "--output", "json"] + reports,
            environment: ["CLIENT_SECRET": DjangoOAuthProvider.awkwardClient.secret], within: .seconds(60))
        // `echo` fails on purpose (httpbin answers 200), so that the failure note quotes its response.
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("> Authorization: ***"), "\(result.stderr)")
        #expect(result.stdout.contains(#""echoed": "***""#), "\(result.stdout)")

        var outputs = ["stdout": result.stdout, "stderr": result.stderr]
        for kind in kinds {
            outputs["\(kind) report"] = try String(
                contentsOf: folder.appendingPathComponent("report.\(kind)"), encoding: .utf8)
        }
        let granted = try await Self.grantedTokens(provider)
        #expect(granted.count == 1)
        for (name, output) in outputs {
            for secret in granted + [DjangoOAuthProvider.awkwardClient.secret] {
                #expect(!output.contains(secret), "a secret is in \(name)")
            }
        }
        for kind in ["json", "trace", "har"] {
            let data = try Data(contentsOf: folder.appendingPathComponent("report.\(kind)"))
            #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: data) }
        }
        try await SecretValueTests.expectReportsParse(in: folder)
    }

    /// Every access token the provider granted, from its own database.
    static func grantedTokens(_ provider: DjangoOAuthProvider) async throws -> [String] {
        let database = provider.process.folder.appendingPathComponent("db.sqlite3").path
        let read = try await CommandRunner.run(
            [
                "python3", "-c",
                "import sqlite3, sys; [print(t) for (t,) in sqlite3.connect(sys.argv[1]).execute("
                    + "'select token from oauth2_provider_accesstoken')]",
                database,
            ], executable: URL(fileURLWithPath: "/usr/bin/env"), within: .seconds(30))
        #expect(read.status == 0, "\(read.stderr)")
        return read.stdout.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// An API description whose one operation asks for an OAuth 2.0 client-credentials token (its token URL
    /// relative to the server, as OpenAPI allows), served by the provider.
    static func description(_ provider: DjangoOAuthProvider) -> String {
        """
        openapi: 3.0.3
        info: { title: Me, version: "1" }
        servers: [{ url: "\(provider.url)" }]
        components:
          securitySchemes:
            oauth:
              type: oauth2
              flows:
                clientCredentials: { tokenUrl: /o/token/, scopes: { read: Read, write: Write } }
        security: [{ oauth: [read] }]
        paths:
          /api/me:
            get:
              operationId: getMe
              responses:
                "200":
                  description: who the token is for
                  content:
                    application/json:
                      schema:
                        type: object
                        properties: { client: { type: string }, user: { type: string, nullable: true } }
        """
    }

    @Test(ExternalServers.needed(.oauthProvider))
    func aPlanTakesItsTokenFromTheDescriptionsSecuritySchemes() async throws {
        let provider = try await DjangoOAuthProvider.start(tokenLifetime: 300)
        defer { provider.stop() }
        let plan = """
            reqplan: 1
            inputs:
              client_id: { env: CLIENT_ID }
              client_secret: { env: CLIENT_SECRET }
            openapi:
              api:
                file: api.yaml
                base_url: \(provider.url)
                credentials:
                  oauth: { client_id: "${{ inputs.client_id }}", client_secret: "${{ inputs.client_secret }}" }
            steps:
              me:
                request: { operation: api.getMe }
                expect: { body: { client: "${{ inputs.client_id }}" } }
            """
        let file = try CommandRunner.temporaryPlan(plan)
        try Self.description(provider).write(
            to: file.deletingLastPathComponent().appendingPathComponent("api.yaml"), atomically: true, encoding: .utf8)
        let environment = [
            "CLIENT_ID": DjangoOAuthProvider.awkwardClient.id,
            "CLIENT_SECRET": DjangoOAuthProvider.awkwardClient.secret,
        ]
        let result = try await CommandRunner.run(["run", file.path], environment: environment, within: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(provider.log.components(separatedBy: "\"POST /o/token/ HTTP/1.1\" 200").count - 1 == 1)

        // A scheme misspelt in `credentials` is found before the run, with the scheme it means.
        let misspelt = try CommandRunner.temporaryPlan(
            plan.replacingOccurrences(of: "      oauth:", with: "      oauht:"))
        try Self.description(provider).write(
            to: misspelt.deletingLastPathComponent().appendingPathComponent("api.yaml"), atomically: true,
            encoding: .utf8)
        let checked = try await CommandRunner.run(["validate", misspelt.path], within: .seconds(60))
        #expect(checked.status == 1)
        #expect(
            checked.stdout.contains("error[RP0811]: API description `api` has no security scheme `oauht`"),
            "\(checked.stdout)")
        #expect(checked.stdout.contains("did you mean `oauth`?"), "\(checked.stdout)")
        #expect(checked.stdout.contains("warning[RP0855]"), "\(checked.stdout)")
    }
}
