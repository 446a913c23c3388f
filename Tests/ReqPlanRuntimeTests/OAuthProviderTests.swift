import Foundation
import ReqPlanHTTP
import ReqPlanRuntime
import ReqPlanTestSupport
import ReqPlanTransport
import Testing

/// `OAuthGrant`'s token requests against django-oauth-toolkit, a real provider: both client authentications
/// with an id and secret that need encoding, a wrong secret refused with the provider's own error, and
/// `TokenCache`'s single flight counted in the provider's own log.
@Suite(.timeSensitive) struct OAuthProviderTests {
    static func token(
        _ grant: OAuthGrant, over transport: HTTPClientTransport
    ) async throws -> TokenCache<OAuthGrant>.Token {
        let (request, _) = try grant.request()
        let response = try await transport.send(request, timeout: .seconds(30))
        return try OAuthGrant.token(from: response, now: .now).get()
    }

    static func grant(
        _ provider: DjangoOAuthProvider, secret: String = DjangoOAuthProvider.awkwardClient.secret,
        authentication: OAuthGrant.ClientAuthentication
    ) -> OAuthGrant {
        OAuthGrant(
            tokenURL: provider.tokenURL, clientID: DjangoOAuthProvider.awkwardClient.id, clientSecret: secret,
            kind: .clientCredentials, scopes: ["read"], authentication: authentication)
    }

    /// How many token requests the provider answered, from its log.
    static func tokenRequests(_ provider: DjangoOAuthProvider) -> Int {
        provider.log.components(separatedBy: "\"POST /o/token/ HTTP/1.1\" 200").count - 1
    }

    @Test(ExternalServers.needed(.oauthProvider))
    func bothClientAuthenticationsGetATokenAndAWrongSecretIsRefusedWithTheProvidersError() async throws {
        let provider = try await DjangoOAuthProvider.start(tokenLifetime: 300)
        defer { provider.stop() }
        try await HTTPClientTransport.with(.init()) { transport in
            for authentication in [OAuthGrant.ClientAuthentication.basic, .post] {
                let before = ContinuousClock.now
                let token = try await Self.token(Self.grant(provider, authentication: authentication), over: transport)
                #expect(token.value.count >= 20, "\(authentication)")
                let lifetime = try #require(token.expiresAt) - before
                #expect(lifetime > .seconds(290) && lifetime < .seconds(310), "\(authentication): \(lifetime)")
            }
            await #expect {
                try await Self.token(Self.grant(provider, secret: "wrong", authentication: .basic), over: transport)
            } throws: { error in
                (error as? OAuthError)?.description
                    == "the token endpoint refused the request: invalid_client, status 401"
            }
        }
    }

    @Test(ExternalServers.needed(.oauthProvider))
    func twoHundredStepsAskingAtOnceCauseOneTokenRequest() async throws {
        let provider = try await DjangoOAuthProvider.start(tokenLifetime: 300)
        defer { provider.stop() }
        let grant = Self.grant(provider, authentication: .basic)
        let cache = TokenCache<OAuthGrant>()
        try await HTTPClientTransport.with(.init()) { transport in
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<200 {
                    group.addTask {
                        try await cache.token(for: grant) { _ in try await Self.token(grant, over: transport) }.value
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1)
        }
        #expect(Self.tokenRequests(provider) == 1)
    }
}
