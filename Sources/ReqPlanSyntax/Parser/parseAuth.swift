extension PlanReader {
    static let authKeys = ["basic", "bearer"]
    static let basicAuthKeys = ["username", "password"]

    /// `auth:` — `{ basic: { username, password } }` or `{ bearer: token }`.
    /// - Parameters:
    ///   - node: the value of the `auth` key.
    ///   - key: the `auth` key, where the credentials are located for notes.
    mutating func readAuth(_ node: YAMLNode, _ what: String, key: Located<String>) -> Located<RequestAuth>? {
        guard let fields = mapping(node, what) else { return nil }
        checkKeys(fields, allowed: PlanReader.authKeys, in: what)
        switch (fields.key("basic"), fields.key("bearer")) {
        case (let basic?, let bearer?):
            let (first, second) = basic.range.start < bearer.range.start ? (basic, bearer) : (bearer, basic)
            diagnostics.error(
                .conflictingKeys, "\(what) has both `basic` and `bearer`", at: second.range,
                notes: [.init("`\(first.value)` is given here", at: first.range)],
                hint: "a request sends one kind of credentials: keep `basic` or `bearer`")
            return nil
        case (nil, nil):
            // A misspelt `basic` or `bearer` is reported as an unknown key already.
            let misspelt = fields.entries.contains {
                Suggestion.closest(to: $0.key.value, in: PlanReader.authKeys) != nil
            }
            if !misspelt {
                diagnostics.error(
                    .missingKey, "\(what) has neither `basic` nor `bearer`", at: key.range,
                    hint: "write `auth: { basic: { username: …, password: … } }` or `auth: { bearer: TOKEN }`")
            }
            return nil
        case (let basicKey?, nil):
            guard let basicNode = fields.value("basic"), let basic = mapping(basicNode, "`basic` of \(what)") else {
                return nil
            }
            checkKeys(basic, allowed: PlanReader.basicAuthKeys, in: "`basic` of \(what)")
            var parts: [Template] = []
            for name in PlanReader.basicAuthKeys {
                guard let valueNode = basic.value(name) else {
                    diagnostics.error(
                        .missingKey, "`basic` of \(what) has no `\(name)`", at: basicKey.range,
                        hint: "basic credentials are `{ username: …, password: … }` (an empty password is `\"\"`)")
                    continue
                }
                if let template = template(valueNode, "`\(name)` of `basic`") { parts.append(template) }
            }
            guard parts.count == 2 else { return nil }
            return Located(.basic(username: parts[0], password: parts[1]), at: key.range)
        case (nil, _?):
            guard let tokenNode = fields.value("bearer"), let token = template(tokenNode, "`bearer` of \(what)") else {
                return nil
            }
            checkHeaderLine(token, "the `bearer` token of \(what)")
            return Located(.bearer(token), at: key.range)
        }
    }

    /// Reports `auth` and an `Authorization` header written side by side (in one request, or in `defaults`).
    mutating func checkAuthConflict(auth: Located<String>?, headers: [Header], in what: String) {
        guard let auth, let header = headers.first(where: { $0.name.value.lowercased() == "authorization" }) else {
            return
        }
        diagnostics.error(
            .conflictingKeys, "\(what) has both `auth` and an `\(header.name.value)` header",
            at: header.name.range, notes: [.init("`auth` is given here", at: auth.range)],
            hint: "keep one: `auth` writes the `Authorization` header")
    }
}
