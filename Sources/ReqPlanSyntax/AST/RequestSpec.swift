/// `request:` — one HTTP request.
public struct RequestSpec: Sendable {
    /// `method:` (default GET).
    public var method: Located<HTTPMethodName>?
    /// `url:` — joined to `base_url` when relative.
    public var url: Template
    /// `query:`.
    public var query: [QueryParameter]
    /// `headers:`.
    public var headers: [Header]
    /// At most one of `json`, `form`, `multipart`, `body`, `body_file`.
    public var body: RequestBody?
    /// `auth:` — credentials sent as the `Authorization` header (replaces `defaults.auth`).
    public var auth: Located<RequestAuth>?
    /// `follow_redirects:` — whether 3xx responses are followed (nil: `defaults`, else the transport's default).
    public var followRedirects: Located<Bool>?
    /// Where `request:` was written.
    public var range: SourceRange
    /// `operation:` (with `path:`) — an operation of a bound API description. The planner fills `method`
    /// and `url` from the description; until then `url` is empty.
    public var operation: OperationReference? = nil
    /// The whole query string, as written (`a=1&b=2`), added after the URL's own query and `query`: an
    /// Arazzo 1.1 parameter `in: querystring`. Not written in plans.
    public var queryString: Template? = nil
    /// API keys sent beside `auth`, where the operation's security requirement asks for several schemes at
    /// once (an application id and a key, a key and a token): the planner fills them from the description's
    /// credentials (grammar.md §6.9). Not written in plans.
    public var additionalKeys: [APIKeyAuth] = []

    /// Creates a request.
    public init(
        method: Located<HTTPMethodName>?, url: Template, query: [QueryParameter], headers: [Header],
        body: RequestBody?, auth: Located<RequestAuth>?, followRedirects: Located<Bool>?, range: SourceRange,
        operation: OperationReference? = nil
    ) {
        self.method = method
        self.url = url
        self.query = query
        self.headers = headers
        self.body = body
        self.auth = auth
        self.followRedirects = followRedirects
        self.range = range
        self.operation = operation
    }

    /// The method, GET when not given.
    public var effectiveMethod: HTTPMethodName { method?.value ?? .GET }

    /// Every template of the request, for name resolution.
    public var expressions: [Expression] {
        var result = url.expressions
        result += query.flatMap(\.value.expressions)
        result += headers.flatMap(\.value.expressions)
        if let body { result += body.expressions }
        result += auth?.value.expressions ?? []
        result += operation?.pathParameters.flatMap(\.value.expressions) ?? []
        return result
    }

    /// The request's own `Authorization` header, if it sets one.
    public var authorizationHeader: Header? {
        headers.first { $0.name.value.lowercased() == "authorization" }
    }
}

/// `auth:` — credentials the request builder turns into an `Authorization` header (or, for an API key, the
/// header, query parameter or cookie the key goes in).
public enum RequestAuth: Sendable, Hashable {
    /// `basic: { username, password }` — `Authorization: Basic base64(username:password)`.
    case basic(username: Template, password: Template)
    /// `bearer: token` — `Authorization: Bearer token`.
    case bearer(Template)
    /// `oauth2: { … }` — `Authorization: Bearer` and a token from an OAuth 2.0 token endpoint, fetched once
    /// per grant and renewed by the run.
    case oauth2(OAuth2Auth)
    /// `api_key: { header | query | cookie: NAME, value }` — the key where the API reads it.
    case apiKey(APIKeyAuth)
    /// `aws_sigv4: { … }` — each request signed with AWS Signature Version 4 as it is sent.
    case awsSigV4(AWSSigV4Auth)
    /// `digest: { username, password }` — HTTP Digest (RFC 7616): the answer to the server's challenge.
    case digest(username: Template, password: Template)

    /// Every template of the credentials.
    public var templates: [Template] {
        switch self {
        case .basic(let username, let password), .digest(let username, let password): [username, password]
        case .bearer(let token): [token]
        case .oauth2(let oauth2): oauth2.templates
        case .apiKey(let key): [key.value]
        case .awsSigV4(let aws): aws.templates
        }
    }

    /// Every expression of the credentials.
    public var expressions: [Expression] { templates.flatMap(\.expressions) }

    /// The expressions of the secret part: the password, the token, the client secret, the refresh token, the key.
    public var secretExpressions: [Expression] {
        switch self {
        case .basic(_, let password): password.expressions
        case .bearer(let token): token.expressions
        case .oauth2(let oauth2):
            [oauth2.clientSecret, oauth2.refreshToken, oauth2.password, oauth2.privateKey].compactMap { $0 }.flatMap(
                \.expressions)
        case .apiKey(let key): key.value.expressions
        case .awsSigV4(let aws): [aws.secretAccessKey, aws.sessionToken].compactMap { $0 }.flatMap(\.expressions)
        case .digest(_, let password): password.expressions
        }
    }

    /// The header it writes, lowercased: `authorization`, an API key's header, or nil (a key in the query
    /// or a cookie). A request that writes this header itself does not take `defaults.auth`.
    public var headerName: String? {
        switch self {
        case .basic, .bearer, .oauth2, .awsSigV4, .digest: "authorization"
        case .apiKey(let key): key.place.value == .header ? key.name.value.lowercased() : nil
        }
    }
}

/// `auth: { oauth2: … }` — an OAuth 2.0 grant (RFC 6749) whose access token each request sends as a bearer
/// token. Every value is a text template that reads no step: a token is shared by every request of the run
/// with the same grant.
public struct OAuth2Auth: Sendable, Hashable {
    /// `grant:` — what the client presents for a token.
    public enum Grant: String, Sendable, Hashable, CaseIterable {
        /// The client's own credentials (machine to machine, RFC 6749 §4.4); the default.
        case clientCredentials = "client_credentials"
        /// A refresh token given as a secret input (§6), as CI runs on behalf of a user.
        case refreshToken = "refresh_token"
        /// A user's name and password (§4.3): legacy, for servers that still take it.
        case password
        /// A user's consent in a browser (§4.1), with PKCE (RFC 7636, S256): the run listens on loopback for the
        /// redirect (RFC 8252 §7.3) and exchanges the code it brings.
        case authorizationCode = "authorization_code"
    }

    /// `client_auth:` — how the client proves who it is to the token endpoint (RFC 6749 §2.3.1, with the
    /// names of OpenID Connect's `token_endpoint_auth_method`).
    public enum ClientAuthentication: String, Sendable, Hashable, CaseIterable {
        /// HTTP Basic with the form-encoded id and secret; the default.
        case basic = "client_secret_basic"
        /// `client_id` and `client_secret` in the form.
        case post = "client_secret_post"
        /// A JWT the client signs with its private key, in the form (RFC 7523 §2.2, OpenID Connect Core §9);
        /// no secret is shared with the server, which holds the public key.
        case privateKeyJWT = "private_key_jwt"
    }

    /// Where the grant is written (the `oauth2` key).
    public var range: SourceRange
    public var grant: Located<Grant>?
    /// `token_url:` — the token endpoint; nil when `issuer` gives it.
    public var tokenURL: Template?
    /// `issuer:` — an OpenID Connect issuer whose discovery document (`/.well-known/openid-configuration`)
    /// names the token endpoint; nil when `token_url` gives it.
    public var issuer: Template?
    public var clientID: Template
    public var clientSecret: Template?
    public var clientAuthentication: Located<ClientAuthentication>?
    /// `scope:`, as a list or one space-separated string; literal names.
    public var scopes: [Located<String>]
    public var audience: Template?
    public var refreshToken: Template?
    public var username: Template?
    public var password: Template?
    /// `private_key:` — the PEM private key that signs the client assertion (`client_auth: private_key_jwt`).
    public var privateKey: Template?
    /// `key_id:` — the `kid` of the assertion's header, naming the key among those the server holds.
    public var keyID: Template?
    /// `authorization_url:` — the authorization endpoint of the `authorization_code` grant; nil when `issuer`'s
    /// discovery document names it.
    public var authorizationURL: Template?
    /// `redirect_port:` — the loopback port the `authorization_code` grant's redirect comes to, for providers
    /// that register an exact redirect URI; nil for one the system picks (RFC 8252 §7.3).
    public var redirectPort: Located<Int>?

    public init(
        range: SourceRange, grant: Located<Grant>?, tokenURL: Template?, issuer: Template? = nil, clientID: Template,
        clientSecret: Template?,
        clientAuthentication: Located<ClientAuthentication>?, scopes: [Located<String>], audience: Template?,
        refreshToken: Template?, username: Template?, password: Template?, privateKey: Template? = nil,
        keyID: Template? = nil, authorizationURL: Template? = nil, redirectPort: Located<Int>? = nil
    ) {
        self.range = range
        self.grant = grant
        self.tokenURL = tokenURL
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clientAuthentication = clientAuthentication
        self.scopes = scopes
        self.audience = audience
        self.refreshToken = refreshToken
        self.username = username
        self.password = password
        self.privateKey = privateKey
        self.keyID = keyID
        self.authorizationURL = authorizationURL
        self.redirectPort = redirectPort
    }

    /// The grant in force (`client_credentials` when not written).
    public var effectiveGrant: Grant { grant?.value ?? .clientCredentials }

    /// Every template it holds.
    public var templates: [Template] {
        [clientID]
            + [tokenURL, issuer, clientSecret, audience, refreshToken, username, password, privateKey, keyID]
            .compactMap { $0 } + [authorizationURL].compactMap { $0 }
    }
}

/// `auth: { aws_sigv4: … }` — AWS Signature Version 4: each request is signed as it is sent (the date and, but
/// for `unsigned_payload`, the body's hash are part of the signature).
public struct AWSSigV4Auth: Sendable, Hashable {
    public var accessKeyID: Template
    public var secretAccessKey: Template
    public var sessionToken: Template?
    public var region: Template
    public var service: Template
    /// `unsigned_payload: true` — `X-Amz-Content-Sha256: UNSIGNED-PAYLOAD`, for bodies streamed or too large to
    /// hash twice (S3 accepts it over https).
    public var unsignedPayload: Located<Bool>?

    public init(
        accessKeyID: Template, secretAccessKey: Template, sessionToken: Template?, region: Template,
        service: Template, unsignedPayload: Located<Bool>?
    ) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.region = region
        self.service = service
        self.unsignedPayload = unsignedPayload
    }

    /// Every template it holds.
    public var templates: [Template] {
        [accessKeyID, secretAccessKey, region, service] + [sessionToken].compactMap { $0 }
    }
}

/// `auth: { api_key: … }` — an API key sent where the API reads it.
public struct APIKeyAuth: Sendable, Hashable {
    /// Where the key goes (OpenAPI's `in` of an `apiKey` scheme).
    public enum Place: String, Sendable, Hashable, CaseIterable {
        case header, query, cookie
    }

    public var place: Located<Place>
    /// The header's, parameter's or cookie's name.
    public var name: Located<String>
    public var value: Template

    public init(place: Located<Place>, name: Located<String>, value: Template) {
        self.place = place
        self.name = name
        self.value = value
    }
}

extension Plan {
    /// Inputs an `auth:` password or token reads (`inputs.NAME`), in `defaults` or any request: their
    /// values are secrets from the start of a run, declared `secret` or not, so a step that shows one
    /// elsewhere (in a URL) before the credential is sent is redacted too.
    public var inputsReadAsCredentials: Set<String> {
        var auths = [defaults.auth].compactMap { $0?.value }
        for step in allSteps { if let auth = step.request?.auth?.value { auths.append(auth) } }
        var names: Set<String> = []
        for expression in auths.flatMap(\.secretExpressions) {
            expression.forEachNode { node in
                if let reference = node.reference, reference.root.value == "inputs",
                    case .member(let name)? = reference.components.first?.value
                {
                    names.insert(name)
                }
            }
        }
        return names
    }
}

/// One header: a name and a templated value.
public struct Header: Sendable, Hashable {
    public var name: Located<String>
    public var value: Template

    /// Creates a header.
    public init(name: Located<String>, value: Template) {
        self.name = name
        self.value = value
    }
}

/// One query parameter; a list value repeats the parameter.
public struct QueryParameter: Sendable, Hashable {
    public var name: Located<String>
    public var value: ValueTemplate

    /// Creates a parameter.
    public init(name: Located<String>, value: ValueTemplate) {
        self.name = name
        self.value = value
    }
}

/// A request body.
public enum RequestBody: Sendable, Hashable {
    /// `json:` — any value, sent as `application/json`.
    case json(ValueTemplate)
    /// `form:` — sent as `application/x-www-form-urlencoded`.
    case form([QueryParameter])
    /// `multipart:` — `multipart/form-data` fields and files.
    case multipart([MultipartPart])
    /// `body:` — raw text, sent as written.
    case text(Template)
    /// `body_file:` — a file's bytes (path relative to the plan).
    case file(Template)

    /// The key it was written with.
    public var keyName: String {
        switch self {
        case .json: "json"
        case .form: "form"
        case .multipart: "multipart"
        case .text: "body"
        case .file: "body_file"
        }
    }

    /// Every template in the body.
    public var expressions: [Expression] {
        switch self {
        case .json(let value): value.expressions
        case .form(let fields): fields.flatMap(\.value.expressions)
        case .multipart(let parts): parts.flatMap(\.expressions)
        case .text(let template), .file(let template): template.expressions
        }
    }
}

/// One part of a multipart body.
public struct MultipartPart: Sendable, Hashable {
    /// The form field name.
    public var name: Located<String>
    /// A text field, or a file.
    public var content: Content
    /// `content_type:` for the part.
    public var contentType: Template?
    /// `filename:` for a file part (default: the file's name).
    public var filename: Template?

    /// A part's content.
    public enum Content: Sendable, Hashable {
        /// A text field: `name: value` or `name: { value: … }`.
        case value(Template)
        /// A file: `name: { file: path }`.
        case file(Template)
    }

    /// Every template in the part.
    public var expressions: [Expression] {
        var result: [Expression]
        switch content {
        case .value(let template), .file(let template): result = template.expressions
        }
        result += contentType?.expressions ?? []
        result += filename?.expressions ?? []
        return result
    }
}
