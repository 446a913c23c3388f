import Foundation
import ReqPlanSyntax

/// The parts of a Hurl entry: request headers and sections, the body, the response's status, headers,
/// captures and asserts.
extension HurlReader {
    /// Reads one entry whose request line is `line`.
    mutating func readEntry(method: String, url: String, line: Int) {
        var step = ImportedStep(method: method, url: PlanText(""))
        var raw = url
        if !raw.hasPrefix("{{") && !raw.contains("://") { raw = "http://" + raw }
        if let mark = raw.firstIndex(of: "?") {
            step.query = FormFields.pairs(of: PlanText(String(raw[raw.index(after: mark)...]))).map {
                Pair($0.name, text($0.value.literal ?? "", secret: false))
            }
            raw = String(raw[..<mark])
        }
        step.url = text(raw, secret: false)
        step.followRedirects = false
        var section = "request"
        var inResponse = false
        var captures: [(name: String, query: String, line: Int)] = []
        while index < lines.count {
            let code = Self.code(lines[index])
            if Self.requestLine(code) != nil { break }
            index += 1
            let number = index
            if code.isEmpty { continue }
            if code.hasPrefix("HTTP") {
                inResponse = true
                section = "response"
                status(code, into: &step, at: number)
                continue
            }
            if code.hasPrefix("[") && code.hasSuffix("]") {
                section = String(code.dropFirst().dropLast())
                continue
            }
            // A body may follow any section: no capture or assert starts as a body does.
            if let body = bodyStart(code) {
                readBody(body, response: inResponse, into: &step, at: number)
                if inResponse { section = "response body" }
                continue
            }
            let (key, value) = Self.keyValue(code)
            switch section {
            case "request":
                if code.hasSuffix(";"), !code.contains(":") {
                    step.headers.append(Pair(String(code.dropLast()), PlanText("")))
                } else {
                    step.headers.append(Pair(key, text(value, secret: false)))
                }
            case "response":
                if !step.expect.add(.equals(.text(text(value, secret: false))), at: key, header: true) {
                    warning(
                        .importSettingNotConverted, "the header `\(key)` is checked twice; the second is not converted",
                        at: place(number), hint: nil)
                }
            case "QueryStringParams", "Query": step.query.append(Pair(key, text(value, secret: false)))
            case "FormParams", "Form":
                var fields: [Pair] = []
                if case .form(let existing)? = step.body { fields = existing }
                step.body = .form(fields + [Pair(key, text(value, secret: false))])
            case "MultipartFormData", "Multipart": multipart(key, value, into: &step)
            case "Cookies":
                let cookie = key + "=" + value
                if let index = step.headers.firstIndex(where: { $0.name == "Cookie" }) {
                    step.headers[index].value = step.headers[index].value + PlanText("; ") + text(cookie, secret: false)
                } else {
                    step.headers.append(Pair("Cookie", text(cookie, secret: false)))
                }
            case "BasicAuth":
                step.auth = .basic(
                    username: credential(key, named: "username", secret: false),
                    password: credential(value, named: "password", secret: true))
            case "Options": option(key, value, into: &step, at: number)
            case "Captures": captures.append((key, value, number))
            case "Asserts":
                if let name = captures.first(where: { code.contains("{{\($0.name)}}") })?.name {
                    // A step cannot read its own result in its `expect:`.
                    warning(
                        .importSettingNotConverted,
                        "the assert `\(code.prefix(80))` reads `\(name)`, captured by the same request; not converted",
                        at: place(number), hint: nil)
                    step.comments.append("not converted: the assert `\(code)`")
                } else {
                    assert(code, into: &step, at: number)
                }
            default:
                warning(
                    .importSettingNotConverted, "the section `[\(section)]` is not converted", at: place(number),
                    hint: nil)
                step.comments.append("not converted: `\(code.prefix(120))` of `[\(section)]`")
            }
        }
        step.comments.insert("\(method) \(url.prefix(200)) (line \(line) of `\(source.path)`)", at: 0)
        // Hurl sends any method in capitals (`PROPFIND`); a plan, those of grammar.md §6.1.
        guard CurlCommand.methods.contains(method) else {
            warning(
                .importOptionNotConverted, "the method `\(method)` is not one a plan sends; the request is left out",
                at: place(line), hint: "a plan sends " + CurlCommand.methods.sorted().joined(separator: ", "))
            return
        }
        plan.steps.append(step)
        for capture in captures {
            self.capture(capture.name, capture.query, step: plan.steps.count - 1, at: capture.line)
        }
    }

    static func keyValue(_ line: String) -> (String, String) {
        guard let colon = line.firstIndex(of: ":") else { return (line, "") }
        var key = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
        if key.hasPrefix("\""), key.hasSuffix("\""), key.count >= 2 { key = String(key.dropFirst().dropLast()) }
        return (key, String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
    }

    private mutating func status(_ line: String, into step: inout ImportedStep, at number: Int) {
        let words = line.split(separator: " ")
        guard words.count >= 2 else { return }
        if let status = Int(words[1]), (100...599).contains(status) {
            step.expect.status = [status]
        } else {
            warning(
                .importSettingNotConverted, "`\(line)` is not converted: the plan expects its default status (`2xx`)",
                at: place(number), hint: "write the statuses the step may answer with in `expect.status`")
            step.comments.append("not converted: `\(line)` (any status)")
        }
    }

    // MARK: - Bodies

    /// The kind of body a line starts: `json`, `text` (```` ``` ```` or `` ` ``), `bytes`, `file`, `xml`.
    private func bodyStart(_ line: String) -> String? {
        // `{{name}}: value` is a header whose name is a variable, not a JSON body.
        if (line.hasPrefix("{") && !line.hasPrefix("{{")) || (line.hasPrefix("[") && !line.hasSuffix("]"))
            || line == "["
        {
            return "json"
        }
        if line.hasPrefix("```") || line.hasPrefix("`") { return "text" }
        if line.hasPrefix("file,") { return "file" }
        if line.hasPrefix("base64,") || line.hasPrefix("hex,") { return "bytes" }
        if line.hasPrefix("<") { return "xml" }
        return nil
    }

    private mutating func readBody(_ kind: String, response: Bool, into step: inout ImportedStep, at number: Int) {
        var text = lines[index - 1]
        if kind == "json" || kind == "xml" {
            // The body runs to the line before the status line, the next section or request.
            while index < lines.count {
                let next = lines[index].trimmingCharacters(in: .whitespaces)
                if next.hasPrefix("HTTP") || Self.requestLine(next) != nil
                    || (next.hasPrefix("[") && next.hasSuffix("]") && !next.contains(",") && next.count > 2)
                {
                    break
                }
                text += "\n" + lines[index]
                index += 1
            }
            text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        } else if kind == "text", text.hasPrefix("```") {
            let language = text.trimmingCharacters(in: .whitespaces).dropFirst(3)
            var body: [String] = []
            while index < lines.count, !lines[index].trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                body.append(lines[index])
                index += 1
            }
            index += 1
            text = body.joined(separator: "\n") + (body.isEmpty ? "" : "\n")
            if language == "graphql", !response {
                step.body = .json(graphQL(body))
                return
            }
        } else if kind == "text" {
            text = String(text.trimmingCharacters(in: .whitespaces).dropFirst().dropLast())
        }
        guard !response else {
            warning(
                .importSettingNotConverted, "a response body to compare with is not converted", at: place(number),
                hint: "`expect.body` checks values of a JSON body (grammar.md §8)")
            step.comments.append("not converted: the response body compared with")
            return
        }
        switch kind {
        case "json":
            if let value = JSONBody.value(of: self.text(text, secret: false)) {
                step.body = .json(value)
            } else {
                step.body = .raw(self.text(text, secret: false))
                step.headers.append(Pair("Content-Type", PlanText("application/json")))
            }
        case "file":
            let path = String(text.dropFirst(5)).trimmingCharacters(in: CharacterSet(charactersIn: "; "))
            let input = plan.inputs.input(
                forSourceVariable: "file:" + path, value: path, secret: false, description: "the file the request sends"
            )
            warning(
                .importOptionNotConverted, "the body of `\(step.method)` is a file, which the importer does not read",
                at: place(number), hint: "the plan sends the file named by the input `\(input)` as the body")
            step.body = .file(.reference(.input(input)))
        case "bytes":
            warning(
                .importSettingNotConverted, "a body of bytes (`base64,`, `hex,`) is not converted", at: place(number),
                hint: "save the bytes to a file and send it with `body_file:`")
            step.comments.append("not converted: a body of bytes")
        default:
            step.body = .raw(self.text(text, secret: false))
        }
    }

    /// A ```` ```graphql ```` body as Hurl sends it: `{"query": …, "variables": …}` (its `variables { … }` block).
    private mutating func graphQL(_ lines: [String]) -> PlanValue {
        var query = lines
        var members: [PlanValue.Member] = []
        if let start = lines.lastIndex(where: { $0.hasPrefix("variables") && $0.hasSuffix("{") }) {
            let json = (["{"] + lines[(start + 1)...]).joined(separator: "\n")
            if let value = JSONBody.value(of: text(json, secret: false)) {
                members.append(PlanValue.Member("variables", value))
                query = Array(lines[..<start])
            }
        }
        let text = query.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        return .object([PlanValue.Member("query", .text(self.text(text, secret: false)))] + members)
    }

    private mutating func multipart(_ key: String, _ value: String, into step: inout ImportedStep) {
        var parts: [MultipartPart] = []
        if case .multipart(let existing)? = step.body { parts = existing }
        if value.hasPrefix("file,") {
            let fields = value.dropFirst(5).split(separator: ";", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            let path = fields.first ?? ""
            let input = plan.inputs.input(
                forSourceVariable: "file:" + path, value: path, secret: false,
                description: "the file of the part `\(key)`")
            let type = fields.count > 1 && !fields[1].isEmpty ? fields[1] : nil
            parts.append(MultipartPart(name: key, file: .reference(.input(input)), contentType: type))
        } else {
            parts.append(MultipartPart(name: key, value: text(value, secret: false)))
        }
        step.body = .multipart(parts)
    }

    private mutating func option(_ key: String, _ value: String, into step: inout ImportedStep, at number: Int) {
        switch key {
        case "location", "follow-redirects": step.followRedirects = value == "true" ? nil : false
        case "user":
            // `--user name:password`, as curl takes it.
            let parts = value.split(separator: ":", maxSplits: 1).map(String.init)
            step.auth = .basic(
                username: credential(parts.first ?? "", named: "username", secret: false),
                password: credential(parts.count > 1 ? parts[1] : "", named: "password", secret: true))
        case "variable":
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            variables.values[parts.first ?? value] = TemplateVariables.Variable(
                value: parts.count > 1 ? parts[1] : "", secret: false, origin: "`[Options]` of line \(number)")
        default:
            warning(.importSettingNotConverted, "the option `\(key)` is not converted", at: place(number), hint: nil)
            step.comments.append("not converted: the option `\(key): \(value)`")
        }
    }
}
