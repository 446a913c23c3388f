import Foundation
import ReqPlanSyntax

/// The credentials of requests bound to an operation, from the description's security schemes and the
/// `credentials:` of its `openapi:` entry (grammar.md §6.9, "Credentials from the description").
extension APIChecker {
    /// The checks of credentials against the descriptions' security (RP0811, RP0855, RP0856, RP0857), and
    /// the credentials each bound request gets from its binding.
    mutating func checkCredentials() {
        checkSchemeNames()
        checkScopes()
        credentials = descriptionCredentials()
    }

    /// RP0857: an `oauth2` grant of the plan's own on a request bound to an operation that asks an OAuth 2.0
    /// scheme for scopes: a scope the scheme's flows do not list (a likely misspelling), and a scope the
    /// operation needs that the grant does not ask for (its token would be refused, `insufficient_scope`).
    /// The scheme is the one whose flow's token URL is the grant's literal `token_url`, else the only OAuth 2.0
    /// scheme the operation asks for. `openid` and `offline_access` are taken as listed (OpenID Connect's).
    mutating func checkScopes() {
        var said: Set<String> = []
        for step in plan.allSteps {
            guard let request = step.request, let bound = bound[step.id.value], let api = apis[bound.api],
                case .oauth2(let grant)? = (request.auth ?? plan.defaults.auth)?.value
            else { continue }
            let requirements = api.description.security(of: bound.operation)
            var asked: [(scheme: APISecurityRequirement.Scheme, flows: [APIOAuthFlow])] = []
            for requirement in requirements {
                for scheme in requirement.schemes {
                    guard case .oauth2(let flows)? = api.description.securitySchemes[scheme.name]?.kind,
                        !asked.contains(where: { $0.scheme.name == scheme.name })
                    else { continue }
                    asked.append((scheme, flows))
                }
            }
            var literalURL: String?
            if case .text(let text)? = grant.tokenURL?.parts.first, grant.tokenURL?.parts.count == 1 {
                literalURL = text
            }
            let servers = api.description.servers
            guard
                let (scheme, flows) = asked.first(where: { entry in
                    entry.flows.contains { flow in
                        flow.tokenURL.map { Self.absolute($0, servers: servers) } == literalURL
                    }
                }) ?? (asked.count == 1 ? asked.first : nil)
            else { continue }
            let listed = flows.flatMap(\.scopes) + ["openid", "offline_access"]
            for scope in grant.scopes
            where flows.contains(where: { !$0.scopes.isEmpty }) && !listed.contains(scope.value) {
                let message = "scope `\(scope.value)` is not one the flows of `\(scheme.name)` list"
                guard said.insert(message + "\(scope.range)").inserted else { continue }
                let suggestion = Suggestion.replacement(for: scope.value, in: listed)
                diagnostics.warning(
                    .unlistedScope, message, at: scope.range,
                    hint: suggestion?.hint
                        ?? "its scopes: " + flows.flatMap(\.scopes).map { "`\($0)`" }.joined(separator: ", "),
                    fix: suggestion?.fix)
            }
            let written = Set(grant.scopes.map(\.value))
            let missing = scheme.scopes.filter { !written.contains($0) }
            let names = missing.map { "`\($0)`" }.joined(separator: ", ")
            let message =
                "`\(bound.label)` asks `\(scheme.name)` for \(missing.count == 1 ? "scope" : "scopes") \(names), "
                + "which `auth` does not ask for"
            if !missing.isEmpty, said.insert(message).inserted {
                diagnostics.warning(
                    .unlistedScope, message,
                    at: grant.scopes.first?.range ?? grant.range,
                    hint: "add \(missing.count == 1 ? "it" : "them") to `scope`: the token would be refused "
                        + "(`insufficient_scope`)")
            }
        }
    }

    /// Reports credentials for a scheme the description does not have (with the closest name), once per entry.
    mutating func checkSchemeNames() {
        for api in apis.values.sorted(by: { $0.binding.name.value < $1.binding.name.value }) {
            let names = api.description.securitySchemes.keys.sorted()
            for credentials in api.binding.credentials
            where api.description.securitySchemes[credentials.scheme.value] == nil {
                let suggestion = Suggestion.replacement(for: credentials.scheme.value, in: names)
                diagnostics.error(
                    .unknownSecurityScheme,
                    "API description `\(api.binding.name.value)` has no security scheme `\(credentials.scheme.value)`",
                    at: credentials.scheme.range,
                    hint: suggestion?.hint
                        ?? (names.isEmpty
                            ? "the description declares no `securitySchemes`"
                            : "its schemes: " + names.map { "`\($0)`" }.joined(separator: ", ")),
                    fix: suggestion?.fix)
            }
        }
    }

    /// The `auth` each bound request gets from its operation's `security`: for a request with no credentials of
    /// its own (no `auth`, no header they write, none in `defaults`), the first alternative of the requirement
    /// whose one scheme the entry gives credentials for. RP0855 when the entry gives credentials and none
    /// satisfies a requirement that asks for some.
    mutating func descriptionCredentials() -> [String: (auth: Located<RequestAuth>, keys: [APIKeyAuth])] {
        var result: [String: (auth: Located<RequestAuth>, keys: [APIKeyAuth])] = [:]
        // `auth` on a request whose operation says it takes none.
        for step in plan.allSteps {
            guard let request = step.request, let auth = request.auth, let bound = bound[step.id.value],
                bound.operation.security == []
            else { continue }
            diagnostics.warning(
                .unaskedCredentials,
                "`\(bound.label)` takes no credentials (its `security` is `[]`), but the request sends `auth`",
                at: auth.range,
                hint: "remove `auth`: the description says the operation is public, so the credentials only leak "
                    + "further than needed")
        }
        for step in plan.allSteps {
            guard let request = step.request, let bound = bound[step.id.value], let api = apis[bound.api],
                !api.binding.credentials.isEmpty || !api.binding.commandLineSchemes.isEmpty, request.auth == nil,
                request.authorizationHeader == nil,
                plan.defaults.auth == nil,
                !plan.defaults.headers.contains(where: { $0.name.value.lowercased() == "authorization" })
            else { continue }
            let requirements = api.description.security(of: bound.operation)
            guard !requirements.isEmpty, !requirements.contains(where: \.isAnonymous) else { continue }
            var found: (auth: Located<RequestAuth>, keys: [APIKeyAuth])?
            for requirement in requirements {
                // Every scheme of the alternative, each with its credentials; else the next alternative.
                var auths: [Located<RequestAuth>] = []
                for asked in requirement.schemes {
                    guard let scheme = api.description.securitySchemes[asked.name],
                        let given = api.binding.credentials.first(where: { $0.scheme.value == asked.name }),
                        let auth = self.auth(scheme, given, scopes: asked.scopes, servers: api.description.servers)
                    else { break }
                    auths.append(Located(auth, at: given.scheme.range))
                }
                guard auths.count == requirement.schemes.count, let combined = Self.combined(auths) else { continue }
                found = combined
                break
            }
            if let found {
                result[step.id.value] = found
            } else {
                let alternatives = requirements.map { $0.schemes.map { "`\($0.name)`" }.joined(separator: " and ") }
                let asked = requirements.flatMap { $0.schemes.map(\.name) }
                // A `--credential` for a scheme the description does not declare is most likely misspelt.
                let misspelt = api.binding.commandLineSchemes.lazy.filter {
                    api.description.securitySchemes[$0] == nil
                }.compactMap { written in Suggestion.closest(to: written, in: asked).map { (written, $0) } }.first
                let given =
                    api.binding.credentials.isEmpty ? "`--credential`" : "`credentials` of `\(api.binding.name.value)`"
                diagnostics.warning(
                    .missingCredentials,
                    "`\(bound.label)` asks for \(alternatives.joined(separator: " or ")), and \(given) gives none "
                        + "that fits",
                    at: request.operation?.written.range ?? request.url.range,
                    hint: misspelt.map {
                        "`--credential \($0.0)` names no scheme of the description: did you mean `\($0.1)`?"
                    }
                        ?? "give the credentials of one of its schemes under `credentials:` of `openapi: "
                        + "\(api.binding.name.value)`, with `--credential SCHEME=…`, or `auth` on the request")
            }
        }
        return result
    }

    /// The credentials of an alternative that asks for several schemes at once, as one request sends them: at
    /// most one that writes `Authorization` (or is given as the request is sent), as `auth`, and API keys
    /// beside it, each in its own header, parameter or cookie. Nil when two would write the same header (two
    /// `Authorization`s: basic and bearer) or the same key twice.
    static func combined(_ auths: [Located<RequestAuth>]) -> (auth: Located<RequestAuth>, keys: [APIKeyAuth])? {
        var keys: [APIKeyAuth] = []
        var other: [Located<RequestAuth>] = []
        for auth in auths {
            if case .apiKey(let key) = auth.value { keys.append(key) } else { other.append(auth) }
        }
        // A header's name in any case; a request sends one `Cookie` header, so one cookie key at most.
        let places = keys.map { key in
            switch key.place.value {
            case .header: "header " + key.name.value.lowercased()
            case .query: "query " + key.name.value
            case .cookie: "cookie"
            }
        }
        guard other.count <= 1, Set(places).count == places.count,
            !(other.first?.value.headerName.map { name in
                keys.contains { $0.place.value == .header && $0.name.value.lowercased() == name }
            } ?? false)
        else { return nil }
        if let primary = other.first { return (primary, keys) }
        guard let first = auths.first, case .apiKey = first.value else { return nil }
        return (first, Array(keys.dropFirst()))
    }

    /// What `given` makes of `scheme`: nil when its form does not fit the scheme's kind (said once, RP0811).
    private mutating func auth(
        _ scheme: APISecurityScheme, _ given: SchemeCredentials, scopes: [String], servers: [String]
    ) -> RequestAuth? {
        let range = given.scheme.range
        func field(_ name: String) -> Template? { given.fields[name] }
        switch scheme.kind {
        case .apiKey(let name, let location):
            guard let text = given.text else { return wrongForm(given, "an API key: give the key itself") }
            let place = APIKeyAuth.Place(rawValue: location.rawValue) ?? .header
            return .apiKey(APIKeyAuth(place: Located(place, at: range), name: Located(name, at: range), value: text))
        case .http(let kind, _):
            switch kind {
            case "bearer":
                guard let text = given.text else { return wrongForm(given, "a bearer token: give the token itself") }
                return .bearer(text)
            case "basic", "digest":
                guard let username = field("username"), let password = field("password") else {
                    return wrongForm(given, "`\(kind)` credentials: give `{ username, password }`")
                }
                return kind == "basic"
                    ? .basic(username: username, password: password) : .digest(username: username, password: password)
            default:
                return nil
            }
        case .oauth2(let flows):
            guard let clientID = field("client_id") else {
                return wrongForm(given, "an OAuth 2.0 client: give `{ client_id, client_secret }`")
            }
            let grant: OAuth2Auth.Grant
            let flow: APIOAuthFlow?
            if field("refresh_token") != nil {
                grant = .refreshToken
                flow =
                    flows.first { $0.tokenURL != nil && $0.kind != .clientCredentials }
                    ?? flows.first { $0.tokenURL != nil }
            } else if field("username") != nil {
                grant = .password
                flow = flows.first { $0.kind == .password }
            } else if let code = flows.first(where: { $0.kind == .authorizationCode }),
                !flows.contains(where: { $0.kind == .clientCredentials })
            {
                // A user's consent in a browser (`reqplan run --open-browser`), when the scheme has no flow
                // for the client itself.
                grant = .authorizationCode
                flow = code
            } else {
                grant = .clientCredentials
                flow = flows.first { $0.kind == .clientCredentials }
            }
            guard let flow, let written = flow.tokenURL else {
                return wrongForm(
                    given, "an OAuth 2.0 scheme whose description has no flow for the `\(grant.rawValue)` grant")
            }
            let tokenURL = Self.absolute(written, servers: servers)
            if InsecureEndpoint.host(of: tokenURL) != nil {
                diagnostics.error(
                    .insecureTokenEndpoint, "the token endpoint `\(tokenURL)` of `\(scheme.name)` is not over https",
                    at: range, hint: "the client's secret and its tokens would cross the network in the clear")
                return nil
            }
            return .oauth2(
                OAuth2Auth(
                    range: range, grant: Located(grant, at: range),
                    tokenURL: Template(parts: [.text(tokenURL)], range: range),
                    clientID: clientID, clientSecret: field("client_secret"),
                    clientAuthentication: given.clientAuthentication, scopes: scopes.map { Located($0, at: range) },
                    audience: nil, refreshToken: field("refresh_token"), username: field("username"),
                    password: field("password"), privateKey: field("private_key"), keyID: field("key_id"),
                    authorizationURL: grant == .authorizationCode
                        ? flow.authorizationURL.map {
                            Template(parts: [.text(Self.absolute($0, servers: servers))], range: range)
                        } : nil))
        case .openIDConnect(let url):
            guard let clientID = field("client_id") else {
                return wrongForm(given, "an OpenID Connect client: give `{ client_id, client_secret }`")
            }
            let suffix = "/.well-known/openid-configuration"
            let issuer = url.hasSuffix(suffix) ? String(url.dropLast(suffix.count)) : url
            return .oauth2(
                OAuth2Auth(
                    range: range, grant: nil, tokenURL: nil, issuer: Template(parts: [.text(issuer)], range: range),
                    clientID: clientID, clientSecret: field("client_secret"),
                    clientAuthentication: given.clientAuthentication, scopes: scopes.map { Located($0, at: range) },
                    audience: nil, refreshToken: nil, username: nil, password: nil, privateKey: field("private_key"),
                    keyID: field("key_id")))
        case .mutualTLS:
            return nil
        }
    }

    /// RP0811: credentials in a form the scheme does not take; nil.
    private mutating func wrongForm(_ given: SchemeCredentials, _ what: String) -> RequestAuth? {
        let message =
            (given.fromCommandLine ? "`--credential \(given.scheme.value)`: " : "")
            + "security scheme `\(given.scheme.value)` is \(what)"
        if !diagnostics.diagnostics.contains(where: { $0.message == message && $0.range == given.scheme.range }) {
            diagnostics.error(.unknownSecurityScheme, message, at: given.scheme.range)
        }
        return nil
    }

    /// A token URL as the description writes it, made absolute against its first server (OpenAPI allows a
    /// relative one).
    static func absolute(_ url: String, servers: [String]) -> String {
        guard url.urlScheme == nil, let server = servers.first, let base = URL(string: server),
            let joined = URL(string: url, relativeTo: base)?.absoluteString
        else { return url }
        return joined
    }
}
