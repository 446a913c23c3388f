import Foundation
import ReqPlanHTTP
import ReqPlanSyntax
import ReqPlanTestSupport
import ReqPlanTransport
import Testing

@testable import ReqPlanRuntime

/// Plans with `auth: { oauth2 }` run against django-oauth-toolkit, a real provider, and the resource it
/// protects with its own token check: a client-credentials token shared by a thousand requests (one token
/// request in the provider's log), renewed when it runs out, renewed once after the provider revoked it (its
/// 401 says `invalid_token`), the password grant's refresh token used for renewal, and a refused client
/// named as the step's reason.
@Suite(.timeSensitive) struct OAuthRunTests {
    /// A plan whose requests to the provider's resource take a client-credentials token.
    static func plan(_ provider: DjangoOAuthProvider, steps: String, grant: String? = nil) -> String {
        let grant =
            grant
                ?? """
                token_url: \(provider.tokenURL)
                      client_id: "${{ inputs.client_id }}"
                      client_secret: "${{ inputs.client_secret }}"
                      scope: read
                """
        return """
            reqplan: 1
            inputs:
              client_id: { type: string }
              client_secret: { type: string, secret: true }
            defaults:
              base_url: \(provider.url)
              auth:
                oauth2:
                  \(grant)
            steps:
            \(steps)
            """
    }

    static let inputs: [String: Value] = [
        "client_id": .string(DjangoOAuthProvider.awkwardClient.id),
        "client_secret": .string(DjangoOAuthProvider.awkwardClient.secret),
    ]

    /// Runs `yaml` over `transport` with `tokens` (a run's, or a suite's shared by several runs).
    static func run(
        _ yaml: String, over transport: any Transport, tokens: TokenCache<OAuthGrant>,
        inputs: [String: Value] = inputs
    ) async throws -> RunResult {
        let graph = try makeGraph(yaml)
        var configuration = RunConfiguration(
            files: FileAccess(planDirectory: URL(fileURLWithPath: NSTemporaryDirectory())))
        configuration.tokens = tokens
        let executor = Executor(
            graph: graph, transport: transport, inputs: RunInputs(values: inputs, environment: [:]),
            configuration: configuration)
        return await executor.run()
    }

    /// How many times the provider's log has `line` (`"POST /o/token/ HTTP/1.1" 200`).
    static func count(_ line: String, in provider: DjangoOAuthProvider) -> Int {
        provider.log.components(separatedBy: line).count - 1
    }

    static let tokenGranted = "\"POST /o/token/ HTTP/1.1\" 200"
    static let resourceRefused = "\"GET /api/me HTTP/1.1\" 401"

    @Test(ExternalServers.needed(.oauthProvider))
    func aThousandRequestsShareOneClientCredentialsToken() async throws {
        let provider = try await DjangoOAuthProvider.start(tokenLifetime: 300)
        defer { provider.stop() }
        let yaml = Self.plan(
            provider,
            steps: """
                  me:
                    for_each: \(Array(0..<1000))
                    concurrency: 64
                    request: { url: /api/me }
                    expect: { status: 200, body: { client: "my client:1", user: null } }
                """)
        try await HTTPClientTransport.with(.init()) { transport in
            let result = try await Self.run(yaml, over: transport, tokens: TokenCache())
            let failed = (result.results["me"]?.children ?? []).filter { $0.state != .succeeded }.map {
                "#\($0.itemIndex ?? -1): \(String(describing: $0.reason)) \($0.attempts)"
            }
            #expect(result.results["me"]?.state == .succeeded, "\(failed)")
        }
        #expect(Self.count(Self.tokenGranted, in: provider) == 1)
        #expect(Self.count("\"GET /api/me HTTP/1.1\" 200", in: provider) == 1000)
    }

    @Test(ExternalServers.needed(.oauthProvider))
    func aTokenThatRunsOutIsRenewedBeforeItIsSent() async throws {
        let provider = try await DjangoOAuthProvider.start(tokenLifetime: 3)
        defer { provider.stop() }
        let yaml = Self.plan(provider, steps: "  me: { request: { url: /api/me } }")
        let tokens = TokenCache<OAuthGrant>()
        try await HTTPClientTransport.with(.init()) { transport in
            // Two runs that share their tokens, as a suite's plans do, 3.5 s apart: the first token has run out.
            for pass in 0..<2 {
                if pass == 1 { try await Task.sleep(for: .milliseconds(3500)) }
                let result = try await Self.run(yaml, over: transport, tokens: tokens)
                #expect(
                    result.results["me"]?.state == .succeeded, "\(String(describing: result.results["me"]?.reason))")
            }
        }
        // Renewed before it was sent: never refused.
        #expect(Self.count(Self.tokenGranted, in: provider) == 2)
        #expect(Self.count(Self.resourceRefused, in: provider) == 0)
    }

    @Test(ExternalServers.needed(.oauthProvider))
    func aRevokedTokenIsRefusedOnceThenRenewedAndTheRequestSentAgain() async throws {
        let provider = try await DjangoOAuthProvider.start(tokenLifetime: 300)
        defer { provider.stop() }
        let yaml = Self.plan(provider, steps: "  me: { request: { url: /api/me } }")
        let tokens = TokenCache<OAuthGrant>()
        try await HTTPClientTransport.with(.init()) { transport in
            let first = try await Self.run(yaml, over: transport, tokens: tokens)
            #expect(first.results["me"]?.state == .succeeded)
            // The token the run kept, revoked at the provider's revocation endpoint (RFC 7009).
            let grant = OAuthGrant(
                tokenURL: provider.tokenURL, clientID: DjangoOAuthProvider.awkwardClient.id,
                clientSecret: DjangoOAuthProvider.awkwardClient.secret, kind: .clientCredentials, scopes: ["read"])
            let kept = try await tokens.token(for: grant) { _ in throw OAuthError("not kept") }
            var revocation = try grant.request().request
            revocation.url = try RequestURL(parsing: provider.revocationURL)
            revocation.body = Array(("token=" + URLEncoding.formEncode(kept.value)).utf8)
            #expect(try await transport.send(revocation, timeout: .seconds(30)).status == 200)

            let second = try await Self.run(yaml, over: transport, tokens: tokens)
            #expect(second.results["me"]?.state == .succeeded, "\(String(describing: second.results["me"]?.reason))")
            // One attempt: the request sent again with the new token is not a retry.
            #expect(second.results["me"]?.attempts.count == 1)
        }
        #expect(Self.count(Self.resourceRefused, in: provider) == 1)
        #expect(Self.count(Self.tokenGranted, in: provider) == 2)
    }

    @Test(ExternalServers.needed(.oauthProvider))
    func thePasswordGrantsRefreshTokenRenewsItsToken() async throws {
        let provider = try await DjangoOAuthProvider.start(tokenLifetime: 3)
        defer { provider.stop() }
        let yaml = Self.plan(
            provider, steps: "  me: { request: { url: /api/me }, expect: { body: { user: alice } } }",
            grant: """
                grant: password
                      token_url: \(provider.tokenURL)
                      client_id: "${{ inputs.client_id }}"
                      client_secret: "${{ inputs.client_secret }}"
                      username: alice
                      password: \(DjangoOAuthProvider.user.password)
                      scope: [read]
                """)
        let inputs: [String: Value] = [
            "client_id": .string(DjangoOAuthProvider.passwordClient.id),
            "client_secret": .string(DjangoOAuthProvider.passwordClient.secret),
        ]
        let tokens = TokenCache<OAuthGrant>()
        try await HTTPClientTransport.with(.init()) { transport in
            for pass in 0..<2 {
                if pass == 1 { try await Task.sleep(for: .milliseconds(3500)) }
                let result = try await Self.run(yaml, over: transport, tokens: tokens, inputs: inputs)
                #expect(
                    result.results["me"]?.state == .succeeded, "\(String(describing: result.results["me"]?.reason))")
            }
        }
        // The second token came from the first one's refresh token, not from the password again.
        let requests = try String(
            contentsOf: provider.process.folder.appendingPathComponent("grants.log"), encoding: .utf8)
        #expect(requests.split(separator: "\n") == ["password", "refresh_token"])
    }

    @Test(ExternalServers.needed(.oauthProvider))
    func theTokenEndpointIsFoundByOpenIDConnectDiscovery() async throws {
        let provider = try await DjangoOAuthProvider.start(tokenLifetime: 300)
        defer { provider.stop() }
        let yaml = Self.plan(
            provider, steps: "  me: { request: { url: /api/me } }",
            grant: """
                issuer: \(provider.issuer)
                      client_id: "${{ inputs.client_id }}"
                      client_secret: "${{ inputs.client_secret }}"
                      scope: read
                """)
        try await HTTPClientTransport.with(.init()) { transport in
            let result = try await Self.run(yaml, over: transport, tokens: TokenCache())
            #expect(result.results["me"]?.state == .succeeded, "\(String(describing: result.results["me"]?.reason))")
            // The issuer written with a trailing slash is the same issuer (its document names it without).
            let other = yaml.replacingOccurrences(of: "issuer: \(provider.issuer)", with: "issuer: \(provider.url)/o/")
            let same = try await Self.run(other, over: transport, tokens: TokenCache())
            #expect(same.results["me"]?.state == .succeeded, "\(String(describing: same.results["me"]?.reason))")
        }
        #expect(Self.count("\"GET /o/.well-known/openid-configuration HTTP/1.1\" 200", in: provider) == 2)
        #expect(Self.count(Self.tokenGranted, in: provider) == 2)
    }

    @Test(ExternalServers.needed(.oauthProvider))
    func aRefusedClientFailsTheStepWithTheProvidersError() async throws {
        let provider = try await DjangoOAuthProvider.start(tokenLifetime: 300)
        defer { provider.stop() }
        let yaml = Self.plan(provider, steps: "  me: { request: { url: /api/me } }")
        var inputs = Self.inputs
        inputs["client_secret"] = .string("not-the-secret-at-all")
        try await HTTPClientTransport.with(.init()) { transport in
            let result = try await Self.run(yaml, over: transport, tokens: TokenCache(), inputs: inputs)
            let me = try #require(result.results["me"])
            #expect(me.state == .failed)
            #expect(me.reason?.kind == .authorization)
            #expect(
                me.reason?.message
                    == "no token for `auth`: the token endpoint refused the request: invalid_client, status 401")
            #expect(me.attempts.isEmpty)
        }
        #expect(Self.count("/api/me", in: provider) == 0)
    }

    /// A plan whose requests need a token from an endpoint that never answers (a port that drops connections).
    static func silentEndpointPlan(_ silent: SilentPort, timeout: String?) -> String {
        """
        reqplan: 1
        defaults:
          base_url: http://127.0.0.1:1
          \(timeout.map { "timeout: \($0)" } ?? "")
          auth:
            oauth2: { token_url: "http://127.0.0.1:\(silent.port)/token", client_id: c, client_secret: s3cret-value }
        steps:
          a: { request: { url: /a } }
          b: { request: { url: /b } }
        """
    }

    @Test func aTokenEndpointThatNeverAnswersFailsTheStepsAtTheirTimeout() async throws {
        let silent = try SilentPort()
        defer { silent.close() }
        try await HTTPClientTransport.with(.init()) { transport in
            let result = try await Self.run(
                Self.silentEndpointPlan(silent, timeout: "1s"), over: transport, tokens: TokenCache())
            for step in ["a", "b"] {
                let reason = try #require(result.results[step]?.reason)
                #expect(reason.kind == .authorization)
                #expect(reason.message.hasPrefix("no token for `auth`: the token endpoint could not be reached"))
            }
            #expect(result.duration < .seconds(30))
        }
    }

    @Test func cancellingTheRunEndsAWaitForATokenEndpointThatNeverAnswers() async throws {
        let silent = try SilentPort()
        defer { silent.close() }
        try await HTTPClientTransport.with(.init()) { transport in
            // No step timeout: only cancelling the run (Ctrl-C) can end the wait.
            let yaml = Self.silentEndpointPlan(silent, timeout: nil)
            let run = Task { try await Self.run(yaml, over: transport, tokens: TokenCache()) }
            try await Task.sleep(for: .milliseconds(300))
            let cancelled = ContinuousClock.now
            run.cancel()
            let result = try await run.value
            // At once, not when the transport's own 10-second connect timeout ends the fetch.
            #expect(ContinuousClock.now - cancelled < .seconds(5))
            #expect(result.results["a"]?.state == .cancelled && result.results["b"]?.state == .cancelled)
        }
    }
}
