import Foundation
import ReqPlanTestSupport
import Testing

/// `reqplan run` with the credentials of an `openapi:` entry, against connexion checking them as the
/// description's `securitySchemes` say (its own credential checks: an API key in a header, the query or a
/// cookie, a bearer token, basic credentials): each request bound to an operation sends what its `security`
/// asks for, where the scheme says, and no `auth` is written on a request. Wrong credentials get connexion's 401.
@Suite(.timeSensitive) struct DescriptionCredentialsTests {
    static let fixtures = CommandRunner.packageRoot.appendingPathComponent("Tests/Fixtures/openapi")

    /// Runs `plan` (written beside a copy of `description` named `api.yaml`) and returns the result.
    static func run(_ plan: String, description: URL, _ options: [String] = []) async throws -> CommandRunner.Output {
        let file = try CommandRunner.temporaryPlan(plan)
        let copy = file.deletingLastPathComponent().appendingPathComponent("api.yaml")
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: description, to: copy)
        return try await CommandRunner.run(["run", file.path, "--output", "json"] + options, within: .seconds(60))
    }

    @Test(ExternalServers.needed(.connexion), arguments: [true, false])
    func everyKindOfCredentialsGoesWhereItsSchemeSays(right: Bool) async throws {
        let description = Self.fixtures.appendingPathComponent("credentials/schemes.yaml")
        let mock = try await ConnexionMock.start(serving: description, checkingCredentials: true)
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
}
