import Foundation
import ReqPlanTestSupport
import Testing

/// `reqplan run` with the credentials of an `openapi:` entry, against connexion checking them as the
/// description's `securitySchemes` say (its own credential checks: an API key in a header, the query or a
/// cookie, a bearer token, basic credentials): each request bound to an operation sends what its `security`
/// asks for, where the scheme says, and no `auth` is written on a request. Wrong credentials get connexion's 401.
@Suite(.timeSensitive) struct DescriptionCredentialsTests {
    static let fixtures = CommandRunner.packageRoot.appendingPathComponent("Tests/Fixtures/openapi")

    /// `credentials/schemes.yaml` (one operation per kind of credentials), and connexion serving it, checking
    /// each credential where its scheme says.
    static func schemesMock() async throws -> (description: URL, mock: ConnexionMock) {
        let description = fixtures.appendingPathComponent("credentials/schemes.yaml")
        return (description, try await ConnexionMock.start(serving: description, checkingCredentials: true))
    }

    /// Runs `plan` (written beside a copy of `description` named `api.yaml`) and returns the result.
    static func run(_ plan: String, description: URL, _ options: [String] = []) async throws -> CommandRunner.Output {
        let file = try Self.plan(plan, beside: description)
        return try await CommandRunner.run(["run", file.path, "--output", "json"] + options, within: .seconds(60))
    }

    /// `text` written as a plan file (named `name`) in a folder of its own beside a copy of `description`
    /// named `api.yaml`.
    static func plan(_ text: String, name: String = "plan.yaml", beside description: URL) throws -> URL {
        let file = try CommandRunner.temporaryPlan(text, name: name)
        let copy = file.deletingLastPathComponent().appendingPathComponent("api.yaml")
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: description, to: copy)
        return file
    }

    @Test(ExternalServers.needed(.connexion), arguments: [true, false])
    func everyKindOfCredentialsGoesWhereItsSchemeSays(right: Bool) async throws {
        let (description, mock) = try await Self.schemesMock()
        defer { mock.stop() }
        let suffix = right ? "" : "-wrong"
        let plan = """
            reqplan: 1
            openapi:
              api:
                file: api.yaml
                base_url: \(mock.url)/v1
                credentials:
                  headerKey: \(ConnexionMock.validKey)\(suffix)
                  queryKey: \(ConnexionMock.validKey)\(suffix)
                  cookieKey: \(ConnexionMock.validKey)\(suffix)
                  token: \(ConnexionMock.validToken)\(suffix)
                  user: { username: \(ConnexionMock.validUser.name), password: \(ConnexionMock.validUser.password)\(suffix) }
            defaults: { expect: { status: \(right ? 200 : 401) } }
            steps:
              header: { request: { operation: api.byHeader } }
              query: { request: { operation: api.byQuery } }
              cookie: { request: { operation: api.byCookie } }
              token: { request: { operation: api.byToken } }
              user: { request: { operation: api.byUser } }
              keyAndToken: { request: { operation: api.byKeyAndToken } }
              twoKeys: { request: { operation: api.byTwoKeys } }
            """
        let result = try await Self.run(plan, description: description)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        // The credentials are hidden in every output, the key in the query's URL too.
        #expect(!result.stdout.contains(ConnexionMock.validKey) && !result.stderr.contains(ConnexionMock.validKey))
    }

    @Test(ExternalServers.needed(.connexion))
    func smartBearsPetstoreTakesItsAPIKeyFromTheCredentials() async throws {
        let description = Self.fixtures.appendingPathComponent("swagger-petstore/openapi.yaml")
        let mock = try await ConnexionMock.start(serving: description, checkingCredentials: true)
        defer { mock.stop() }
        for (key, status) in [(ConnexionMock.validKey, 200), ("not-the-key", 401)] {
            let plan = """
                reqplan: 1
                openapi:
                  pets:
                    file: api.yaml
                    base_url: \(mock.url)/api/v3
                    credentials: { api_key: \(key) }
                steps:
                  show:
                    request: { operation: pets.getPetById, path: { petId: 1 } }
                    expect: { status: \(status) }
                """
            // connexion's mock answers `photoUrls: [null]`, which the Pet schema refuses: not what this checks.
            let result = try await Self.run(plan, description: description, ["--no-response-schema-check"])
            #expect(result.status == 0, "\(key): \(result.stdout)\(result.stderr)")
        }
    }

    /// The same credentials from the command line: `--credential SCHEME=VALUE` and `SCHEME.FIELD=VALUE`, for a
    /// plan that gives none, and in place of the plan's own (a wrong key in the plan, the right one on the
    /// command line). A misspelt scheme leaves the operation without credentials, said with did-you-mean; a
    /// value with a line break is refused before anything is read.
    @Test(ExternalServers.needed(.connexion))
    func theCommandLineGivesTheCredentials() async throws {
        let (description, mock) = try await Self.schemesMock()
        defer { mock.stop() }
        let plan = """
            reqplan: 1
            openapi:
              api:
                file: api.yaml
                base_url: \(mock.url)/v1
                credentials:
                  headerKey: wrong-key
            defaults: { expect: { status: 200 } }
            steps:
              header: { request: { operation: api.byHeader } }
              token: { request: { operation: api.byToken } }
              user: { request: { operation: api.byUser } }
            """
        let given = [
            "--credential", "headerKey=\(ConnexionMock.validKey)", "--credential", "token=\(ConnexionMock.validToken)",
            "--credential", "user.username=\(ConnexionMock.validUser.name)",
            "--credential", "user.password=\(ConnexionMock.validUser.password)",
        ]
        let result = try await Self.run(plan, description: description, given)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for secret in [ConnexionMock.validKey, ConnexionMock.validToken, ConnexionMock.validUser.password] {
            #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
        }

        // `validate` says what a run would meet: `token` without credentials, and the likely misspelling.
        let file = try Self.plan(plan, beside: description)
        let misspelt = try await CommandRunner.run(
            ["validate", file.path, "--credential", "tokn=\(ConnexionMock.validToken)"] + given.prefix(2),
            within: .seconds(60))
        #expect(misspelt.status == 0, "\(misspelt.stdout)\(misspelt.stderr)")
        #expect(
            (misspelt.stdout + misspelt.stderr).contains(
                "`--credential tokn` names no scheme of the description: did you mean `token`?"),
            "\(misspelt.stderr)")

        let broken = try await Self.run(plan, description: description, ["--credential", "token=a\r\nX-Evil: 1"])
        #expect(broken.status != 0 && broken.status != 1)
        #expect(broken.stderr.contains("--credential token has a control character"), "\(broken.stderr)")
        #expect(!broken.stderr.contains("X-Evil"))
    }

    /// An Arazzo workflow bound to the same description takes `--credential` as a plan does: its steps name
    /// operations of a source description that declares the schemes, and no step writes a header.
    @Test(ExternalServers.needed(.connexion), arguments: [true, false])
    func anArazzoWorkflowTakesTheCommandLinesCredentials(right: Bool) async throws {
        let (description, mock) = try await Self.schemesMock()
        defer { mock.stop() }
        let workflow = """
            arazzo: 1.0.1
            info: { title: Credentials from the command line, version: "1" }
            sourceDescriptions:
              - { name: api, url: api.yaml, type: openapi }
            workflows:
              - workflowId: calls
                steps:
                  - stepId: header
                    operationId: byHeader
                    successCriteria: [{ condition: $statusCode == 200 }]
                  - stepId: token
                    operationId: byToken
                    successCriteria: [{ condition: $statusCode == 200 }]
            """
        let file = try Self.plan(workflow, name: "calls.arazzo.yaml", beside: description)
        let suffix = right ? "" : "-wrong"
        let result = try await CommandRunner.run(
            [
                "run", file.path, "--output", "json", "--server", "api=\(mock.url)/v1",
                "--credential", "headerKey=\(ConnexionMock.validKey)\(suffix)",
                "--credential", "token=\(ConnexionMock.validToken)\(suffix)",
            ], within: .seconds(60))
        #expect(result.status == (right ? 0 : 1), "\(result.stdout)\(result.stderr)")
        #expect(!result.stdout.contains(ConnexionMock.validKey) && !result.stderr.contains(ConnexionMock.validToken))
    }
}
