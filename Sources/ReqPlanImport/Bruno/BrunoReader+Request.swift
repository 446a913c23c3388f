import ReqPlanSyntax

/// Requests of a Bruno collection: URL and parameters, headers, bodies, credentials, asserts and scripts.
extension BrunoReader {
    private static let methods = ["get", "post", "put", "delete", "patch", "options", "head", "trace", "connect"]

    /// The step of a request file, with the headers and auth of its folders (`inherited`, the collection's
    /// first) where it has none of its own.
    mutating func request(_ file: BruFile, source: SourceFile, inherited: [BruFile]) -> ImportedStep? {
        let name = file.block("meta")?["name"] ?? String(source.path.split(separator: "/").last ?? "")
        guard let block = file.blocks.first(where: { Self.methods.contains($0.name) }) else {
            let meta = file.block("meta")
            warning(
                .importOptionNotConverted,
                "`\(name)` has no HTTP request (a gRPC or WebSocket one is not read); left out",
                at: SourceRange(at: SourceLocation(line: meta?.line ?? 1, column: meta?.column ?? 1)), hint: nil)
            return nil
        }
        let range = SourceRange(at: SourceLocation(line: block.line, column: block.column))
        let method = block.name.uppercased()
        guard CurlCommand.methods.contains(method) else {
            warning(
                .importOptionNotConverted, "the method `\(method)` of `\(name)` is not one a plan sends; left out",
                at: range, hint: nil)
            return nil
        }
        addVariables(file, origin: "`\(name)`")
        var raw = block["url"] ?? ""
        guard hasURL(raw, of: name, at: range) else { return nil }
        let mark = raw.firstIndex(of: "?")
        var query: [Pair] = []
        if let queryBlock = file.block("params:query") {
            for entry in queryBlock.entries where entry.enabled {
                query.append(Pair(entry.key, text(entry.value, secret: false)))
            }
        } else if let mark {
            query = FormFields.pairs(of: PlanText(String(raw[raw.index(after: mark)...]))).map {
                Pair($0.name, text($0.value.literal ?? "", secret: false))
            }
        }
        if let mark { raw = String(raw[..<mark]) }
        for entry in file.block("params:path")?.entries ?? [] where entry.enabled {
            raw = raw.split(separator: "/", omittingEmptySubsequences: false).map {
                $0 == ":" + entry.key ? entry.value : String($0)
            }.joined(separator: "/")
        }
        if !raw.hasPrefix("{{") && !raw.contains("://") { raw = "http://" + raw }
        var step = ImportedStep(method: method, url: text(raw, secret: false))
        step.name = name
        step.query = query
        for settings in inherited + [file] {
            for entry in settings.block("headers")?.entries ?? [] where entry.enabled {
                step.headers.removeAll { $0.name.lowercased() == entry.key.lowercased() }
                step.headers.append(Pair(entry.key, text(entry.value, secret: false)))
            }
        }
        body(file, mode: block["body"] ?? "none", into: &step, at: range)
        auth(of: file, mode: block["auth"] ?? "none", inherited: inherited, into: &step, at: range)
        if file.block("settings")?["followRedirects"] == "false" { step.followRedirects = false }
        expect(file.block("assert"), into: &step)
        step.comments += scripts(of: file, what: "`\(name)`")
        return step
    }

    // MARK: - Bodies

    private mutating func body(_ file: BruFile, mode: String, into step: inout ImportedStep, at range: SourceRange) {
        let contentType = step.header("content-type")?.literal?.lowercased()
        switch mode {
        case "none": return
        case "json":
            let raw = file.block("body:json")?.text ?? ""
            if let value = JSONBody.value(of: text(raw, secret: false)) {
                step.body = .json(value)
                if contentType == "application/json" {
                    step.headers.removeAll { $0.name.lowercased() == "content-type" }
                }
            } else if !raw.isEmpty {
                step.body = .raw(text(raw, secret: false))
                if contentType == nil { step.headers.append(Pair("Content-Type", PlanText("application/json"))) }
            }
        case "text", "xml", "sparql":
            let raw = file.block("body:\(mode)")?.text ?? ""
            guard !raw.isEmpty else { return }
            step.body = .raw(text(raw, secret: false))
            let types = ["text": "text/plain", "xml": "application/xml", "sparql": "application/sparql-query"]
            if contentType == nil { step.headers.append(Pair("Content-Type", PlanText(types[mode] ?? "text/plain"))) }
        case "formUrlEncoded":
            var fields: [Pair] = []
            for entry in file.block("body:form-urlencoded")?.entries ?? [] where entry.enabled {
                fields.append(Pair(entry.key, text(entry.value, secret: false)))
            }
            step.body = .form(fields)
            step.headers.removeAll { $0.name.lowercased() == "content-type" }
        case "multipartForm":
            var parts: [MultipartPart] = []
            for entry in file.block("body:multipart-form")?.entries ?? [] where entry.enabled {
                var value = entry.value
                var type: String?
                if let at = value.range(of: " @contentType("), value.hasSuffix(")") {
                    type = String(value[at.upperBound...].dropLast())
                    value = String(value[..<at.lowerBound])
                }
                if value.hasPrefix("@file("), value.hasSuffix(")") {
                    let path = String(value.dropFirst(6).dropLast()).split(separator: "|").first.map(String.init) ?? ""
                    let input = plan.inputs.input(
                        forSourceVariable: "file:" + path, value: path, secret: false,
                        description: "the file of the part `\(entry.key)`, relative to the collection")
                    parts.append(MultipartPart(name: entry.key, file: .reference(.input(input)), contentType: type))
                } else {
                    parts.append(MultipartPart(name: entry.key, value: text(value, secret: false), contentType: type))
                }
            }
            step.body = .multipart(parts)
            step.headers.removeAll { $0.name.lowercased() == "content-type" }
        case "graphql":
            var members = [
                PlanValue.Member("query", .text(text(file.block("body:graphql")?.text ?? "", secret: false)))
            ]
            let variables = file.block("body:graphql:vars")?.text ?? ""
            if let value = JSONBody.value(of: text(variables, secret: false)) {
                members.append(PlanValue.Member("variables", value))
            }
            step.body = .json(.object(members))
        default:
            warning(
                .importSettingNotConverted, "a body of mode `\(mode)` is not converted; left out", at: range, hint: nil)
            step.comments.append("not converted: a body of mode `\(mode)`")
        }
    }

    // MARK: - Credentials

    private mutating func auth(
        of file: BruFile, mode: String, inherited: [BruFile], into step: inout ImportedStep, at range: SourceRange
    ) {
        var mode = mode
        var source = file
        // `inherit`: the nearest folder's `auth { mode }`, else the collection's.
        for settings in inherited.reversed() where mode == "inherit" {
            if let own = settings.block("auth")?["mode"], own != "inherit" {
                mode = own
                source = settings
            }
        }
        guard mode != "none", mode != "inherit" else { return }
        let block = source.block("auth:\(mode)")
        var parameters: [String: String] = [:]
        for entry in block?.entries ?? [] where entry.enabled { parameters[entry.key] = entry.value }
        let names = [
            "accessKeyId": "accessKey", "secretAccessKey": "secretKey", "placement": "in", "grant_type": "grant",
            "access_token_url": "tokenURL", "authorization_url": "authURL", "client_id": "clientId",
            "client_secret": "clientSecret", "credentials_placement": "clientAuth",
        ]
        var normalized: [String: String] = [:]
        for (key, value) in parameters { normalized[names[key] ?? key] = value }
        if normalized["in"] == "queryparams" { normalized["in"] = "query" }
        if normalized["grant"] == "password" { normalized["grant"] = "password" }
        apply(CollectionAuth(kind: mode, parameters: normalized), to: &step, at: range)
    }

    // MARK: - Asserts and scripts

    /// `assert` lines as `expect:` (`res.status: eq 200`, `res.body.id: isNumber`, `res.headers.x: contains y`);
    /// an operator or a path the language has no matcher for is warned of and kept as a comment.
    private mutating func expect(_ block: BruFile.Block?, into step: inout ImportedStep) {
        for entry in block?.entries ?? [] where entry.enabled {
            let words = entry.value.split(separator: " ", maxSplits: 1).map(String.init)
            let known = ["eq", "contains", "matches", "length", "startsWith", "endsWith"]
            let (operation, operand) =
                known.contains(words.first ?? "") || (words.first?.hasPrefix("is") ?? false)
                ? (words.first ?? "", words.count > 1 ? words[1] : "") : ("eq", entry.value)
            let path = Self.resultPath(entry.key)
            guard let path, let matcher = Self.matcher(operation, operand) else {
                warning(
                    .importSettingNotConverted,
                    "the assert `\(entry.key): \(entry.value.prefix(80))` has no matcher in a plan; not converted",
                    at: SourceRange(at: SourceLocation(line: entry.line, column: entry.column)),
                    hint: "`expect:` has equals, exists, matches, type, contains and length (grammar.md §8.1)")
                step.comments.append("not converted: the assert `\(entry.key): \(entry.value)`")
                continue
            }
            let added = step.expect.add(matcher, atResult: path)
            if !added {
                warning(
                    .importSettingNotConverted,
                    "the assert `\(entry.key): \(entry.value.prefix(80))` repeats a check of the same value; not converted",
                    at: SourceRange(at: SourceLocation(line: entry.line, column: entry.column)), hint: nil)
                step.comments.append("not converted: the assert `\(entry.key): \(entry.value)`")
            }
        }
    }

    /// The matcher of an assert's operator and operand, if the language has it.
    private static func matcher(_ operation: String, _ operand: String) -> ImportedMatcher? {
        let value = literal(operand)
        switch operation {
        case "eq": return .equals(value)
        case "contains": return .checks([PlanValue.Member("contains", value)])
        case "matches": return .checks([PlanValue.Member("matches", .text(PlanText(operand)))])
        case "length":
            guard case .number = value else { return nil }
            return .checks([PlanValue.Member("length", value)])
        case "startsWith", "endsWith":
            guard case .text(let text) = value, let literal = text.literal else { return nil }
            let escaped = NSRegularExpressionEscape.escape(literal)
            return .checks([
                PlanValue.Member("matches", .text(PlanText(operation == "startsWith" ? "^" + escaped : escaped + "$")))
            ])
        case "isNull": return .equals(.null)
        case "isDefined": return .checks([PlanValue.Member("exists", .bool(true))])
        case "isUndefined": return .checks([PlanValue.Member("exists", .bool(false))])
        case "isNumber", "isString", "isBoolean", "isArray":
            let types = ["isNumber": "number", "isString": "string", "isBoolean": "boolean", "isArray": "list"]
            return .checks([PlanValue.Member("type", .text(PlanText(types[operation] ?? "string")))])
        default: return nil
        }
    }

    /// An operand as Bruno reads it: quoted text, a number, `true`, `false`, `null`, else text.
    private static func literal(_ operand: String) -> PlanValue {
        let text = operand.trimmingCharacters(in: .whitespaces)
        if text.count >= 2, let first = text.first, first == "'" || first == "\"", text.last == first {
            return .text(PlanText(String(text.dropFirst().dropLast())))
        }
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default:
            if let number = try? Value.parseJSON(text), number.doubleValue != nil, !text.hasPrefix("0") || text == "0" {
                return PlanValue(number)
            }
            return .text(PlanText(text))
        }
    }

    /// The comments that keep a file's scripts and tests, each warned of as not converted.
    mutating func scripts(of file: BruFile, what: String) -> [String] {
        var comments: [String] = []
        for block in file.blocks where block.name.hasPrefix("script:") || block.name == "tests" {
            let lines = block.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard lines.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { continue }
            let kind = block.name == "tests" ? "tests" : "`\(block.name)`"
            warning(
                .importSettingNotConverted,
                "the \(kind) of \(what) \(block.name == "tests" ? "are" : "is") not converted",
                at: SourceRange(at: SourceLocation(line: block.line, column: block.column)),
                hint: block.name == "tests" ? "checks of the response are written as `expect:` (grammar.md §8)" : nil)
            comments.append("not converted: the \(kind) of \(what):")
            comments += Self.scriptComments(lines)
        }
        return comments
    }
}

/// Regular-expression metacharacters escaped, so a literal matches itself.
enum NSRegularExpressionEscape {
    static func escape(_ text: String) -> String {
        var output = ""
        for character in text {
            if "\\^$.|?*+()[]{}".contains(character) { output.append("\\") }
            output.append(character)
        }
        return output
    }
}
