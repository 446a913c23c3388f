extension PlanReader {
    static let requestKeys = [
        "method", "url", "query", "headers", "json", "form", "multipart", "body", "body_file", "auth",
        "follow_redirects",
        "operation", "path",
    ]
    static let bodyKeys = ["json", "form", "multipart", "body", "body_file"]

    /// `request:` — method, url, query, headers and at most one body.
    /// - Parameter key: the `request` key, where a missing `url` is reported.
    mutating func readRequest(_ node: YAMLNode, _ what: String, key: Located<String>? = nil) -> RequestSpec? {
        guard let fields = mapping(node, what) else { return nil }
        checkKeys(fields, allowed: PlanReader.requestKeys, in: what)
        let operation = readOperation(fields, what)

        var method: Located<HTTPMethodName>?
        if let methodNode = fields.value("method"), let text = text(methodNode, "`method`") {
            if let value = HTTPMethodName(rawValue: text.value) {
                method = Located(value, at: text.range)
            } else {
                let names = HTTPMethodName.allCases.map(\.rawValue)
                // Methods are short: two edits turn `FETCH` into `PATCH`, which helps nobody.
                let meant =
                    names.contains(text.value.uppercased())
                    ? text.value.uppercased()
                    : Suggestion.closest(to: text.value.uppercased(), in: names, maxDistance: 1)
                let hint =
                    names.contains(text.value.uppercased())
                    ? "methods are written in capitals: `\(text.value.uppercased())`"
                    : meant.map { "did you mean `\($0)`?" }
                        ?? "methods are " + names.map { "`\($0)`" }.joined(separator: ", ")
                diagnostics.error(
                    .invalidMethod, "invalid HTTP method `\(text.value)`", at: text.range, hint: hint,
                    fix: meant.flatMap { Suggestion.fix(replacing: text.value, with: $0) })
            }
        }

        var url: Template?
        if let operation {
            // The planner fills the URL in from the API description.
            url = Template(parts: [], range: operation.written.range)
        } else if let urlNode = fields.value("url") {
            url = template(urlNode, "`url`")
            if let url, let literal = url.literalText { checkURL(literal, at: url.range) }
        } else {
            diagnostics.error(
                .missingKey, "missing required key `url` in \(what)", at: key?.range ?? fields.range,
                hint: "every request has a `url`")
        }

        var body: RequestBody?
        var bodyKey: Located<String>?
        for entry in fields.entries where PlanReader.bodyKeys.contains(entry.key.value) {
            if let first = bodyKey {
                diagnostics.error(
                    .conflictingKeys,
                    "a request has at most one body, but \(what) has `\(first.value)` and `\(entry.key.value)`",
                    at: entry.key.range, notes: [.init("`\(first.value)` is given here", at: first.range)],
                    hint: "keep one of `json`, `form`, `multipart`, `body`, `body_file`")
                continue
            }
            bodyKey = entry.key
            body = readBody(entry.key.value, entry.value, what)
        }

        // RFC 9110 §9.3.8: a client MUST NOT send content in a TRACE request.
        if let method, method.value == .TRACE, let bodyKey {
            diagnostics.error(
                .conflictingKeys, "a TRACE request cannot have a body, but \(what) has `\(bodyKey.value)`",
                at: bodyKey.range, notes: [.init("the method is given here", at: method.range)],
                hint: "remove `\(bodyKey.value)`: a TRACE request is sent without content (RFC 9110)")
        }

        let headers = fields.value("headers").map { readHeaders($0, "`headers` of \(what)") } ?? []
        let authKey = fields.key("auth")
        let auth = fields.value("auth").flatMap { node in
            authKey.flatMap { readAuth(node, "`auth` of \(what)", key: $0) }
        }
        checkAuthConflict(auth: auth, key: authKey, headers: headers, in: what)
        let followRedirects = fields.value("follow_redirects").flatMap { bool($0, "`follow_redirects` of \(what)") }

        guard let url else { return nil }
        return RequestSpec(
            method: operation == nil ? method : nil, url: url,
            query: fields.value("query").map { readParameters($0, "`query` of \(what)") } ?? [],
            headers: headers, body: body, auth: auth, followRedirects: followRedirects, range: fields.range,
            operation: operation)
    }

    private mutating func checkURL(_ url: String, at range: SourceRange) {
        if url.isEmpty {
            diagnostics.error(.invalidValue, "`url` is empty", at: range)
            return
        }
        if let scheme = url.urlScheme?.lowercased() {
            if scheme != "http" && scheme != "https" {
                diagnostics.error(
                    .invalidValue, "unsupported URL scheme `\(scheme)`", at: range,
                    hint: "requests use `http://` or `https://`")
            }
            return
        }
        if !hasBaseURL {
            diagnostics.error(
                .invalidValue, "relative URL `\(url)` needs a `base_url` in `defaults`", at: range,
                hint: "add `defaults: { base_url: \"http://host:port\" }` or write the full URL")
        }
    }

    private mutating func readBody(_ key: String, _ node: YAMLNode, _ what: String) -> RequestBody? {
        switch key {
        case "json": return valueTemplate(node, "`json` of \(what)").map(RequestBody.json)
        case "form": return .form(readParameters(node, "`form` of \(what)"))
        case "multipart": return .multipart(readMultipart(node, "`multipart` of \(what)"))
        case "body": return template(node, "`body` of \(what)").map(RequestBody.text)
        default: return template(node, "`body_file` of \(what)").map(RequestBody.file)
        }
    }

    /// `headers:` — header name → text.
    mutating func readHeaders(_ node: YAMLNode, _ what: String) -> [Header] {
        guard let entries = mapping(node, what) else { return [] }
        var headers: [Header] = []
        var seen: [String: SourceRange] = [:]
        for (name, value) in entries.entries {
            guard checkHeaderName(name) else { continue }
            if let first = seen[name.value.lowercased()] {
                diagnostics.error(
                    .duplicateKey, "header `\(name.value)` is given twice in \(what)", at: name.range,
                    notes: [.init("first given here", at: first)],
                    hint: "header names are case-insensitive")
                continue
            }
            seen[name.value.lowercased()] = name.range
            if let template = template(value, "header `\(name.value)`") {
                checkHeaderLine(template, "header `\(name.value)`")
                headers.append(Header(name: name, value: template))
            }
        }
        return headers
    }

    /// Reports a control character in the literal text of `template`, which goes into a header line
    /// (`HeaderLine`); what expressions compute is checked when the request is built.
    mutating func checkHeaderLine(_ template: Template, _ what: String) {
        for part in template.parts {
            guard case .text(let text) = part, let scalar = HeaderLine.forbiddenCharacter(in: text) else { continue }
            diagnostics.error(
                .controlCharacterInHeader, HeaderLine.problem(what, scalar), at: template.range, hint: HeaderLine.hint)
            return
        }
    }

    /// Whether `name` is an HTTP token (RFC 9110); reports it if not.
    mutating func checkHeaderName(_ name: Located<String>) -> Bool {
        let allowed = "!#$%&'*+-.^_`|~".unicodeScalars
        let valid =
            !name.value.isEmpty
            && name.value.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                        || ("0"..."9").contains(scalar) || allowed.contains(scalar))
            }
        if !valid {
            diagnostics.error(
                .invalidName, "invalid header name `\(name.value)`", at: name.range,
                hint: "header names are letters, digits and `-` (no spaces or `:`)")
        }
        return valid
    }

    /// `query:` or `form:` — name → value or list of values.
    mutating func readParameters(_ node: YAMLNode, _ what: String) -> [QueryParameter] {
        guard let entries = mapping(node, what) else { return [] }
        var result: [QueryParameter] = []
        for (name, value) in entries.entries {
            guard let template = valueTemplate(value, "parameter `\(name.value)`") else { continue }
            switch template {
            case .object(_, let range):
                diagnostics.error(
                    .wrongType,
                    "parameter `\(name.value)` of \(what) must be a value or a list of values, found a mapping",
                    at: range)
            case .list(let items, _)
            where items.contains(where: {
                if case .object = $0 { return true }
                if case .list = $0 { return true }
                return false
            }):
                diagnostics.error(
                    .wrongType, "parameter `\(name.value)` of \(what) must be a list of plain values",
                    at: template.range)
            default:
                result.append(QueryParameter(name: name, value: template))
            }
        }
        return result
    }

    static let multipartKeys = ["value", "file", "content_type", "filename"]

    /// `multipart:` — name → text, or `{ file: path, content_type, filename }`, or `{ value: text, content_type }`.
    private mutating func readMultipart(_ node: YAMLNode, _ what: String) -> [MultipartPart] {
        guard let entries = mapping(node, what) else { return [] }
        var parts: [MultipartPart] = []
        for (name, value) in entries.entries {
            let partWhat = "part `\(HeaderLine.escaped(name.value))` of \(what)"
            if let scalar = HeaderLine.forbiddenCharacter(in: name.value) {
                diagnostics.error(
                    .controlCharacterInHeader, HeaderLine.problem("the name of \(partWhat)", scalar), at: name.range,
                    hint: HeaderLine.hint)
            }
            guard case .mapping = value else {
                if let template = template(value, partWhat) {
                    parts.append(MultipartPart(name: name, content: .value(template), contentType: nil, filename: nil))
                }
                continue
            }
            guard let fields = mapping(value, partWhat) else { continue }
            checkKeys(fields, allowed: PlanReader.multipartKeys, in: partWhat)
            let contentType = fields.value("content_type").flatMap { template($0, "`content_type`") }
            let filename = fields.value("filename").flatMap { template($0, "`filename`") }
            if let contentType { checkHeaderLine(contentType, "the `content_type` of \(partWhat)") }
            if let filename { checkHeaderLine(filename, "the `filename` of \(partWhat)") }
            switch (fields.value("file"), fields.value("value")) {
            case (let file?, nil):
                if let path = template(file, "`file`") {
                    parts.append(
                        MultipartPart(
                            name: name, content: .file(path), contentType: contentType,
                            filename: filename))
                }
            case (nil, let text?):
                if let filenameKey = fields.key("filename") {
                    diagnostics.error(.keyNotAllowed, "`filename` applies to file parts only", at: filenameKey.range)
                }
                if let template = template(text, "`value`") {
                    parts.append(
                        MultipartPart(
                            name: name, content: .value(template), contentType: contentType,
                            filename: nil))
                }
            case (.some, .some):
                diagnostics.error(
                    .conflictingKeys, "\(partWhat) has both `file` and `value`",
                    at: fields.key("value")?.range,
                    notes: [.init("`file` is given here", at: fields.key("file")?.range)],
                    hint: "a part is a file or a text value")
            case (nil, nil):
                diagnostics.error(
                    .missingKey, "\(partWhat) has neither `file` nor `value`", at: name.range,
                    hint: "write `{ file: path }` for a file or `{ value: text }` for a field")
            }
        }
        return parts
    }
}
