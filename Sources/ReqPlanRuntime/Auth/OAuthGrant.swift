import Foundation
import ReqPlanSyntax
import ReqPlanTransport

/// An OAuth 2.0 grant (RFC 6749): what to ask a token endpoint for, how the client proves who it is, and how
/// the endpoint's answer is read. The request is built and the answer read here; sending it is the transport's.
public struct OAuthGrant: Sendable, Hashable {
    /// What the client presents to get a token.
    public enum Kind: Sendable, Hashable {
        /// The client's own credentials (machine to machine, RFC 6749 §4.4).
        case clientCredentials
        /// A refresh token, from an earlier grant or a secret input in CI (§6).
        case refreshToken(String)
        /// A resource owner's user name and password (§4.3; legacy, kept for old servers).
        case password(username: String, password: String)
        /// A user's consent in a browser (§4.1) with PKCE (RFC 7636): the code the redirect brings is exchanged
        /// for the token (`AuthorizationCodeFlow`).
        case authorizationCode(AuthorizationCode)
    }

    /// How the client authenticates to the token endpoint (§2.3.1).
    public enum ClientAuthentication: Sendable, Hashable {
        /// `client_secret_basic`: HTTP Basic with the form-encoded id and secret (the default).
        case basic
        /// `client_secret_post`: `client_id` and `client_secret` in the request body.
        case post
        /// `private_key_jwt`: `client_id` and an assertion signed with the client's key in the body (RFC 7523).
        case privateKeyJWT(ClientAssertion)
    }

    /// The token endpoint; empty when `issuer` names it.
    public var tokenURL: String
    /// An OpenID Connect issuer, whose discovery document names the token endpoint (read when a token is
    /// fetched); nil when `tokenURL` is given.
    public var issuer: String?
    public var clientID: String
    public var clientSecret: String?
    public var kind: Kind
    public var scopes: [String]
    /// The `audience` parameter some servers want (Auth0, Okta); sent only when set.
    public var audience: String?
    public var authentication: ClientAuthentication

    public init(
        tokenURL: String, issuer: String? = nil, clientID: String, clientSecret: String?, kind: Kind,
        scopes: [String] = [], audience: String? = nil, authentication: ClientAuthentication = .basic
    ) {
        self.tokenURL = tokenURL
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.kind = kind
        self.scopes = scopes
        self.audience = audience
        self.authentication = authentication
    }

    /// The token request (a form POST to the token endpoint), and every value in it that is a secret in
    /// every output: the client secret, a refresh token or password, the `Authorization` header, the signed
    /// assertion (`assertion`, for `private_key_jwt`: `ClientAssertion.signed`).
    /// - Throws: why `tokenURL` is not an http(s) URL.
    public func request(assertion: String? = nil) throws(RequestURL.Problem) -> (
        request: PreparedRequest, secrets: [String]
    ) {
        var fields: [(String, String)] = []
        var secrets: [String] = []
        switch kind {
        case .clientCredentials:
            fields.append(("grant_type", "client_credentials"))
        case .refreshToken(let token):
            fields += [("grant_type", "refresh_token"), ("refresh_token", token)]
            secrets.append(token)
        case .password(let username, let password):
            fields += [("grant_type", "password"), ("username", username), ("password", password)]
            secrets.append(password)
        case .authorizationCode(let grant):
            // §4.1.3 and RFC 7636 §4.5; the flow fills in `redirect` before the code is exchanged.
            let redirect = grant.redirect ?? .init(code: "", redirectURI: "", codeVerifier: "")
            fields += [
                ("grant_type", "authorization_code"), ("code", redirect.code), ("redirect_uri", redirect.redirectURI),
                ("code_verifier", redirect.codeVerifier),
            ]
            secrets += [redirect.code, redirect.codeVerifier].filter { !$0.isEmpty }
        }
        if !scopes.isEmpty { fields.append(("scope", scopes.joined(separator: " "))) }
        if let audience { fields.append(("audience", audience)) }
        var headers = [
            HeaderField("Content-Type", "application/x-www-form-urlencoded"), HeaderField("Accept", "application/json"),
        ]
        // A public client (no secret, no key) names itself in the form (§3.2.1, §4.1.3): it has no Basic
        // credentials to send (an empty secret would be a wrong one).
        var isPublic = false
        if clientSecret == nil {
            if case .privateKeyJWT = authentication {} else { isPublic = true }
        }
        let method: ClientAuthentication = isPublic ? .post : authentication
        switch method {
        case .basic:
            // §2.3.1: the id and the secret are each form-encoded first; the Basic credentials are those.
            let pair = URLEncoding.formEncode(clientID) + ":" + URLEncoding.formEncode(clientSecret ?? "")
            let authorization = "Basic " + Data(pair.utf8).base64EncodedString()
            headers.append(HeaderField("Authorization", authorization))
            secrets.append(authorization)
        case .post:
            fields.append(("client_id", clientID))
            if let clientSecret { fields.append(("client_secret", clientSecret)) }
        case .privateKeyJWT:
            fields += [
                ("client_id", clientID), ("client_assertion_type", ClientAssertion.type),
                ("client_assertion", assertion ?? ""),
            ]
            if let assertion { secrets.append(assertion) }
        }
        if let clientSecret { secrets.append(clientSecret) }
        let body = fields.map { URLEncoding.formEncode($0.0) + "=" + URLEncoding.formEncode($0.1) }.joined(
            separator: "&")
        let request = try PreparedRequest(
            method: .POST, url: tokenURL, headers: headers, body: Array(body.utf8), followRedirects: false,
            usesCookies: false)
        return (request, secrets)
    }

    /// The longest lifetime an answer's `expires_in` is taken at: beyond it, a number is read as this (a
    /// server's `expires_in` of any size cannot overflow the clock).
    public static let longestLifetime: Duration = .seconds(10 * 365 * 24 * 3600)

    /// The token in the token endpoint's answer (§5.1), its lifetime counted from `now`; or why there is none:
    /// the endpoint's error (§5.2) with its description, or what in the answer does not fit the RFC.
    public static func token(
        from response: TransportResponse, now: ContinuousClock.Instant
    ) -> Result<TokenCache<OAuthGrant>.Token, OAuthError> {
        let value = try? Value.parseJSON(bytes: response.body)
        guard (200..<300).contains(response.status) else {
            // §5.2: `error`, and perhaps `error_description`, in a JSON object. Any other answer is named by
            // its status only: an error page may echo what was sent.
            if case .string(let code)? = value?["error"] {
                var reason = "the token endpoint refused the request: \(Self.printable(code, limit: 64))"
                if case .string(let description)? = value?["error_description"] {
                    reason += " (\(Self.printable(description, limit: 200)))"
                }
                return .failure(OAuthError(reason + ", status \(response.status)"))
            }
            return .failure(OAuthError("the token endpoint answered status \(response.status), not a token"))
        }
        guard let value, case .object = value else {
            return .failure(OAuthError("the token endpoint's answer is not a JSON object"))
        }
        guard case .string(let accessToken)? = value["access_token"], !accessToken.isEmpty else {
            return .failure(OAuthError("the token endpoint's answer has no `access_token`"))
        }
        // The token goes into a header line: a line break in it would write headers of the server's choosing.
        if let scalar = HeaderLine.forbiddenCharacter(in: accessToken) {
            return .failure(OAuthError(HeaderLine.problem("the `access_token` the token endpoint gave", scalar)))
        }
        // §5.1: `token_type` is required; only bearer tokens (RFC 6750) can be sent as they are. Some servers
        // leave it out; a missing one is read as bearer, as most clients do.
        if case .string(let type)? = value["token_type"], type.lowercased() != "bearer" {
            return .failure(
                OAuthError(
                    "the token endpoint gave a `\(Self.printable(type, limit: 32))` token; only bearer tokens are sent")
            )
        }
        var refreshToken: String?
        if case .string(let refresh)? = value["refresh_token"], !refresh.isEmpty { refreshToken = refresh }
        return .success(
            .init(
                value: accessToken, expiresAt: lifetime(value["expires_in"]).map { now + $0 },
                refreshToken: refreshToken))
    }

    /// `expires_in` as a lifetime: a number of seconds, or a numeric string (some servers quote it); nil when
    /// absent, not a number, or under a second (such a token would be fetched again for every request). At
    /// most `longestLifetime`.
    static func lifetime(_ value: Value?) -> Duration? {
        let seconds: Double?
        switch value {
        case .string(let text)?: seconds = Double(text.trimmingCharacters(in: .whitespaces))
        case let number?: seconds = number.doubleValue
        case nil: seconds = nil
        }
        guard let seconds, seconds.isFinite, seconds >= 1 else { return nil }
        let longest = Double(longestLifetime.components.seconds)
        return seconds >= longest ? longestLifetime : .milliseconds(Int64(seconds * 1000))
    }

    /// `text` cut to `limit` characters, its control characters as `?`: what an error message may quote
    /// of the endpoint's answer.
    static func printable(_ text: String, limit: Int) -> String {
        let cut = String(
            text.unicodeScalars.prefix(limit).map { $0.properties.generalCategory == .control ? "?" : Character($0) })
        return text.unicodeScalars.count > limit ? cut + "…" : cut
    }
}

/// Why no token came from a token endpoint, as a sentence; it quotes nothing of what was sent.
public struct OAuthError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
