import ReqPlanSyntax

/// The credentials a collection (Postman, Insomnia, Bruno) gives a request, by scheme, with the parameters
/// each format names its own way read into one set of names.
struct CollectionAuth {
    /// `basic`, `digest`, `bearer`, `apikey`, `awsv4`, `oauth2`, or another the reader passes on as written.
    var kind: String
    /// `username`, `password`, `token`, `key`, `value`, `in` (`header`, `query`, `cookie`), `accessKey`,
    /// `secretKey`, `sessionToken`, `region`, `service`, `grant` (`client_credentials`, `password`, …),
    /// `tokenURL`, `authURL`, `clientId`, `clientSecret`, `scope`, `clientAuth` (`body`), `accessToken`.
    var parameters: [String: String]

    func callAsFunction(_ name: String) -> String? {
        parameters[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// A reader of a collection format: its variables make text, its credentials inputs.
protocol CollectionReading {
    /// The plan read so far.
    var plan: ImportedPlan { get set }
    /// The tool's name in messages (`Postman`).
    var tool: String { get }
    /// `text` with the variables it reads as references; `secret` when it is a credential.
    mutating func text(_ text: String, secret: Bool) -> PlanText
    /// Records a warning at `range`.
    mutating func warning(_ code: DiagnosticCode, _ message: String, at range: SourceRange?, hint: String?)
}

extension CollectionReading {
    /// A credential as a reference: to the variables it reads, else an input for its value (a secret one
    /// unless `secret` is false: a user name has its default).
    mutating func credential(_ value: String?, named name: String, secret: Bool) -> PlanText {
        let value = value ?? ""
        if value.contains("{{") || value.contains("{%") { return text(value, secret: secret) }
        let input = plan.inputs.input(
            for: value, named: name, secret: secret, description: "the `\(name)` of the \(tool) auth")
        return .reference(.input(input))
    }

    /// Writes `auth` into `step`: `auth:` of the plan's schemes (§6.7), or a warning and a comment for one
    /// it has no form for.
    mutating func apply(_ auth: CollectionAuth, to step: inout ImportedStep, at range: SourceRange?) {
        switch auth.kind {
        case "basic", "digest":
            let username = credential(auth("username"), named: "username", secret: false)
            let password = credential(auth("password"), named: "password", secret: true)
            step.auth =
                auth.kind == "basic"
                ? .basic(username: username, password: password) : .digest(username: username, password: password)
        case "bearer":
            step.auth = .bearer(credential(auth("token"), named: "token", secret: true))
        case "apikey":
            let place = ["query": "query", "cookie": "cookie"][auth("in") ?? ""] ?? "header"
            step.auth = .scheme(
                "api_key",
                [
                    Pair(place, PlanText(auth("key") ?? "X-API-Key")),
                    Pair("value", credential(auth("value"), named: auth("key") ?? "api_key", secret: true)),
                ])
        case "awsv4":
            var fields = [
                Pair("access_key_id", credential(auth("accessKey"), named: "access_key_id", secret: false)),
                Pair("secret_access_key", credential(auth("secretKey"), named: "secret_access_key", secret: true)),
            ]
            if let token = auth("sessionToken") {
                fields.append(Pair("session_token", credential(token, named: "session_token", secret: true)))
            }
            fields.append(Pair("region", text(auth("region") ?? "us-east-1", secret: false)))
            fields.append(Pair("service", text(auth("service") ?? "execute-api", secret: false)))
            step.auth = .scheme("aws_sigv4", fields)
        case "oauth2" where Self.runnableGrant(auth) != nil:
            step.auth = .scheme("oauth2", oauth2(auth, grant: Self.runnableGrant(auth) ?? ""))
        case "oauth2" where auth("accessToken") != nil:
            // The token the tool stored and sends: a secret input, as the run cannot ask the tool for another.
            step.auth = .bearer(credential(auth("accessToken"), named: "access_token", secret: true))
            warning(
                .importSettingNotConverted,
                "the OAuth 2.0 grant of `\(step.method)` is not converted; the access token \(tool) stored is an input",
                at: range,
                hint: "a plan's `auth: { oauth2 }` runs the client credentials and password grants (grammar.md §6.7.1)")
            step.comments.append("not converted: the OAuth 2.0 grant (the stored access token is an input)")
        default:
            let what =
                auth.kind == "oauth2" ? "the OAuth 2.0 grant `\(auth("grant") ?? "")`" : "the `\(auth.kind)` auth"
            let why =
                auth.kind == "oauth2" && auth("clientId") != nil && auth("tokenURL") != nil
                ? ": its token URL is not https (a plan sends client secrets over https, or to loopback)" : ""
            warning(
                .importSettingNotConverted, "\(what) of \(tool) is not converted\(why); the request is sent without it",
                at: range,
                hint:
                    "a plan has basic, digest, bearer, API keys, OAuth 2.0 (client credentials, password, authorization code) and AWS SigV4 (grammar.md §6.7)"
            )
            step.comments.append("not converted: \(what) of \(tool)\(why)")
        }
    }

    private mutating func oauth2(_ auth: CollectionAuth, grant: String) -> [Pair] {
        var fields: [Pair] = []
        if grant != "client_credentials" { fields.append(Pair("grant", PlanText(grant))) }
        fields.append(Pair("token_url", text(auth("tokenURL") ?? "", secret: false)))
        if grant == "authorization_code" {
            fields.append(Pair("authorization_url", text(auth("authURL") ?? "", secret: false)))
        }
        fields.append(Pair("client_id", text(auth("clientId") ?? "", secret: false)))
        if let secret = auth("clientSecret") {
            fields.append(Pair("client_secret", credential(secret, named: "client_secret", secret: true)))
        }
        if auth("clientAuth") == "body" { fields.append(Pair("client_auth", PlanText("client_secret_post"))) }
        if let scope = auth("scope") { fields.append(Pair("scope", text(scope, secret: false))) }
        if grant == "password" {
            fields.append(Pair("username", credential(auth("username"), named: "username", secret: false)))
            fields.append(Pair("password", credential(auth("password"), named: "password", secret: true)))
        }
        return fields
    }

    /// `client_credentials`, `password` or `authorization_code` when the grant is one a plan runs: a client id
    /// and a token endpoint (and for a code, an authorization endpoint) over https, or plain http on loopback
    /// (RP0118), or one a variable gives.
    private static func runnableGrant(_ auth: CollectionAuth) -> String? {
        let grant = auth("grant") ?? "client_credentials"
        let names = [
            "client_credentials": "client_credentials", "password": "password", "password_credentials": "password",
            "authorization_code": "authorization_code", "authorization_code_with_pkce": "authorization_code",
        ]
        guard let name = names[grant], auth("clientId") != nil, let url = auth("tokenURL"), isAllowed(url) else {
            return nil
        }
        // The authorization code grant also sends the user's browser to its endpoint.
        guard name != "authorization_code" || auth("authURL").map(isAllowed) == true else { return nil }
        return name
    }

    /// A URL a plan's `oauth2` takes: `https`, or `http` on loopback (RP0118); one a variable gives as written.
    private static func isAllowed(_ url: String) -> Bool {
        let url = url.lowercased()
        return url.hasPrefix("{{") || url.hasPrefix("https://")
            || ["http://127.0.0.1", "http://localhost", "http://[::1]"].contains { url.hasPrefix($0) }
    }
}

extension CollectionReading {
    /// Whether a request has a URL to send; one without (a tool's "New Request" never filled in) is left out,
    /// with warning RP1403.
    mutating func hasURL(_ url: String, of name: String, at range: SourceRange?) -> Bool {
        guard url.trimmingCharacters(in: .whitespaces).isEmpty else { return true }
        warning(.importOptionNotConverted, "the request `\(name)` has no URL; left out", at: range, hint: nil)
        return false
    }

    /// A script's lines as comments below its heading: indented, at most 200, blank lines at its end left out.
    static func scriptComments(_ lines: [String]) -> [String] {
        let shown = lines.prefix(200).reversed().drop { $0.trimmingCharacters(in: .whitespaces).isEmpty }.reversed()
        let comments = shown.map { $0.trimmingCharacters(in: .whitespaces).isEmpty ? "" : "  " + $0 }
        return comments + (lines.count > 200 ? ["  … \(lines.count - 200) more lines"] : [])
    }
}
