extension PlanReader {
    static let apiBindingKeys = ["file", "base_url", "response_fields", "credentials"]
    static let schemeCredentialKeys = [
        "username", "password", "client_id", "client_secret", "client_auth", "refresh_token", "private_key",
        "key_id",
    ]

    /// `openapi:` — name → file, or name → `{ file, base_url, response_fields }`.
    mutating func readAPIBindings(_ node: YAMLNode) -> [APIBinding] {
        guard let entries = mapping(node, "`openapi`") else { return [] }
        var result: [APIBinding] = []
        for (name, value) in entries.entries {
            guard checkName(name, "API description name") else { continue }
            let what = "API description `\(name.value)`"
            var fileNode = value
            var baseURL: Template?
            var responseFields: Located<APIBinding.ResponseFields>?
            var credentials: [SchemeCredentials] = []
            if case .mapping = value {
                guard let fields = mapping(value, what) else { continue }
                checkKeys(fields, allowed: PlanReader.apiBindingKeys, in: what)
                baseURL = fields.value("base_url").flatMap { template($0, "`base_url` of \(what)") }
                if let baseURL, let literal = baseURL.literalText,
                    literal.urlScheme.map({ ["http", "https"].contains($0.lowercased()) }) != true
                {
                    diagnostics.error(
                        .invalidValue, "`base_url` of \(what) must be an absolute http(s) URL, found `\(literal)`",
                        at: baseURL.range,
                        hint: "write `http://host:port/prefix`, or leave it out to use `defaults.base_url`")
                }
                if let node = fields.value("response_fields"),
                    let written = string(node, "`response_fields` of \(what)")
                {
                    let modes = APIBinding.ResponseFields.allCases.map(\.rawValue)
                    if let mode = APIBinding.ResponseFields(rawValue: written.value) {
                        responseFields = Located(mode, at: written.range)
                    } else {
                        let suggestion = Suggestion.replacement(for: written.value, in: modes)
                        diagnostics.error(
                            .invalidValue,
                            "`response_fields` of \(what) is `strict`, `described` or `loose`, found `\(written.value)`",
                            at: written.range,
                            hint: suggestion?.hint ?? "leave it out to take the description as it says (`described`)",
                            fix: suggestion?.fix)
                    }
                }
                credentials =
                    fields.value("credentials").map { readSchemeCredentials($0, "`credentials` of \(what)") } ?? []
                guard let node = fields.value("file") else {
                    diagnostics.error(
                        .missingKey, "\(what) has no `file`", at: name.range,
                        hint: "name the OpenAPI document: `\(name.value): { file: openapi.yaml }`")
                    continue
                }
                fileNode = node
            }
            guard let file = string(fileNode, "the file of \(what)") else { continue }
            if Template.opensExpression(file.value) {
                diagnostics.error(
                    .invalidExpression,
                    "the file of an API description is a literal path; `${{ }}` is not evaluated here",
                    at: file.range, hint: "name the document itself, relative to this plan's file")
                continue
            }
            if file.value.isEmpty {
                diagnostics.error(
                    .invalidValue, "the file of \(what) is empty", at: file.range,
                    hint: "name an OpenAPI document (YAML or JSON), relative to this plan's file")
                continue
            }
            var binding = APIBinding(
                name: name, file: file, baseURL: baseURL, responseFields: responseFields, range: name.range)
            binding.credentials = credentials
            result.append(binding)
        }
        return result
    }

    /// `credentials:` — scheme name → a key or token, or `{ username, password, client_id, client_secret,
    /// client_auth, refresh_token, private_key, key_id }`.
    mutating func readSchemeCredentials(_ node: YAMLNode, _ what: String) -> [SchemeCredentials] {
        guard let entries = mapping(node, what) else { return [] }
        var result: [SchemeCredentials] = []
        for (scheme, value) in entries.entries {
            let place = "the credentials of `\(scheme.value)`"
            guard case .mapping = value else {
                if let text = template(value, place) {
                    checkHeaderLine(text, place)
                    result.append(SchemeCredentials(scheme: scheme, text: text))
                }
                continue
            }
            guard let fields = mapping(value, place) else { continue }
            checkKeys(fields, allowed: PlanReader.schemeCredentialKeys, in: place)
            var templates: [String: Template] = [:]
            for name in PlanReader.schemeCredentialKeys where name != "client_auth" {
                if let node = fields.value(name), let text = template(node, "`\(name)` of \(place)") {
                    templates[name] = text
                }
            }
            let clientAuthentication = fields.value("client_auth").flatMap {
                choice($0, "`client_auth` of \(place)", OAuth2Auth.ClientAuthentication.self)
            }
            result.append(
                SchemeCredentials(
                    scheme: scheme, text: nil, fields: templates, clientAuthentication: clientAuthentication))
        }
        // Credentials are evaluated only in the requests whose operations ask for them: an input they read is
        // not unused when none does (RP0901 would tell the user to remove what they mean to give).
        for template in result.flatMap(\.templates) {
            for expression in template.expressions {
                expression.forEachNode { node in
                    if let reference = node.reference, reference.root.value == "inputs",
                        case .member(let name)? = reference.components.first?.value
                    {
                        inputsReadWhereNotEvaluated.insert(name)
                    }
                }
            }
        }
        return result
    }

    /// `operation: NAME.operationId` and `path: { param: value }` of a request.
    mutating func readOperation(_ fields: MappingEntries, _ what: String) -> OperationReference? {
        guard let node = fields.value("operation") else {
            if let pathKey = fields.key("path") {
                diagnostics.error(
                    .missingKey, "`path` of \(what) gives path parameters, but there is no `operation`",
                    at: pathKey.range,
                    hint: "`path:` goes with `operation: API.operationId`; with `url:` write the values into the URL")
            }
            return nil
        }
        for conflicting in ["method", "url"] {
            if let key = fields.key(conflicting), let operationKey = fields.key("operation") {
                diagnostics.error(
                    .conflictingKeys, "\(what) has both `operation` and `\(conflicting)`", at: key.range,
                    notes: [.init("`operation` is given here", at: operationKey.range)],
                    hint: "the operation gives the method and URL; remove `\(conflicting)`")
            }
        }
        guard let written = string(node, "`operation` of \(what)") else { return nil }
        let parts = written.value.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            diagnostics.error(
                .invalidValue, "`operation` must be written `API.operationId`, found `\(written.value)`",
                at: written.range,
                hint: "name the `openapi:` entry and the operation's `operationId`: `petstore.showPetById`")
            return nil
        }
        let pathParameters = fields.value("path").map { readParameters($0, "`path` of \(what)") } ?? []
        return OperationReference(
            written: written, api: String(parts[0]), operation: .id(String(parts[1])), pathParameters: pathParameters,
            pathKey: fields.key("path"))
    }
}
