import ReqPlanSyntax

/// Bodies, credentials and scripts of Postman requests.
extension PostmanReader {
    // MARK: - Bodies

    /// The body of `mode` `raw` (JSON as `json:`), `urlencoded`, `formdata`, `file` or `graphql`.
    mutating func body(of body: Value?, into step: inout ImportedStep, at range: SourceRange?) {
        guard let body, body["disabled"] != .bool(true), let mode = body["mode"]?.stringValue else { return }
        let contentType = step.header("content-type")?.literal?.lowercased()
        switch mode {
        case "raw":
            let raw = body["raw"].map(Self.scalarText) ?? ""
            guard !raw.isEmpty else { return }
            let language = body["options"]?["raw"]?["language"]?.stringValue ?? ""
            let isJSON = contentType.map { $0.contains("json") } ?? (language == "json")
            if isJSON, let value = JSONBody.value(of: text(raw)) {
                step.body = .json(value)
                step.headers.removeAll {
                    $0.name.lowercased() == "content-type" && $0.value.literal?.lowercased() == "application/json"
                }
                return
            }
            step.body = .raw(text(raw))
            let types = [
                "json": "application/json", "xml": "application/xml", "html": "text/html",
                "javascript": "application/javascript", "text": "text/plain",
            ]
            if contentType == nil {
                step.headers.append(Pair("Content-Type", PlanText(types[language] ?? "text/plain")))
            }
        case "urlencoded":
            step.body = .form(fields(body["urlencoded"]))
            step.headers.removeAll { $0.name.lowercased() == "content-type" }
        case "formdata":
            step.body = .multipart(parts(body["formdata"], at: range))
            step.headers.removeAll { $0.name.lowercased() == "content-type" }
        case "file":
            let path = body["file"]?["src"]?.stringValue ?? ""
            let input = plan.inputs.input(
                forSourceVariable: "file:" + path, value: path.isEmpty ? nil : path, secret: false,
                description: "the file the request sends")
            warning(
                .importOptionNotConverted, "the body of `\(step.method)` is a file, which the importer does not read",
                at: range, hint: "the plan sends the file named by the input `\(input)` as the body")
            step.body = .file(.reference(.input(input)))
        case "graphql":
            var members = [PlanValue.Member("query", .text(text(body["graphql"]?["query"]?.stringValue ?? "")))]
            let variables = body["graphql"]?["variables"]?.stringValue ?? ""
            if !variables.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                if let value = JSONBody.value(of: text(variables)) {
                    members.append(PlanValue.Member("variables", value))
                } else {
                    warning(
                        .importSettingNotConverted, "the GraphQL variables of `\(step.method)` are not JSON; left out",
                        at: range)
                    step.comments.append("not converted: GraphQL variables that are not JSON")
                }
            }
            step.body = .json(.object(members))
        default:
            warning(.importSettingNotConverted, "a body of mode `\(mode)` is not converted; left out", at: range)
            step.comments.append("not converted: a body of mode `\(mode)`")
        }
    }

    private mutating func fields(_ list: Value?) -> [Pair] {
        guard case .list(let fields)? = list else { return [] }
        return fields.compactMap { field in
            guard field["disabled"] != .bool(true), let key = field["key"]?.stringValue else { return nil }
            return Pair(key, text(field["value"].map(Self.scalarText) ?? ""))
        }
    }

    private mutating func parts(_ list: Value?, at range: SourceRange?) -> [MultipartPart] {
        guard case .list(let fields)? = list else { return [] }
        return fields.compactMap { field in
            guard field["disabled"] != .bool(true), let key = field["key"]?.stringValue else { return nil }
            let type = field["contentType"]?.stringValue
            guard field["type"]?.stringValue == "file" else {
                return MultipartPart(
                    name: key, value: text(field["value"].map(Self.scalarText) ?? ""), contentType: type)
            }
            var path = field["src"]?.stringValue
            if case .list(let paths)? = field["src"] {
                path = paths.first?.stringValue
                if paths.count > 1 {
                    warning(
                        .importSettingNotConverted,
                        "the part `\(key)` sends \(paths.count) files; the plan sends the first", at: range)
                }
            }
            let input = plan.inputs.input(
                forSourceVariable: "file:" + (path ?? key), value: path, secret: false,
                description: "the file of the part `\(key)`")
            let filename = path.map { String($0.split(separator: "/").last ?? "") }
            return MultipartPart(
                name: key, file: .reference(.input(input)), contentType: type,
                filename: filename?.isEmpty == false ? filename : nil)
        }
    }

    // MARK: - Credentials

    /// `auth:` of a request's (or its folder's, or the collection's) `auth`.
    mutating func auth(_ auth: Value?, into step: inout ImportedStep, at range: SourceRange?) {
        guard let auth, let type = auth["type"]?.stringValue, type != "noauth" else { return }
        var parameters: [String: String] = [:]
        switch auth[type] {
        case .list(let list)?:
            // v2.1: `[{key, value}]`.
            for parameter in list {
                if let key = parameter["key"]?.stringValue { parameters[key] = parameter["value"].map(Self.scalarText) }
            }
        case .object(let fields)?:
            // v2.0: `{key: value}`.
            for field in fields { parameters[field.key] = Self.scalarText(field.value) }
        default:
            break
        }
        let names = [
            "grant_type": "grant", "accessTokenUrl": "tokenURL", "authUrl": "authURL",
            "client_authentication": "clientAuth",
        ]
        var normalized: [String: String] = [:]
        for (key, value) in parameters { normalized[names[key] ?? key] = value }
        apply(CollectionAuth(kind: type, parameters: normalized), to: &step, at: range)
    }

    // MARK: - Scripts

    /// The comments that keep the text of `item`'s scripts, each warned of as not converted.
    mutating func scripts(of item: Value, what: String, at range: SourceRange? = nil) -> [String] {
        guard case .list(let events)? = item["event"] else { return [] }
        var comments: [String] = []
        for event in events where event["disabled"] != .bool(true) {
            let lines = Self.lines(of: event["script"]?["exec"])
            guard lines.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { continue }
            let listen = event["listen"]?.stringValue ?? "script"
            let kind =
                listen == "prerequest" ? "pre-request script" : listen == "test" ? "test script" : "`\(listen)` script"
            warning(
                .importSettingNotConverted,
                "the \(kind) of \(what) is not converted (\(lines.count) line\(lines.count == 1 ? "" : "s"))",
                at: range ?? locate(key: "event"),
                hint: listen == "test" ? "checks of the response are written as `expect:` (grammar.md §8)" : nil)
            comments.append("not converted: the \(kind) of \(what):")
            comments += Self.scriptComments(lines)
        }
        return comments
    }

    static func lines(of exec: Value?) -> [String] {
        switch exec {
        case .list(let lines)?:
            return lines.compactMap(\.stringValue).flatMap {
                $0.split(separator: "\n", omittingEmptySubsequences: false)
            }
            .map(String.init)
        case .string(let text)?: return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        default: return []
        }
    }

    /// Records the variables `item`'s test script sets from its response's JSON body, so that later requests
    /// read the step instead of an input: `pm.environment.set("id", pm.response.json().id)`, or through a
    /// variable given `pm.response.json()` or `JSON.parse(responseBody)`.
    mutating func captureVariables(set item: Value, by step: Int) {
        guard case .list(let events)? = item["event"] else { return }
        for event in events where event["listen"]?.stringValue == "test" && event["disabled"] != .bool(true) {
            var bodies: Set<String> = ["pm.response.json()", "JSON.parse(responseBody)"]
            for line in Self.lines(of: event["script"]?["exec"]) {
                let code = line.trimmingCharacters(in: .whitespaces)
                if let body = ScriptCapture.bodyVariable(code, bodies: bodies) { bodies.insert(body) }
                if let found = ScriptCapture.variableSet(code, bodies: bodies) {
                    recordCapture(found.name, step: step, path: found.path)
                }
            }
        }
    }
}

/// The few script lines whose meaning is plain: `var data = pm.response.json();` and
/// `pm.environment.set("id", data.items[0].id);` (also `pm.collectionVariables`, `pm.globals`, `pm.variables`,
/// `postman.setEnvironmentVariable`, `postman.setGlobalVariable`).
enum ScriptCapture {
    /// The name of a variable given the response's JSON body on this line.
    static func bodyVariable(_ line: String, bodies: Set<String>) -> String? {
        var rest = line[...]
        for keyword in ["var ", "let ", "const "] where rest.hasPrefix(keyword) { rest = rest.dropFirst(keyword.count) }
        guard let equals = rest.firstIndex(of: "=") else { return nil }
        let name = rest[..<equals].trimmingCharacters(in: .whitespaces)
        var value = rest[rest.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        if value.hasSuffix(";") { value.removeLast() }
        guard isIdentifier(name), bodies.contains(value) else { return nil }
        return name
    }

    /// The variable a line sets and the body path it reads (`body.items[0].id`).
    static func variableSet(_ line: String, bodies: Set<String>) -> (name: String, path: String)? {
        let setters = [
            "pm.environment.set(", "pm.collectionVariables.set(", "pm.globals.set(", "pm.variables.set(",
            "postman.setEnvironmentVariable(", "postman.setGlobalVariable(",
        ]
        guard let setter = setters.first(where: { line.hasPrefix($0) }) else { return nil }
        var rest = line.dropFirst(setter.count)
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        rest = rest.dropFirst()
        guard let end = rest.firstIndex(of: quote) else { return nil }
        let name = String(rest[..<end])
        rest = rest[rest.index(after: end)...].drop { $0 == " " }
        guard rest.first == "," else { return nil }
        var expression = rest.dropFirst().trimmingCharacters(in: .whitespaces)
        if expression.hasSuffix(";") { expression.removeLast() }
        guard expression.hasSuffix(")") else { return nil }
        expression.removeLast()
        guard let body = bodies.sorted(by: { $0.count > $1.count }).first(where: { expression.hasPrefix($0) }),
            let path = bodyPath(expression.dropFirst(body.count))
        else { return nil }
        return (name, "body" + path)
    }

    /// `.items[0].id` as the language writes it, or `nil` for anything else (a call, a computation).
    private static func bodyPath(_ text: Substring) -> String? {
        var path = ""
        var rest = text.trimmingCharacters(in: .whitespaces)[...]
        while let first = rest.first {
            if first == "." {
                let name = rest.dropFirst().prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                guard isIdentifier(String(name)) else { return nil }
                path += "." + name
                rest = rest.dropFirst(1 + name.count)
            } else if first == "[", let close = rest.firstIndex(of: "]") {
                let inside = rest[rest.index(after: rest.startIndex)..<close]
                if let index = Int(inside), index >= 0 {
                    path += "[\(index)]"
                } else if inside.count >= 2, let quote = inside.first, quote == "\"" || quote == "'",
                    inside.last == quote
                {
                    let key = inside.dropFirst().dropLast()
                    guard !key.contains("'"), !key.contains("\\") else { return nil }
                    path += "['\(key)']"
                } else {
                    return nil
                }
                rest = rest[rest.index(after: close)...]
            } else {
                return nil
            }
        }
        return path
    }

    private static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.properties.isAlphabetic && first.isASCII)
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || $0 == "_" || ("0"..."9").contains($0))
        }
    }
}
