import Foundation
import ReqPlanRuntime
import ReqPlanTransport
import Testing

/// The token request as RFC 6749 writes it, and the reading of any answer a token endpoint may give: the RFC's,
/// the common variants (a quoted `expires_in`, no `token_type`), and hostile ones (numbers at their limits,
/// control characters, an HTML error page), none of which may crash or leak into a message.
@Suite struct OAuthGrantTests {
    func body(_ request: PreparedRequest) -> String { String(decoding: request.body ?? [], as: UTF8.self) }

    @Test func clientSecretBasicFormEncodesTheIdAndSecretBeforeBase64() throws {
        // §2.3.1: "my client:1" and "s3cr%t é" are form-encoded, then joined by `:`, then base64.
        let grant = OAuthGrant(
            tokenURL: "https://auth.example/token", clientID: "my client:1", clientSecret: "s3cr%t é",
            kind: .clientCredentials, scopes: ["read", "write"])
        let (request, secrets) = try grant.request()
        let expected = "Basic " + Data("my+client%3A1:s3cr%25t+%C3%A9".utf8).base64EncodedString()
        #expect(request.method == .POST)
        #expect(request.header("Authorization") == expected)
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(body(request) == "grant_type=client_credentials&scope=read+write")
        #expect(request.followRedirects == false && !request.usesCookies)
        #expect(Set(secrets) == [expected, "s3cr%t é"])
    }

    @Test func clientSecretPostPutsTheCredentialsInTheBody() throws {
        let grant = OAuthGrant(
            tokenURL: "http://127.0.0.1:8000/o/token/", clientID: "cli", clientSecret: "sec&ret",
            kind: .refreshToken("rt/1+2"), audience: "https://api.example", authentication: .post)
        let (request, secrets) = try grant.request()
        #expect(request.header("Authorization") == nil)
        #expect(
            body(request)
                == "grant_type=refresh_token&refresh_token=rt%2F1%2B2&audience=https%3A%2F%2Fapi.example"
                + "&client_id=cli&client_secret=sec%26ret")
        #expect(Set(secrets) == ["rt/1+2", "sec&ret"])
    }

    /// §3.2.1: a public client (no secret) names itself in the form, whatever `client_auth` says: Basic with an
    /// empty secret would be a wrong secret, which servers refuse.
    @Test func aClientWithoutASecretNamesItselfInTheForm() throws {
        let grant = OAuthGrant(
            tokenURL: "https://auth.example/token", clientID: "cli", clientSecret: nil, kind: .refreshToken("rt"),
            authentication: .basic)
        let (request, _) = try grant.request()
        #expect(request.header("Authorization") == nil)
        #expect(body(request) == "grant_type=refresh_token&refresh_token=rt&client_id=cli")
    }

    @Test func aTokenURLThatIsNotHTTPIsRefused() {
        let grant = OAuthGrant(tokenURL: "ftp://auth/token", clientID: "c", clientSecret: nil, kind: .clientCredentials)
        #expect(throws: RequestURL.Problem.notHTTP) { try grant.request() }
    }

    func answer(_ status: Int, _ text: String) -> Result<TokenCache<OAuthGrant>.Token, OAuthError> {
        OAuthGrant.token(
            from: TransportResponse(status: status, headers: [], body: Array(text.utf8)), now: Self.now)
    }

    static let now = ContinuousClock.now

    @Test(arguments: [
        (#"{"access_token":"a","token_type":"Bearer","expires_in":3600}"#, Duration.seconds(3600)),
        (#"{"access_token":"a","token_type":"bearer","expires_in":"120"}"#, .seconds(120)),  // quoted
        (#"{"access_token":"a","expires_in":1.5}"#, .milliseconds(1500)),  // no token_type: bearer
        (#"{"access_token":"a","expires_in":1e300}"#, OAuthGrant.longestLifetime),
        (#"{"access_token":"a","expires_in":99999999999999999999999999}"#, OAuthGrant.longestLifetime),
        (#"{"access_token":"a","expires_in":"9223372036854775808"}"#, OAuthGrant.longestLifetime),
    ])
    func aTokenAndItsLifetimeAreRead(text: String, lifetime: Duration) throws {
        let token = try answer(200, text).get()
        #expect(token.value == "a")
        #expect(token.expiresAt == Self.now + lifetime)
    }

    @Test(arguments: [
        #"{"access_token":"a","expires_in":0}"#, #"{"access_token":"a","expires_in":-5}"#,
        #"{"access_token":"a","expires_in":"soon"}"#, #"{"access_token":"a","expires_in":"nan"}"#,
        #"{"access_token":"a","expires_in":null}"#, #"{"access_token":"a"}"#,
    ])
    func aLifetimeThatIsNotAPositiveNumberIsUnknown(text: String) throws {
        #expect(try answer(200, text).get().expiresAt == nil)
    }

    @Test func aRefreshTokenIsKept() throws {
        let token = try answer(200, #"{"access_token":"a","token_type":"Bearer","refresh_token":"r"}"#).get()
        #expect(token.refreshToken == "r")
    }

    @Test(arguments: [
        (200, #"{"token_type":"Bearer"}"#, "the token endpoint's answer has no `access_token`"),
        (200, #"{"access_token":"","token_type":"Bearer"}"#, "the token endpoint's answer has no `access_token`"),
        (
            200, #"{"access_token":"a","token_type":"mac"}"#,
            "the token endpoint gave a `mac` token; only bearer tokens are sent"
        ),
        (200, "<html>login</html>", "the token endpoint's answer is not a JSON object"),
        (200, "[1]", "the token endpoint's answer is not a JSON object"),
        (
            401, #"{"error":"invalid_client","error_description":"Client authentication failed."}"#,
            "the token endpoint refused the request: invalid_client (Client authentication failed.), status 401"
        ),
        (
            400, "{\"error\":\"invalid_grant\",\"error_description\":\"bad\\u001b[2J\\r\\nX: 1\"}",
            "the token endpoint refused the request: invalid_grant (bad?[2J??X: 1), status 400"
        ),
        (500, "<html>client_secret=hunter2</html>", "the token endpoint answered status 500, not a token"),
        (
            // A token with a line break would write a header of the server's choosing.
            200, #"{"access_token":"abc\r\nX-Injected: 1","token_type":"Bearer"}"#,
            "the `access_token` the token endpoint gave contains a control character (U+000D carriage return), "
                + "which cannot be sent in a header line"
        ),
    ])
    func anAnswerWithoutATokenSaysWhy(status: Int, text: String, reason: String) {
        guard case .failure(let error) = answer(status, text) else {
            Issue.record("read a token from \(text)")
            return
        }
        #expect(error.description == reason)
    }

    @Test func aLongErrorDescriptionIsCut() {
        let long = String(repeating: "x", count: 5000)
        guard case .failure(let error) = answer(400, #"{"error":"invalid_request","error_description":"\#(long)"}"#)
        else {
            Issue.record("read a token")
            return
        }
        #expect(error.description.count < 300)
        #expect(error.description.contains("…"))
    }
}
