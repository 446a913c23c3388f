import ReqPlanTransport
import Testing

@testable import ReqPlanRuntime

/// The pure parts of the `authorization_code` grant: PKCE's S256 challenge, the
/// authorization request, and which requests to the loopback listener are the redirect.
@Suite struct AuthorizationCodeTests {
    @Test func theChallengeIsTheVerifiersSHA256InBase64URL() {
        // As Python computes it: base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=").
        #expect(
            AuthorizationCode.challenge(of: "dBjftJeZ4CVP-mJ92K9qDTm2NIoT7-DYKlE-ZADmXs0")
                == "lJ35AjJihzOIi1kloyz4nWzdgYoFbrghsSiVdRfBsfY")
    }

    @Test func verifiersAndStatesAre43Base64URLCharactersAndDiffer() {
        let tokens = (0..<100).map { _ in AuthorizationCode.randomToken() }
        #expect(Set(tokens).count == 100)
        for token in tokens {
            #expect(token.count == 43)
            #expect(token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        }
    }

    @Test func theAuthorizationRequestHasEveryParameterEncoded() {
        let url = AuthorizationCode.authorizationRequest(
            endpoint: "https://login.example.com/authorize?tenant=a", clientID: "my cli",
            redirectURI: "http://127.0.0.1:5000/callback", scopes: ["read", "write"], state: "s", challenge: "c")
        #expect(
            url
                == "https://login.example.com/authorize?tenant=a&response_type=code&client_id=my%20cli"
                + "&redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcallback&scope=read%20write&state=s&code_challenge=c"
                + "&code_challenge_method=S256")
    }

    @Test func onlyTheRedirectWithTheStateEndsTheWait() {
        func callback(_ target: String, method: String = "GET") -> AuthorizationCode.Callback {
            AuthorizationCode.callback(LoopbackRequest(method: method, target: target), state: "the-state")
        }
        #expect(callback("/") == .start)
        #expect(callback("/callback?state=the-state&code=a%2Bb") == .code("a+b"))
        #expect(
            callback("/callback?error=access_denied&error_description=no+thanks&state=the-state")
                == .refused(error: "access_denied", description: "no thanks"))
        for target in [
            "/nope", "/callback", "/callback?code=x", "/callback?state=other&code=x",
            "/callback?state=the-state&state=the-state&code=x", "/callback?state=the-state",
            "/callback?state=the-state&code=", "/callback?state=the-state&code=a&code=b",
            "/callback?state=the-stat&code=x", "/?x=1", "/callback?state=%ZZ&code=x",
        ] {
            guard case .rejected = callback(target) else {
                Issue.record("\(target) is taken for the redirect")
                continue
            }
        }
        guard case .rejected = callback("/callback?state=the-state&code=x", method: "POST") else {
            Issue.record("a POST is taken for the redirect")
            return
        }
    }

    @Test func aPublicClientNamesItselfInTheFormAndSendsTheVerifier() throws {
        let redirect = AuthorizationCode.Redirect(
            code: "the-code-123", redirectURI: "http://127.0.0.1:1234/callback", codeVerifier: "verifier-abc")
        let grant = OAuthGrant(
            tokenURL: "https://login.example.com/token", clientID: "cli", clientSecret: nil,
            kind: .authorizationCode(
                AuthorizationCode(
                    authorizationURL: "https://login.example.com/authorize",
                    redirect: redirect)))
        let (request, secrets) = try grant.request()
        let body = String(decoding: request.body ?? [], as: UTF8.self)
        #expect(
            body
                == "grant_type=authorization_code&code=the-code-123&redirect_uri=http%3A%2F%2F127.0.0.1%3A1234%2Fcallback"
                + "&code_verifier=verifier-abc&client_id=cli")
        #expect(!request.headers.contains { $0.name == "Authorization" })
        #expect(secrets.contains("the-code-123") && secrets.contains("verifier-abc"))

        var confidential = grant
        confidential.clientSecret = "s3cret-value"
        let (withSecret, _) = try confidential.request()
        #expect(withSecret.headers.contains { $0.name == "Authorization" && $0.value.hasPrefix("Basic ") })
    }
}
