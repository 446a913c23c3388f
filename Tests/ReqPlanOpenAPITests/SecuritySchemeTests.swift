import Foundation
@testable import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanOpenAPI

/// A description's security schemes and requirements (`DescriptionSecurity`), read from descriptions as
/// their providers publish them (`Tests/Fixtures/openapi/real`); each fact asserted was read in the document.
@Suite("Security schemes and requirements")
struct SecuritySchemeTests {
    static func load(_ document: String, outline: Bool = false) throws -> APIDescription {
        let path = OpenAPIFixtures.folder.appendingPathComponent(document).path
        let boundary = FileBoundary(root: OpenAPIFixtures.folder)
        let loader = OpenAPIDocumentLoader()
        return try
            (outline ? loader.outline(fileAt: path, boundary: boundary) : loader.load(fileAt: path, boundary: boundary))
            .get()
    }

    static func requirement(_ schemes: (String, [String])...) -> APISecurityRequirement {
        APISecurityRequirement(schemes: schemes.map { APISecurityRequirement.Scheme(name: $0.0, scopes: $0.1) })
    }

    @Test("Swagger Petstore (3.0): petstore_auth's implicit flow, api_key in a header, no document default")
    func swaggerPetstore() throws {
        let description = try Self.load("swagger-petstore/openapi.yaml")
        #expect(
            description.securitySchemes == [
                "petstore_auth": APISecurityScheme(
                    name: "petstore_auth",
                    kind: .oauth2(flows: [
                        APIOAuthFlow(
                            kind: .implicit, authorizationURL: "https://petstore3.swagger.io/oauth/authorize",
                            scopes: ["write:pets", "read:pets"])
                    ])),
                "api_key": APISecurityScheme(name: "api_key", kind: .apiKey(name: "api_key", location: .header)),
            ])
        #expect(description.security.isEmpty)
        let byID = { (id: String) in description.operation(id: id).map { description.security(of: $0) } }
        #expect(
            byID("getPetById") == [
                Self.requirement(("api_key", [])), Self.requirement(("petstore_auth", ["write:pets", "read:pets"])),
            ])
        #expect(byID("addPet") == [Self.requirement(("petstore_auth", ["write:pets", "read:pets"]))])
        #expect(byID("getInventory") == [Self.requirement(("api_key", []))])
        // No `security` and no default: nothing asked.
        #expect(description.operation(id: "placeOrder")?.security == nil)
        #expect(byID("placeOrder") == [])
    }

    @Test("Discord (3.1): a bot token in a header, OAuth 2.0 with client credentials, and per-operation alternatives")
    func discord() async throws {
        let description = try await offCooperativePool { try Self.load("real/discord/openapi.json") }
        #expect(Set(description.securitySchemes.keys) == ["BotToken", "OAuth2"])
        let bot = try #require(description.securitySchemes["BotToken"])
        #expect(bot.kind == .apiKey(name: "Authorization", location: .header))
        #expect(bot.description == "Discord bot token")
        guard case .oauth2(let flows)? = description.securitySchemes["OAuth2"]?.kind else {
            Issue.record("OAuth2 is not read as OAuth 2.0")
            return
        }
        #expect(flows.map(\.kind) == [.implicit, .clientCredentials, .authorizationCode])
        let clientCredentials = flows[1]
        #expect(clientCredentials.tokenURL == "https://discord.com/api/oauth2/token")
        #expect(clientCredentials.refreshURL == "https://discord.com/api/oauth2/token")
        #expect(clientCredentials.authorizationURL == nil)
        #expect(clientCredentials.scopes.count == 33)
        #expect(clientCredentials.scopes.first == "activities.invites.write")
        #expect(clientCredentials.scopes.last == "webhook.incoming")
        #expect(flows[0].authorizationURL == "https://discord.com/api/oauth2/authorize")
        #expect(flows[0].tokenURL == nil)
        #expect(flows[0].scopes.count == 32)
        // No document default: every operation says.
        #expect(description.security.isEmpty)
        let me = try #require(description.operation(id: "get_my_user"))
        #expect(me.security == [Self.requirement(("BotToken", [])), Self.requirement(("OAuth2", ["identify"]))])
        // `{}` first: the gateway's URL may be asked for without credentials.
        let gateway = try #require(description.operation(id: "get_gateway"))
        #expect(description.security(of: gateway) == [Self.requirement(), Self.requirement(("BotToken", []))])
        #expect(description.security(of: gateway).first?.isAnonymous == true)
    }

    @Test("Box (3.0): authorization code with token URL and scopes, the default, and operations with security: []")
    func box() async throws {
        let description = try await offCooperativePool { try Self.load("real/box/openapi.json") }
        #expect(
            description.securitySchemes["OAuth2Security"]?.kind
                == .oauth2(flows: [
                    APIOAuthFlow(
                        kind: .authorizationCode, tokenURL: "https://api.box.com/oauth2/token",
                        authorizationURL: "https://account.box.com/api/oauth2/authorize",
                        scopes: [
                            "root_readonly", "root_readwrite", "manage_app_users", "manage_managed_users",
                            "manage_groups", "manage_webhook", "manage_enterprise_properties", "manage_data_retention",
                            "manage_legal_hold",
                        ])
                ]))
        #expect(description.security == [Self.requirement(("OAuth2Security", []))])
        for id in ["get_authorize", "post_oauth2_token", "post_oauth2_revoke", "get_zip_downloads_id_content"] {
            let operation = try #require(description.operation(id: id))
            #expect(operation.security == [], "\(id)")
            #expect(description.security(of: operation).isEmpty, "\(id)")
        }
        let folder = try #require(description.operation(id: "get_folders_id"))
        #expect(folder.security == nil)
        #expect(description.security(of: folder) == [Self.requirement(("OAuth2Security", []))])
    }

    @Test("Asana (3.0, 3 MB, in outline): bearer or OAuth 2.0, and an operation read in full keeps its scopes")
    func asanaInOutline() async throws {
        let description = try await offCooperativePool { try Self.load("real/asana/asana_oas.yaml", outline: true) }
        #expect(description.details != nil)
        let token = try #require(description.securitySchemes["personalAccessToken"])
        #expect(token.kind == .http(scheme: "bearer", bearerFormat: nil))
        #expect(token.description?.hasPrefix("A personal access token allows access to the api") == true)
        guard case .oauth2(let flows)? = description.securitySchemes["oauth2"]?.kind, let flow = flows.first else {
            Issue.record("oauth2 is not read as OAuth 2.0")
            return
        }
        #expect(flows.count == 1)
        #expect(flow.kind == .authorizationCode)
        #expect(flow.authorizationURL == "https://app.asana.com/-/oauth_authorize")
        #expect(flow.tokenURL == "https://app.asana.com/-/oauth_token")
        #expect(flow.refreshURL == "https://app.asana.com/-/oauth_token")
        #expect(flow.scopes.count == 47)
        #expect(Array(flow.scopes.prefix(3)) == ["default", "openid", "email"])
        #expect(
            description.security == [Self.requirement(("personalAccessToken", [])), Self.requirement(("oauth2", []))])
        let expected = [Self.requirement(("personalAccessToken", [])), Self.requirement(("oauth2", ["tasks:read"]))]
        let index = try #require(description.operations.firstIndex { $0.id == "getTask" })
        #expect(description.operations[index].security == expected)
        let details = try #require(description.details)
        let full = try #require(try details.details(of: [index]).get().operations[index])
        #expect(full.parameters.isEmpty == false)
        #expect(full.security == expected)
        #expect(description.security(of: full) == expected)
    }

    @Test("Mistral and OpenAI (3.1): bearer keys by default, admin operations with a key of their own")
    func mistralAndOpenAI() async throws {
        let mistral = try await offCooperativePool { try Self.load("real/mistral/openapi.yaml") }
        #expect(
            mistral.securitySchemes["DashboardUserContextAuth"]?.kind == .apiKey(name: "x-api-key", location: .header))
        #expect(mistral.securitySchemes["AdminApiKey"]?.kind == .http(scheme: "bearer", bearerFormat: nil))
        #expect(mistral.security == [Self.requirement(("ApiKey", []))])
        let identity = try #require(mistral.operation(id: "users_api_get_identity"))
        #expect(mistral.security(of: identity) == [Self.requirement(("DashboardUserContextAuth", []))])
        let users = try #require(mistral.operation(id: "users_api_admin_users_get_users"))
        #expect(mistral.security(of: users) == [Self.requirement(("AdminApiKey", []))])

        let openAI = try await offCooperativePool { try Self.load("real/openai/openapi.yaml", outline: true) }
        #expect(Set(openAI.securitySchemes.keys) == ["ApiKeyAuth", "AdminApiKeyAuth"])
        #expect(openAI.security == [Self.requirement(("ApiKeyAuth", []))])
        let keys = try #require(openAI.operation(id: "admin-api-keys-list"))
        #expect(openAI.security(of: keys) == [Self.requirement(("AdminApiKeyAuth", []))])
    }

    @Test(
        "Redmine (split over files, securitySchemes a $ref to another file): basic, API keys, OAuth 2.0",
        arguments: [false, true])
    func redmine(outline: Bool) throws {
        let description = try Self.load("real/redmine/openapi.yaml", outline: outline)
        #expect(
            description.securitySchemes == [
                "Basic": APISecurityScheme(name: "Basic", kind: .http(scheme: "basic", bearerFormat: nil)),
                "ApiKey": APISecurityScheme(
                    name: "ApiKey", kind: .apiKey(name: "X-Redmine-API-Key", location: .header)),
                "ApiKeyInQuery": APISecurityScheme(name: "ApiKeyInQuery", kind: .apiKey(name: "key", location: .query)),
                "OAuth2": APISecurityScheme(
                    name: "OAuth2",
                    kind: .oauth2(flows: [
                        APIOAuthFlow(
                            kind: .authorizationCode, tokenURL: "/oauth/token", authorizationURL: "/oauth/authorize")
                    ])),
            ])
        #expect(
            description.security == [
                Self.requirement(("Basic", [])), Self.requirement(("ApiKey", [])),
                Self.requirement(("ApiKeyInQuery", [])), Self.requirement(("OAuth2", [])),
            ])
    }

    @Test("Lob (split over 494 files): HTTP basic for every operation")
    func lob() throws {
        let description = try Self.load("real/lob/lob-api-public.yml")
        #expect(
            description.securitySchemes == [
                "basicAuth": APISecurityScheme(name: "basicAuth", kind: .http(scheme: "basic", bearerFormat: nil))
            ])
        #expect(description.security == [Self.requirement(("basicAuth", []))])
        #expect(description.operations.allSatisfy { $0.security == nil })
    }

    @Test("Slack (Swagger 2.0): securityDefinitions' accessCode flow with its token URL, scopes per operation")
    func slack() async throws {
        let description = try await offCooperativePool { try Self.load("real/slack/slack_web_openapi_v2.json") }
        guard case .oauth2(let flows)? = description.securitySchemes["slackAuth"]?.kind, let flow = flows.first else {
            Issue.record("slackAuth is not read as OAuth 2.0")
            return
        }
        #expect(flows.count == 1)
        #expect(flow.kind == .authorizationCode)
        #expect(flow.authorizationURL == "https://slack.com/oauth/authorize")
        #expect(flow.tokenURL == "https://slack.com/api/oauth.access")
        #expect(flow.scopes.count == 67)
        #expect(flow.scopes.first == "admin")
        #expect(flow.scopes.last == "workflow.steps:execute")
        #expect(description.security.isEmpty)
        let post = try #require(description.operation(id: "chat_postMessage"))
        #expect(post.security == [Self.requirement(("slackAuth", ["chat:write:user", "chat:write:bot"]))])
    }

    @Test("Netlify (Swagger 2.0): an implicit flow without scopes by default, one operation with security: []")
    func netlify() throws {
        let description = try Self.load("real/netlify/swagger.yml")
        #expect(
            description.securitySchemes["netlifyAuth"]?.kind
                == .oauth2(flows: [
                    APIOAuthFlow(kind: .implicit, authorizationURL: "https://app.netlify.com/authorize")
                ]))
        #expect(description.security == [Self.requirement(("netlifyAuth", []))])
        let providers = try #require(description.operation(id: "getAIGatewayProviders"))
        #expect(providers.security == [])
        let sites = try #require(description.operation(id: "listSites"))
        #expect(sites.security == nil)
        #expect(description.security(of: sites) == [Self.requirement(("netlifyAuth", []))])
    }

    // MARK: Hostile input

    /// Loads `text` as a description of its own, whole and in outline.
    static func loadText(_ text: String, name: String = "openapi.yaml") throws -> (APIDescription, APIDescription) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("security-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        let boundary = FileBoundary(root: folder)
        let whole = try OpenAPIDocumentLoader().load(fileAt: file.path, boundary: boundary).get()
        let outline = try OpenAPIDocumentLoader().outline(fileAt: file.path, boundary: boundary).get()
        return (whole, outline)
    }

    static let hostile = """
        openapi: 3.1.0
        info: {title: hostile, version: '1'}
        security:
          - missing: []
          - key: [1, {a: b}, [c], null, read, read]
          - 7
        paths:
          /a:
            get:
              operationId: a
              security: [{missing: []}, {ghost: [x]}]
              responses: {'200': {description: ok}}
            post:
              operationId: b
              security: {key: []}
              responses: {'200': {description: ok}}
            put:
              operationId: c
              security: [{oidc: [openid]}, {tls: []}]
              responses: {'200': {description: ok}}
        components:
          securitySchemes:
            key: {type: apiKey, name: X-Key, in: header}
            odd: {type: kerberos}
            nameless: {type: apiKey, in: header}
            nowhere: {type: apiKey, name: k, in: body}
            noScheme: {type: http}
            typeless: {description: nothing}
            list: [1, 2]
            oidc: {type: openIdConnect, openIdConnectUrl: 'https://id.example/.well-known/openid-configuration'}
            tls: {type: mutualTLS, description: client certificate}
            ref: {$ref: '#/components/securitySchemes/key'}
            loop: {$ref: '#/components/securitySchemes/loop'}
            dangling: {$ref: '#/components/securitySchemes/none'}
            flows:
              type: oauth2
              flows:
                clientCredentials: {tokenUrl: /token, scopes: {a: x, 1: y, b: z}}
                magic: {tokenUrl: /magic}
                password: 3
                deviceAuthorization: {tokenUrl: /device/token, scopes: {}}
        """

    @Test("unknown schemes, scopes that are not strings, unknown types: what is valid is kept, the rest dropped")
    func hostileSecurityIsReadAsFarAsItIsValid() throws {
        let (whole, outline) = try Self.loadText(Self.hostile)
        for description in [whole, outline] {
            #expect(Set(description.securitySchemes.keys) == ["key", "oidc", "tls", "ref", "flows"])
            #expect(description.securitySchemes["ref"]?.kind == .apiKey(name: "X-Key", location: .header))
            #expect(
                description.securitySchemes["oidc"]?.kind
                    == .openIDConnect(url: "https://id.example/.well-known/openid-configuration"))
            #expect(description.securitySchemes["tls"]?.kind == .mutualTLS)
            #expect(description.securitySchemes["tls"]?.description == "client certificate")
            #expect(
                description.securitySchemes["flows"]?.kind
                    == .oauth2(flows: [
                        APIOAuthFlow(kind: .clientCredentials, tokenURL: "/token", scopes: ["a", "1", "b"]),
                        APIOAuthFlow(kind: .deviceAuthorization, tokenURL: "/device/token"),
                    ]))
            // The requirement naming a missing scheme can never be met: the other one stays.
            #expect(description.security == [Self.requirement(("key", ["1", "read"]))])
            let byID = Dictionary(
                description.operations.map { ($0.id ?? "", $0) }, uniquingKeysWith: { first, _ in first })
            // Every requirement names a missing scheme: kept as written, not read as `security: []`.
            #expect(byID["a"]?.security == [Self.requirement(("missing", [])), Self.requirement(("ghost", ["x"]))])
            // Not a list: as if not given.
            #expect(byID["b"]?.security == nil)
            #expect(
                byID["c"]?.security == [Self.requirement(("oidc", ["openid"])), Self.requirement(("tls", []))])
        }
        // Operations read in full from the outline carry the same.
        let details = try #require(outline.details)
        let full = try details.details(of: [0, 1, 2]).get()
        #expect((0..<3).map { full.operations[$0]?.security } == whole.operations.map(\.security))
    }

    @Test("a requirement with 100,000 scopes and a flow declaring 100,000 are read in full, in order")
    func hugeScopeListsAreRead() throws {
        let count = 100_000
        let required = (0..<count).map { "s\($0)" }.joined(separator: ", ")
        let declared = (0..<count).map { "s\($0): d" }.joined(separator: ", ")
        let text = """
            openapi: 3.0.3
            info: {title: huge, version: '1'}
            security: [{o: [\(required), s0]}]
            paths: {}
            components:
              securitySchemes:
                o: {type: oauth2, flows: {password: {tokenUrl: /t, scopes: {\(declared)}}}}
            """
        let (whole, outline) = try Self.loadText(text)
        for description in [whole, outline] {
            let scopes = try #require(description.security.first?.schemes.first?.scopes)
            #expect(scopes.count == count)
            #expect(scopes.last == "s\(count - 1)")
            guard case .oauth2(let flows)? = description.securitySchemes["o"]?.kind else {
                Issue.record("o is not read as OAuth 2.0")
                return
            }
            #expect(flows.first?.scopes.count == count)
        }
    }

    @Test("Swagger 2.0: basic, an API key in the query, the password flow; a requirement of a missing scheme")
    func swagger2Definitions() throws {
        let text = """
            swagger: '2.0'
            info: {title: two, version: '1'}
            securityDefinitions:
              basic: {type: basic, description: user and password}
              key: {type: apiKey, name: api_key, in: query}
              password: {type: oauth2, flow: password, tokenUrl: 'https://auth.example/token', scopes: {read: r}}
              app: {type: oauth2, flow: application, tokenUrl: 'https://auth.example/token'}
              strange: {type: saml}
            security: [{basic: []}, {nowhere: []}]
            paths:
              /a:
                get:
                  operationId: a
                  security: [{password: [read, 5, [x]]}, {app: []}]
                  responses: {'200': {description: ok}}
            """
        let (whole, outline) = try Self.loadText(text)
        for description in [whole, outline] {
            #expect(
                description.securitySchemes == [
                    "basic": APISecurityScheme(
                        name: "basic", kind: .http(scheme: "basic", bearerFormat: nil), description: "user and password"
                    ),
                    "key": APISecurityScheme(name: "key", kind: .apiKey(name: "api_key", location: .query)),
                    "password": APISecurityScheme(
                        name: "password",
                        kind: .oauth2(flows: [
                            APIOAuthFlow(kind: .password, tokenURL: "https://auth.example/token", scopes: ["read"])
                        ])),
                    "app": APISecurityScheme(
                        name: "app",
                        kind: .oauth2(flows: [
                            APIOAuthFlow(kind: .clientCredentials, tokenURL: "https://auth.example/token")
                        ])),
                ])
            #expect(description.security == [Self.requirement(("basic", []))])
            #expect(
                description.operation(id: "a")?.security == [
                    Self.requirement(("password", ["read", "5"])), Self.requirement(("app", [])),
                ])
        }
    }

    @Test("a changed security changes the description's identity")
    func identityFollowsSecurity() throws {
        var description = APIDescription(title: "t", operations: [], schemas: APISchemaTable())
        let before = description.identity
        description.securitySchemes["k"] = APISecurityScheme(name: "k", kind: .mutualTLS)
        #expect(description.identity !== before)
        let middle = description.identity
        description.security = [Self.requirement(("k", []))]
        #expect(description.identity !== middle)
    }
}
