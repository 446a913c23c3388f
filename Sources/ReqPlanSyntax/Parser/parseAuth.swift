extension PlanReader {
    static let authKeys = ["basic", "bearer", "oauth2", "api_key", "aws_sigv4", "digest"]
    static let basicAuthKeys = ["username", "password"]
    static let oauth2Keys = [
        "grant", "token_url", "issuer", "client_id", "client_secret", "client_auth", "scope", "audience",
        "refresh_token",
        "username", "password", "private_key", "key_id",
        "authorization_url", "redirect_port",
    ]
    static let apiKeyKeys = ["header", "query", "cookie", "value"]
    static let awsSigV4Keys = [
        "access_key_id", "secret_access_key", "session_token", "region", "service", "unsigned_payload",
    ]

    /// `auth:` — exactly one of `basic: { username, password }`, `bearer: TOKEN`, `oauth2: { … }` and
    /// `api_key: { header | query | cookie: NAME, value }`.
    /// - Parameters:
    ///   - node: the value of the `auth` key.
    ///   - key: the `auth` key, where the credentials are located for notes.
    mutating func readAuth(_ node: YAMLNode, _ what: String, key: Located<String>) -> Located<RequestAuth>? {
        guard let fields = mapping(node, what) else { return nil }
        checkKeys(fields, allowed: PlanReader.authKeys, in: what)
        let given = fields.entries.map(\.key).filter { PlanReader.authKeys.contains($0.value) }
        guard let kind = given.first else {
            // A misspelt kind is reported as an unknown key already.
            let misspelt = fields.entries.contains {
                Suggestion.closest(to: $0.key.value, in: PlanReader.authKeys) != nil
            }
            if !misspelt {
                diagnostics.error(
                    .missingKey,
                    "\(what) has none of " + PlanReader.authKeys.map { "`\($0)`" }.joined(separator: ", "),
                    at: key.range,
                    hint: "write `auth: { bearer: TOKEN }`, `auth: { basic: { username: …, password: … } }`, "
                        + "`auth: { oauth2: { token_url: …, client_id: …, client_secret: … } }` or "
                        + "`auth: { api_key: { header: NAME, value: … } }`")
            }
            return nil
        }
        if given.count > 1 {
            diagnostics.error(
                .conflictingKeys, "\(what) has both `\(kind.value)` and `\(given[1].value)`", at: given[1].range,
                notes: [.init("`\(kind.value)` is given here", at: kind.range)],
                hint: "a request sends one kind of credentials: keep `\(kind.value)` or `\(given[1].value)`")
            return nil
        }
        guard let value = fields.value(kind.value) else { return nil }
        switch kind.value {
        case "basic", "digest":
            guard let (username, password) = readUserAndPassword(value, what, kind: kind) else { return nil }
            return Located(
                kind.value == "basic"
                    ? .basic(username: username, password: password) : .digest(username: username, password: password),
                at: key.range)
        case "aws_sigv4": return readAWSSigV4(value, what, kind: kind).map { Located(.awsSigV4($0), at: key.range) }
        case "bearer":
            guard let token = template(value, "`bearer` of \(what)") else { return nil }
            checkHeaderLine(token, "the `bearer` token of \(what)")
            return Located(.bearer(token), at: key.range)
        case "oauth2": return readOAuth2(value, what, kind: kind).map { Located(.oauth2($0), at: key.range) }
        default: return readAPIKey(value, what, kind: kind).map { Located(.apiKey($0), at: key.range) }
        }
    }

    /// `{ username, password }` of `basic` or `digest`.
    private mutating func readUserAndPassword(_ node: YAMLNode, _ what: String, kind: Located<String>) -> (
        Template, Template
    )? {
        let place = "`\(kind.value)` of \(what)"
        guard let fields = mapping(node, place) else { return nil }
        checkKeys(fields, allowed: PlanReader.basicAuthKeys, in: place)
        var parts: [Template] = []
        for name in PlanReader.basicAuthKeys {
            guard let valueNode = fields.value(name) else {
                diagnostics.error(
                    .missingKey, "\(place) has no `\(name)`", at: kind.range,
                    hint: "\(kind.value) credentials are `{ username: …, password: … }` (an empty password is `\"\"`)")
                continue
            }
            if let template = template(valueNode, "`\(name)` of `\(kind.value)`") { parts.append(template) }
        }
        guard parts.count == 2 else { return nil }
        return (parts[0], parts[1])
    }

    /// `aws_sigv4: { access_key_id, secret_access_key, session_token, region, service, unsigned_payload }`.
    private mutating func readAWSSigV4(_ node: YAMLNode, _ what: String, kind: Located<String>) -> AWSSigV4Auth? {
        let place = "`aws_sigv4` of \(what)"
        guard let fields = mapping(node, place) else { return nil }
        checkKeys(fields, allowed: PlanReader.awsSigV4Keys, in: place)
        for name in ["access_key_id", "secret_access_key", "region", "service"] where fields.value(name) == nil {
            diagnostics.error(
                .missingKey, "\(place) has no `\(name)`", at: kind.range,
                hint: "a signature needs `access_key_id`, `secret_access_key`, `region` and `service` (`s3`, "
                    + "`execute-api`, …)")
        }
        func value(_ name: String) -> Template? {
            fields.value(name).flatMap { template($0, "`\(name)` of \(place)") }
        }
        let unsigned = fields.value("unsigned_payload").flatMap { bool($0, "`unsigned_payload` of \(place)") }
        // What the plan gives is kept even with a key missing (an empty text in its place), so that the inputs
        // it reads are not reported unused as well; a plan with errors does not run.
        let none = Template(parts: [.text("")], range: kind.range)
        let key = value("access_key_id") ?? none
        let secret = value("secret_access_key") ?? none
        let region = value("region") ?? none
        let service = value("service") ?? none
        checkHeaderLine(key, "`access_key_id` of \(place)")
        let token = value("session_token")
        if let token { checkHeaderLine(token, "`session_token` of \(place)") }
        return AWSSigV4Auth(
            accessKeyID: key, secretAccessKey: secret, sessionToken: token, region: region, service: service,
            unsignedPayload: unsigned)
    }

    /// `oauth2: { grant, token_url, client_id, client_secret, client_auth, scope, audience, refresh_token,
    /// username, password }`: the keys its grant needs are required, the ones it cannot use are refused.
    private mutating func readOAuth2(_ node: YAMLNode, _ what: String, kind: Located<String>) -> OAuth2Auth? {
        let place = "`oauth2` of \(what)"
        guard let fields = mapping(node, place) else { return nil }
        checkKeys(fields, allowed: PlanReader.oauth2Keys, in: place)
        let grant = fields.value("grant").flatMap { choice($0, "`grant` of \(place)", OAuth2Auth.Grant.self) }
        let effective = grant?.value ?? .clientCredentials
        func value(_ name: String) -> Template? {
            fields.value(name).flatMap { template($0, "`\(name)` of \(place)") }
        }
        // What each grant needs, beside `token_url` and `client_id`, and what it has no use for.
        var needed: [String]
        let unused: [String]
        switch effective {
        case .clientCredentials: (needed, unused) = (["client_secret"], ["refresh_token", "username", "password"])
        case .refreshToken: (needed, unused) = (["refresh_token"], ["username", "password"])
        case .password: (needed, unused) = (["username", "password"], ["refresh_token"])
        case .authorizationCode: (needed, unused) = ([], ["refresh_token", "username", "password"])
        }
        let clientAuthentication = fields.value("client_auth").flatMap {
            choice($0, "`client_auth` of \(place)", OAuth2Auth.ClientAuthentication.self)
        }
        // `private_key_jwt` proves the client with a signed assertion: a private key, and no shared secret.
        let signs = clientAuthentication?.value == .privateKeyJWT
        if signs { needed = needed.filter { $0 != "client_secret" } + ["private_key"] }
        for name in signs ? ["client_secret"] : ["private_key", "key_id"] {
            guard let key = fields.key(name) else { continue }
            diagnostics.error(
                .conflictingKeys,
                "\(place) has `\(name)`, which "
                    + (signs ? "`client_auth: private_key_jwt` does not send" : "only `private_key_jwt` uses"),
                at: key.range,
                notes: clientAuthentication.map { [.init("`client_auth` is given here", at: $0.range)] } ?? [],
                hint: signs
                    ? "the client proves itself with the assertion `private_key` signs; remove `client_secret`"
                    : "write `client_auth: private_key_jwt` to sign the client's assertion with it, or remove `\(name)`"
            )
        }
        // What the plan gives is kept even when a key is missing or refused, so that the inputs it reads are
        // not reported unused as well; a plan with errors does not run.
        switch (fields.key("token_url"), fields.key("issuer")) {
        case (let url?, let issuer?):
            let (first, second) = url.range.start < issuer.range.start ? (url, issuer) : (issuer, url)
            diagnostics.error(
                .conflictingKeys, "\(place) has both `token_url` and `issuer`", at: second.range,
                notes: [.init("`\(first.value)` is given here", at: first.range)],
                hint: "keep `token_url`, or `issuer` to read the token endpoint from its discovery document")
        case (nil, nil):
            diagnostics.error(
                .missingKey, "\(place) has neither `token_url` nor `issuer`", at: kind.range,
                hint: "give the token endpoint (`token_url: https://…/oauth/token`) or an OpenID Connect issuer "
                    + "(`issuer: https://login.example.com`)")
        default:
            break
        }
        for name in ["client_id"] + needed where fields.value(name) == nil {
            diagnostics.error(
                .missingKey, "\(place) has no `\(name)`", at: kind.range,
                hint: name == "private_key"
                    ? "`client_auth: private_key_jwt` signs the client's assertion with `private_key`, a PEM private key"
                    : "the `\(effective.rawValue)` grant needs `\(name)`")
        }
        for name in unused + (effective == .authorizationCode ? [] : PlanReader.authorizationCodeKeys) {
            guard let key = fields.key(name) else { continue }
            diagnostics.error(
                .conflictingKeys, "\(place) has `\(name)`, which the `\(effective.rawValue)` grant does not send",
                at: key.range, notes: grant.map { [.init("the grant is given here", at: $0.range)] } ?? [],
                hint: grant == nil
                    ? "without `grant:` the grant is `client_credentials`; write the grant this `\(name)` is for"
                    : "remove `\(name)`, or write the grant it is for")
        }
        let scopes = fields.value("scope").map { readScopes($0, "`scope` of \(place)") } ?? []
        let tokenURL = value("token_url")
        let issuer = value("issuer")
        let authorizationURL = value("authorization_url")
        let redirectPort = fields.value("redirect_port").flatMap {
            integer($0, "`redirect_port` of \(place)", in: 1...65535)
        }
        if effective == .authorizationCode { checkAuthorizationEndpoint(fields, place: place, kind: kind) }
        guard tokenURL != nil || issuer != nil, let clientID = value("client_id") else { return nil }
        let auth = OAuth2Auth(
            range: kind.range, grant: grant, tokenURL: tokenURL, issuer: issuer, clientID: clientID,
            clientSecret: value("client_secret"), clientAuthentication: clientAuthentication, scopes: scopes,
            audience: value("audience"), refreshToken: value("refresh_token"), username: value("username"),
            password: value("password"), privateKey: value("private_key"), keyID: value("key_id"),
            authorizationURL: authorizationURL, redirectPort: redirectPort)
        // The id and secret go into a Basic header (`client_secret_basic`); the rest into a form.
        checkHeaderLine(clientID, "`client_id` of \(place)")
        for endpoint in [tokenURL, issuer].compactMap({ $0 }) { checkTokenEndpoint(endpoint) }
        if let authorizationURL { checkAuthorizationEndpoint(authorizationURL) }
        return auth
    }

    /// The keys only the `authorization_code` grant reads: RP0104 on any other.
    static let authorizationCodeKeys = ["authorization_url", "redirect_port"]

    /// RP0103 for an `authorization_code` grant with `token_url` and no `authorization_url` (with `issuer`, the
    /// discovery document names the authorization endpoint).
    private mutating func checkAuthorizationEndpoint(_ fields: MappingEntries, place: String, kind: Located<String>) {
        guard fields.key("authorization_url") == nil, fields.key("issuer") == nil else { return }
        diagnostics.error(
            .missingKey, "\(place) has no `authorization_url`", at: kind.range,
            hint: "the `authorization_code` grant sends the user's browser to the authorization endpoint: give "
                + "`authorization_url: https://…/authorize`, or `issuer` to read it from the discovery document")
    }

    /// RP0118 for a literal `authorization_url` over plain `http` to a host that is not this machine's: the
    /// user's sign-in and the authorization code would cross the network in the clear.
    private mutating func checkAuthorizationEndpoint(_ url: Template) {
        guard case .text(let text)? = url.parts.first, url.parts.count == 1,
            let host = InsecureEndpoint.plainHTTPHost(text), !InsecureEndpoint.isLoopbackName(host)
        else { return }
        diagnostics.error(
            .insecureTokenEndpoint, "the authorization endpoint `\(text)` is not over https", at: url.range,
            hint: "the user's sign-in and the authorization code would cross the network in the clear: use "
                + "`https://` (plain `http` is allowed on loopback only, for tests)")
    }

    /// RP0118 for a literal `token_url` over plain `http` to a host that is not this machine's (what an
    /// expression gives is checked when the run builds the token request).
    private mutating func checkTokenEndpoint(_ url: Template) {
        guard case .text(let text)? = url.parts.first, url.parts.count == 1,
            let host = InsecureEndpoint.plainHTTPHost(text), !InsecureEndpoint.isLoopbackName(host)
        else { return }
        diagnostics.error(
            .insecureTokenEndpoint, "the token endpoint `\(text)` is not over https", at: url.range,
            hint: "the client's secret and its tokens would cross the network in the clear: use `https://` "
                + "(plain `http` is allowed on loopback only, for tests)")
    }

    /// `scope:` — a list of names, or one string of names separated by spaces (RFC 6749 §3.3).
    private mutating func readScopes(_ node: YAMLNode, _ what: String) -> [Located<String>] {
        if case .sequence = node {
            return (sequence(node, what) ?? []).compactMap { string($0, "a scope in \(what)") }.filter {
                checkScope($0)
            }
        }
        guard let text = string(node, what) else { return [] }
        let names = text.value.split(separator: " ").map { Located(String($0), at: text.range) }
        return names.filter { checkScope($0) }
    }

    /// RFC 6749 §3.3: a scope is printable ASCII other than a space, `"` and `\`.
    private mutating func checkScope(_ scope: Located<String>) -> Bool {
        let valid =
            !scope.value.isEmpty
            && scope.value.unicodeScalars.allSatisfy {
                $0.value == 0x21 || (0x23...0x5B).contains($0.value) || (0x5D...0x7E).contains($0.value)
            }
        if !valid {
            diagnostics.error(
                .invalidValue, "invalid scope `\(scope.value)`", at: scope.range,
                hint: "a scope is printable ASCII without spaces, `\"` or `\\` (RFC 6749 §3.3); "
                    + "give several as a list or separated by spaces")
        }
        return valid
    }

    /// `api_key: { header | query | cookie: NAME, value }`.
    private mutating func readAPIKey(_ node: YAMLNode, _ what: String, kind: Located<String>) -> APIKeyAuth? {
        let place = "`api_key` of \(what)"
        guard let fields = mapping(node, place) else { return nil }
        checkKeys(fields, allowed: PlanReader.apiKeyKeys, in: place)
        let places = fields.entries.map(\.key).filter { APIKeyAuth.Place(rawValue: $0.value) != nil }
        guard let first = places.first else {
            diagnostics.error(
                .missingKey, "\(place) has none of `header`, `query` and `cookie`", at: kind.range,
                hint: "say where the key goes: `api_key: { header: X-API-Key, value: … }`")
            return nil
        }
        if places.count > 1 {
            diagnostics.error(
                .conflictingKeys, "\(place) has both `\(first.value)` and `\(places[1].value)`", at: places[1].range,
                notes: [.init("`\(first.value)` is given here", at: first.range)],
                hint: "an API key goes in one place: keep `header`, `query` or `cookie`")
            return nil
        }
        guard let valueNode = fields.value("value") else {
            diagnostics.error(
                .missingKey, "\(place) has no `value`", at: kind.range,
                hint: "give the key, from a secret input: `value: \"${{ inputs.api_key }}\"`")
            return nil
        }
        guard let kindNode = fields.value(first.value), let placeKind = APIKeyAuth.Place(rawValue: first.value),
            let name = string(kindNode, "`\(first.value)` of \(place)"),
            let value = template(valueNode, "`value` of \(place)")
        else { return nil }
        switch placeKind {
        case .header:
            guard checkHeaderName(name) else { return nil }
            checkHeaderLine(value, "the API key of \(what)")
        case .cookie:
            checkHeaderLine(value, "the API key of \(what)")
        case .query:
            break
        }
        if name.value.isEmpty {
            diagnostics.error(.invalidValue, "\(place) has an empty name", at: name.range)
            return nil
        }
        return APIKeyAuth(place: Located(placeKind, at: first.range), name: name, value: value)
    }

    /// Reports `auth` and the header it writes set side by side (in one request, or in `defaults`): the
    /// `Authorization` header, or an API key's header.
    mutating func checkAuthConflict(
        auth: Located<RequestAuth>?, key: Located<String>?, headers: [Header], in what: String
    ) {
        guard let key, let written = auth?.value.headerName,
            let header = headers.first(where: { $0.name.value.lowercased() == written })
        else { return }
        diagnostics.error(
            .conflictingKeys, "\(what) has both `auth` and an `\(header.name.value)` header",
            at: header.name.range, notes: [.init("`auth` is given here", at: key.range)],
            hint:
                "keep one: `auth` writes the `\(written == "authorization" ? "Authorization" : header.name.value)` header"
        )
    }
}

/// Where a URL written in a plan sends secrets in the clear: plain `http` to a host that is not this machine's.
public enum InsecureEndpoint {
    /// The host of `url` when it is plain `http` to a host other than this machine's; nil otherwise.
    public static func host(of url: String) -> String? {
        guard let host = plainHTTPHost(url), !isLoopbackName(host) else { return nil }
        return host
    }

    /// The host of an `http:` URL, lowercased, without user information, port or IPv6 brackets; nil for any
    /// other scheme.
    public static func plainHTTPHost(_ url: String) -> String? {
        guard url.lowercased().hasPrefix("http://") else { return nil }
        let rest = url.dropFirst("http://".count)
        var authority = rest.prefix { !"/?#".contains($0) }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close]).lowercased()
        }
        return String(authority.prefix { $0 != ":" }).lowercased()
    }

    /// Whether `host` names this machine: `localhost`, a name under `.localhost`, an IPv4 address in
    /// 127.0.0.0/8, or `::1` (RFC 6761), written as a URL writes them.
    public static func isLoopbackName(_ host: String) -> Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "0:0:0:0:0:0:0:1" {
            return true
        }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

}
