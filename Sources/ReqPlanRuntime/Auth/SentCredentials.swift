import ReqPlanSyntax
import ReqPlanTransport

/// Credentials given as a request is sent, not when it is built: an OAuth 2.0 token (fetched, shared and
/// renewed), an AWS Signature Version 4 (over the request as it goes, at that time), an HTTP Digest answer (to
/// the server's challenge).
public enum SentCredentials: Sendable {
    case oauth2(OAuthGrant)
    case awsSigV4(AWSSigV4, unsignedPayload: Bool)
    case digest(DigestAuth)
}

extension RequestBuilder {
    /// The credentials `spec` gets as it is sent (from its own `auth`, else `defaults.auth`), their values
    /// evaluated; nil for credentials written into the request when it is built, or none. Every secret value
    /// (a client secret, a refresh token, a password, a secret key, a session token) goes into `secrets`.
    /// - Throws: an `EvaluationError` when a value cannot be evaluated, or an OAuth 2.0 token endpoint is plain
    ///   `http` to a host that is not this machine's (RP0118: the secret is never sent in the clear).
    public func sentCredentials(for spec: RequestSpec, in context: EvaluationContext, secrets: SecretStore?) throws
        -> SentCredentials?
    {
        func text(_ template: Template?) throws -> String? {
            try template.map { try ExpressionEvaluator.text($0, in: context) }
        }
        func secret(_ template: Template?) throws -> String? {
            let value = try text(template)
            if let value { secrets?.add(value) }
            return value
        }
        switch effectiveAuth(of: spec)?.value {
        case .oauth2(let oauth2)?:
            return .oauth2(try grant(oauth2, in: context, secrets: secrets))
        case .awsSigV4(let aws)?:
            // The key id and the session token go into header lines as they are.
            for (template, name) in [(aws.accessKeyID, "access_key_id"), (aws.sessionToken, "session_token")] {
                guard let template, let value = try text(template) else { continue }
                try RequestBuilder.checkHeaderLine(value, "`\(name)` of `aws_sigv4`", at: template.range)
            }
            let credentials = AWSSigV4.Credentials(
                accessKeyID: try text(aws.accessKeyID) ?? "", secretAccessKey: try secret(aws.secretAccessKey) ?? "",
                sessionToken: try secret(aws.sessionToken))
            let signer = AWSSigV4(
                service: try text(aws.service) ?? "", region: try text(aws.region) ?? "", credentials: credentials)
            return .awsSigV4(signer, unsignedPayload: aws.unsignedPayload?.value ?? false)
        case .digest(let username, let password)?:
            try RequestBuilder.checkHeaderLine(try text(username) ?? "", "`username` of `digest`", at: username.range)
            return .digest(DigestAuth(username: try text(username) ?? "", password: try secret(password) ?? ""))
        case .basic?, .bearer?, .apiKey?, nil:
            return nil
        }
    }

    private func grant(_ oauth2: OAuth2Auth, in context: EvaluationContext, secrets: SecretStore?) throws
        -> OAuthGrant
    {
        func text(_ template: Template?) throws -> String? {
            try template.map { try ExpressionEvaluator.text($0, in: context) }
        }
        var tokenURL = ""
        var issuer: String?
        if let template = oauth2.tokenURL {
            tokenURL = try ExpressionEvaluator.text(template, in: context)
            try Self.checkEndpoint(tokenURL, at: template.range, in: context)
        } else if let template = oauth2.issuer {
            issuer = try ExpressionEvaluator.text(template, in: context)
            try Self.checkEndpoint(issuer ?? "", at: template.range, in: context)
        }
        let kind: OAuthGrant.Kind
        switch oauth2.effectiveGrant {
        case .clientCredentials: kind = .clientCredentials
        case .refreshToken: kind = .refreshToken(try text(oauth2.refreshToken) ?? "")
        case .password:
            kind = .password(username: try text(oauth2.username) ?? "", password: try text(oauth2.password) ?? "")
        case .authorizationCode:
            let url = try text(oauth2.authorizationURL)
            if let url, let template = oauth2.authorizationURL {
                try Self.checkEndpoint(url, at: template.range, in: context, authorization: true)
            }
            kind = .authorizationCode(
                AuthorizationCode(authorizationURL: url, redirectPort: oauth2.redirectPort?.value))
        }
        let authentication: OAuthGrant.ClientAuthentication
        switch oauth2.clientAuthentication?.value {
        case .basic?, nil: authentication = .basic
        case .post?: authentication = .post
        case .privateKeyJWT?:
            authentication = .privateKeyJWT(
                ClientAssertion(privateKey: try text(oauth2.privateKey) ?? "", keyID: try text(oauth2.keyID)))
        }
        let grant = OAuthGrant(
            tokenURL: tokenURL, issuer: issuer, clientID: try ExpressionEvaluator.text(oauth2.clientID, in: context),
            clientSecret: try text(oauth2.clientSecret), kind: kind, scopes: oauth2.scopes.map(\.value),
            audience: try text(oauth2.audience), authentication: authentication)
        for secret in [
            grant.clientSecret, try text(oauth2.refreshToken), try text(oauth2.password), try text(oauth2.privateKey),
        ] {
            if let secret { secrets?.add(secret) }
        }
        return grant
    }

    /// RP0118 at run time: an endpoint (a token endpoint, an issuer) over plain `http` to a host that is not
    /// this machine's, or no http(s) URL at all.
    /// - Parameter authorization: whether it is the authorization endpoint of an `authorization_code` grant,
    ///   where the user's browser is sent (else the token endpoint, or the issuer that names it).
    static func checkEndpoint(
        _ text: String, at range: SourceRange, in context: EvaluationContext, authorization: Bool = false
    ) throws {
        let what = authorization ? "the authorization endpoint" : "the token endpoint"
        switch Result(catching: { () throws(RequestURL.Problem) in try RequestURL(parsing: text) }) {
        case .success(let url) where !url.isHTTPS && !url.isLoopback:
            throw EvaluationError(
                "\(what) `\(context.secretNet.redact(text))` is not over https: "
                    + (authorization
                        ? "the user's sign-in and the code would cross the network in the clear"
                        : "the client's secret is not sent in the clear"),
                at: range, kind: .authorization)
        case .success:
            break
        case .failure:
            throw EvaluationError(
                "\(what) `\(context.secretNet.redact(text))` is not an http(s) URL", at: range, kind: .authorization)
        }
    }
}

extension OAuthGrant {
    /// A token for this grant from its token endpoint, over `transport`. With `previous`'s refresh token (a
    /// token that expired or was refused), renewal asks with it first, as RFC 6749 §6 intends (a provider
    /// that rotates refresh tokens has revoked the one written in the plan by then); for a `client_credentials`
    /// grant, and when the refresh token is refused, it asks as the grant says. Every secret of the exchange
    /// (the client secret, the tokens) goes into `secrets`.
    /// An `authorization_code` grant asks the user first (`authorize`, through `authorization`), when no refresh
    /// token renews it.
    /// - Throws: why no token came, as a sentence; the caller puts it through the run's textual net (a
    ///   transport's message may quote the URL).
    public func fetchToken(
        over transport: any Transport, previous: TokenCache<OAuthGrant>.Token?, timeout: Duration?,
        secrets: SecretStore?, authorization: AuthorizationCodeSettings = .init()
    ) async throws(OAuthError) -> TokenCache<OAuthGrant>.Token {
        var endpoint = self
        if let issuer {
            let discovered = try await Self.discoverEndpoints(of: issuer, over: transport, timeout: timeout)
            endpoint.tokenURL = discovered.token
            if case .authorizationCode(var code) = kind, code.authorizationURL == nil {
                code.authorizationURL = discovered.authorization
                endpoint.kind = .authorizationCode(code)
            }
        }
        var grants = [endpoint]
        if let refresh = previous?.refreshToken, kind != .clientCredentials, kind != .refreshToken(refresh) {
            var renewal = endpoint
            renewal.kind = .refreshToken(refresh)
            grants.insert(renewal, at: 0)
        }
        var failure = OAuthError("no token was asked for")
        for grant in grants {
            var grant = grant
            if case .authorizationCode(var code) = grant.kind, code.redirect == nil {
                guard let url = code.authorizationURL else {
                    throw OAuthError("the issuer's discovery document names no `authorization_endpoint`")
                }
                code.redirect = try await grant.authorize(code, at: url, settings: authorization, secrets: secrets)
                grant.kind = .authorizationCode(code)
            }
            let request: PreparedRequest
            do {
                var assertion: String?
                if case .privateKeyJWT(let key) = grant.authentication {
                    // RFC 7523 §3: the token endpoint is the assertion's audience; each request gets a new one.
                    assertion = try await key.signed(clientID: grant.clientID, audience: grant.tokenURL)
                }
                let (built, sent) = try grant.request(assertion: assertion)
                for secret in sent { secrets?.add(secret) }
                request = built
            } catch let error as OAuthError {
                throw error
            } catch {
                throw OAuthError("the token endpoint `\(grant.tokenURL)` is not an http(s) URL")
            }
            let response: TransportResponse
            do {
                response = try await transport.send(request, timeout: timeout)
            } catch {
                if error.kind == .cancelled { throw OAuthError("cancelled") }
                failure = OAuthError(
                    "the token endpoint could not be reached: \(error.message)")
                continue
            }
            switch Self.token(from: response, now: .now) {
            case .success(let token):
                secrets?.add(token.value)
                if let refresh = token.refreshToken { secrets?.add(refresh) }
                return token
            case .failure(let error):
                failure = error
            }
        }
        throw failure
    }
}

extension OAuthGrant {
    /// The token endpoint an OpenID Connect issuer's discovery document names (OpenID Connect Discovery 1.0
    /// §4): the document at `issuer` + `/.well-known/openid-configuration`, whose `issuer` must be the one asked
    /// (§4.3), and whose `token_endpoint` must be https unless on this machine; and its `authorization_endpoint`,
    /// if any (the `authorization_code` grant checks it when it sends the user there).
    static func discoverEndpoints(
        of issuer: String, over transport: any Transport, timeout: Duration?
    ) async throws(OAuthError) -> (token: String, authorization: String?) {
        let trimmed = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let address = trimmed + "/.well-known/openid-configuration"
        let request: PreparedRequest
        do {
            request = try PreparedRequest(
                method: .GET, url: address, headers: [HeaderField("Accept", "application/json")], body: nil,
                followRedirects: false, usesCookies: false)
        } catch {
            throw OAuthError("the issuer `\(issuer)` is not an http(s) URL")
        }
        let response: TransportResponse
        do {
            response = try await transport.send(request, timeout: timeout)
        } catch {
            if error.kind == .cancelled { throw OAuthError("cancelled") }
            throw OAuthError("the issuer's discovery document could not be read: \(error.message)")
        }
        guard response.status == 200 else {
            throw OAuthError("the issuer's discovery document `\(address)` answered status \(response.status)")
        }
        guard let document = try? Value.parseJSON(bytes: response.body), case .object = document else {
            throw OAuthError("the issuer's discovery document `\(address)` is not a JSON object")
        }
        guard case .string(let named)? = document["issuer"], named == issuer || named == trimmed else {
            throw OAuthError("the discovery document at `\(address)` is not the issuer's: its `issuer` differs")
        }
        guard case .string(let endpoint)? = document["token_endpoint"],
            let url = try? RequestURL(parsing: endpoint)
        else {
            throw OAuthError("the issuer's discovery document names no `token_endpoint`")
        }
        guard url.isHTTPS || url.isLoopback else {
            throw OAuthError("the issuer's token endpoint is not over https: the client's secret is not sent")
        }
        guard case .string(let authorization)? = document["authorization_endpoint"] else { return (endpoint, nil) }
        return (endpoint, authorization)
    }
}
