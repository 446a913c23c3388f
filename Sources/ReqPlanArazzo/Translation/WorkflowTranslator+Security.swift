import ReqPlanPlanner
import ReqPlanSyntax

extension WorkflowTranslator {
    /// The credentials Redocly Respect's `x-security` gives an operation step: the step's own items, else its
    /// workflow's (a step's list replaces the workflow's). A request carries one `auth`: the first item that
    /// gives credentials is sent, and each later one is reported as not sent. Values are translated as the
    /// step's parameters are, so the planner checks what they read, and what they give is a secret of the run.
    mutating func securityAuth(of step: ArazzoStep, api: String?) -> Located<RequestAuth>? {
        guard let items = step.security ?? workflow.security, !items.isEmpty else { return nil }
        // A workflow's items are translated again for each of its steps: what they report is said once.
        let start = diagnostics.diagnostics.count
        var chosen: Located<RequestAuth>?
        for item in items {
            guard let auth = credential(item, of: step, api: api) else { continue }
            if let chosen {
                diagnostics.warning(
                    .arazzoUnsupported,
                    "this `x-security` item is not sent: a request carries one credential, and an earlier item gives "
                        + "it", at: item.range, notes: [.init("the credential sent", at: chosen.range)],
                    hint: "keep one item per step, or send the other credential as a parameter (`in: header`)")
            } else {
                chosen = auth
            }
        }
        sayOnce(since: start)
        return chosen
    }

    /// Removes the diagnostics reported since `start` that were reported before it (same code, place and
    /// message).
    private mutating func sayOnce(since start: Int) {
        let all = diagnostics.diagnostics
        guard all.count > start else { return }
        let earlier = all[..<start]
        let new = all[start...].filter { diagnostic in
            !earlier.contains {
                $0.code == diagnostic.code && $0.range == diagnostic.range && $0.message == diagnostic.message
            }
        }
        diagnostics.rollBack(to: start)
        for diagnostic in new { diagnostics.emit(diagnostic) }
    }

    /// The credentials of one item; nil (reported) when it gives none.
    private mutating func credential(_ item: SecurityItem, of step: ArazzoStep, api: String?)
        -> Located<RequestAuth>?
    {
        let kind: APISecurityScheme.Kind
        switch item.scheme {
        case .inline(let written?):
            kind = written
        case .inline(.none):
            // Reported where it is read; its values are still checked.
            for value in item.values { _ = givenValue(value.value, in: .request(step)) }
            return nil
        case .named(let name):
            // A description that could not be read (or no loader) is reported where the plan binds it.
            guard let api, let description = descriptions[api] else {
                for value in item.values { _ = givenValue(value.value, in: .request(step)) }
                return nil
            }
            guard let scheme = description.securitySchemes[name.value] else {
                let names = description.securitySchemes.keys.sorted()
                let suggestion = Suggestion.replacement(for: name.value, in: names)
                diagnostics.error(
                    .unknownSecurityScheme, "source description `\(api)` has no security scheme `\(name.value)`",
                    at: name.range,
                    hint: suggestion?.hint
                        ?? (names.isEmpty
                            ? "the description declares no `securitySchemes`: write the scheme itself (`scheme:`)"
                            : "its schemes: " + names.map { "`\($0)`" }.joined(separator: ", ")),
                    fix: suggestion?.fix)
                for value in item.values { _ = givenValue(value.value, in: .request(step)) }
                return nil
            }
            kind = scheme.kind
        }
        var missing: [String] = []
        var used: Set<String> = []
        /// The value of `name` (the first of `names` written), as text; nil when none is written.
        func text(_ names: String...) -> Template? {
            guard let name = names.first(where: { item.value($0) != nil }), let found = item.value(name) else {
                missing.append(names[0])
                return nil
            }
            used.insert(name)
            return template(givenValue(found, in: .request(step)))
        }
        let auth: RequestAuth?
        switch kind {
        case .apiKey(let name, let location):
            // `apiKey` (Respect's documentation); `value` (what its earlier versions read).
            let place = APIKeyAuth.Place(rawValue: location.rawValue) ?? .header
            auth = text("apiKey", "value").map {
                .apiKey(
                    APIKeyAuth(
                        place: Located(place, at: item.range), name: Located(name, at: item.range), value: $0))
            }
        case .http(let scheme, _):
            switch scheme {
            case "basic", "digest":
                let username = text("username")
                let password = text("password")
                if let username, let password {
                    auth =
                        scheme == "basic"
                        ? .basic(username: username, password: password)
                        : .digest(username: username, password: password)
                } else {
                    auth = nil
                }
            case "bearer":
                auth = text("token").map { .bearer($0) }
            default:
                diagnostics.error(
                    .arazzoUnsupported, "the HTTP authentication scheme `\(scheme)` is not supported in `x-security`",
                    at: item.range, hint: "`basic`, `digest` or `bearer`; or send the header as a parameter")
                for value in item.values { _ = givenValue(value.value, in: .request(step)) }
                return nil
            }
        case .oauth2, .openIDConnect:
            // An access token obtained beforehand, sent as a bearer token (Respect's `accessToken`).
            auth = text("accessToken").map { .bearer($0) }
        case .mutualTLS:
            diagnostics.warning(
                .arazzoUnsupported, "a `mutualTLS` scheme is a client certificate, which `x-security` does not send",
                at: item.range, hint: "give the certificate and its key with `--cert` and `--key`")
            return nil
        }
        // Values the scheme does not read are still checked (what they read must exist).
        for value in item.values where !used.contains(value.name.value) {
            _ = givenValue(value.value, in: .request(step))
        }
        if !missing.isEmpty {
            diagnostics.error(
                .missingKey,
                "the `x-security` item has no " + missing.map { "`values.\($0)`" }.joined(separator: " or "),
                at: item.range, hint: Self.valuesHint(kind))
            return nil
        }
        return auth.map { Located($0, at: item.range) }
    }

    /// Whether some `x-security` item of the document names a scheme of a source description (`schemeName`),
    /// which the descriptions are read for.
    static func namesSecuritySchemes(in document: ArazzoDocument) -> Bool {
        func names(_ items: [SecurityItem]?) -> Bool {
            items?.contains {
                if case .named = $0.scheme { return true }
                return false
            } ?? false
        }
        return document.workflows.contains { workflow in
            names(workflow.security) || workflow.steps.contains { names($0.security) }
        }
    }

    /// The values a scheme's credentials take, as a hint.
    static func valuesHint(_ kind: APISecurityScheme.Kind) -> String {
        switch kind {
        case .apiKey: "an API key takes `values: { apiKey: … }`"
        case .http(let scheme, _) where scheme == "bearer": "a bearer scheme takes `values: { token: … }`"
        case .http: "`values: { username: …, password: … }`"
        case .oauth2, .openIDConnect:
            "an OAuth 2.0 or OpenID Connect scheme takes an access token obtained beforehand: "
                + "`values: { accessToken: … }`"
        case .mutualTLS: "give the certificate with `--cert` and `--key`"
        }
    }
}
