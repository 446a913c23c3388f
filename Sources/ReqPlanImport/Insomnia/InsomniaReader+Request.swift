import Foundation
import ReqPlanSyntax

/// Requests of an Insomnia export: URL and parameters, headers, bodies, credentials, scripts, and the
/// `{% %}` template tags (a `{% response %}` of an earlier request is data flow).
extension InsomniaReader: CollectionReading {
    var tool: String { "Insomnia" }

    mutating func warning(_ code: DiagnosticCode, _ message: String, at range: SourceRange?, hint: String?) {
        diagnostics.warning(code, message, at: range, hint: hint)
    }

    /// The step of a `request` resource, with the auth of its folders when it has none of its own.
    mutating func request(_ resource: Value, inherited: Value?) -> ImportedStep? {
        let name = resource["name"]?.stringValue ?? ""
        let range = located(resource["_id"])
        let method = (resource["method"]?.stringValue ?? "GET").uppercased()
        guard CurlCommand.methods.contains(method) else {
            diagnostics.warning(
                .importOptionNotConverted,
                "the method `\(method)` of `\(name)` is not one a plan sends; the request is left out", at: range)
            return nil
        }
        var raw = resource["url"]?.stringValue ?? ""
        guard hasURL(raw, of: name, at: range) else { return nil }
        var query: [Pair] = []
        if let mark = raw.firstIndex(of: "?"), !raw[mark...].contains("{%") {
            query = FormFields.pairs(of: PlanText(String(raw[raw.index(after: mark)...]))).map {
                Pair($0.name, text($0.value.literal ?? "", secret: false))
            }
            raw = String(raw[..<mark])
        }
        if !raw.hasPrefix("{{") && !raw.hasPrefix("{%") && !raw.contains("://") { raw = "http://" + raw }
        var step = ImportedStep(method: method, url: text(raw, secret: false))
        step.query = query + pairs(resource["parameters"])
        step.headers = pairs(resource["headers"])
        body(resource["body"], into: &step, at: range)
        if let auth = resource["authentication"].flatMap({ $0["type"]?.stringValue == nil ? nil : $0 }) ?? inherited {
            self.auth(auth, into: &step, at: range)
        }
        if resource["settingFollowRedirects"]?.stringValue == "off" { step.followRedirects = false }
        return step
    }

    private mutating func pairs(_ list: Value?) -> [Pair] {
        guard case .list(let items)? = list else { return [] }
        var pairs: [Pair] = []
        for item in items where item["disabled"] != .bool(true) {
            guard let name = item["name"]?.stringValue, !name.isEmpty else { continue }
            pairs.append(Pair(name, text(item["value"].map(PostmanReader.scalarText) ?? "", secret: false)))
        }
        return pairs
    }

    private mutating func body(_ body: Value?, into step: inout ImportedStep, at range: SourceRange?) {
        guard let body else { return }
        let mimeType = (body["mimeType"]?.stringValue ?? "").lowercased()
        let text = body["text"]?.stringValue ?? ""
        if mimeType == "application/x-www-form-urlencoded" {
            step.body = .form(pairs(body["params"]))
        } else if mimeType.hasPrefix("multipart/form-data"), case .list(let params)? = body["params"] {
            var parts: [MultipartPart] = []
            for param in params where param["disabled"] != .bool(true) {
                guard let name = param["name"]?.stringValue else { continue }
                if param["type"]?.stringValue == "file" {
                    let path = param["fileName"]?.stringValue ?? ""
                    let input = plan.inputs.input(
                        forSourceVariable: "file:" + path, value: path.isEmpty ? nil : path, secret: false,
                        description: "the file of the part `\(name)`")
                    parts.append(MultipartPart(name: name, file: .reference(.input(input))))
                } else {
                    parts.append(
                        MultipartPart(name: name, value: self.text(param["value"]?.stringValue ?? "", secret: false)))
                }
            }
            step.body = .multipart(parts)
        } else if mimeType == "application/graphql" {
            // Insomnia keeps a GraphQL body as the JSON it sends: `{"query": …, "variables": …}`.
            step.body =
                JSONBody.value(of: self.text(text, secret: false)).map(ImportedBody.json)
                ?? .raw(self.text(text, secret: false))
            step.headers.removeAll { $0.name.lowercased() == "content-type" }
        } else if let file = body["fileName"]?.stringValue {
            let input = plan.inputs.input(
                forSourceVariable: "file:" + file, value: file, secret: false, description: "the file the request sends"
            )
            diagnostics.warning(
                .importOptionNotConverted, "the body of `\(step.method)` is a file, which the importer does not read",
                at: range, hint: "the plan sends the file named by the input `\(input)` as the body")
            step.body = .file(.reference(.input(input)))
        } else if !text.isEmpty {
            if mimeType.contains("json"), let value = JSONBody.value(of: self.text(text, secret: false)) {
                step.body = .json(value)
                if mimeType == "application/json" {
                    step.headers.removeAll {
                        $0.name.lowercased() == "content-type" && $0.value.literal?.lowercased() == "application/json"
                    }
                }
            } else {
                step.body = .raw(self.text(text, secret: false))
                if step.header("content-type") == nil, !mimeType.isEmpty {
                    step.headers.append(Pair("Content-Type", PlanText(mimeType)))
                }
            }
        }
        if case .form? = step.body { step.headers.removeAll { $0.name.lowercased() == "content-type" } }
        if case .multipart? = step.body { step.headers.removeAll { $0.name.lowercased() == "content-type" } }
    }

    private mutating func auth(_ auth: Value, into step: inout ImportedStep, at range: SourceRange?) {
        guard auth["disabled"] != .bool(true), let type = auth["type"]?.stringValue, type != "none" else { return }
        var parameters: [String: String] = [:]
        if case .object(let fields) = auth {
            for field in fields { parameters[field.key] = PostmanReader.scalarText(field.value) }
        }
        let names = [
            "grantType": "grant", "accessTokenUrl": "tokenURL", "authorizationUrl": "authURL",
            "accessKeyId": "accessKey",
            "secretAccessKey": "secretKey", "addTo": "in",
        ]
        var normalized: [String: String] = [:]
        for (key, value) in parameters { normalized[names[key] ?? key] = value }
        if normalized["in"] == "queryParams" { normalized["in"] = "query" }
        if normalized["credentialsInBody"] == "true" { normalized["clientAuth"] = "body" }
        if type == "bearer", let prefix = normalized["prefix"], !prefix.isEmpty, prefix.lowercased() != "bearer" {
            // Another scheme than `Bearer`: the header as Insomnia sends it.
            step.headers.append(
                Pair(
                    "Authorization",
                    PlanText(prefix + " ") + credential(normalized["token"], named: "token", secret: true)))
            return
        }
        apply(CollectionAuth(kind: type == "iam" ? "awsv4" : type, parameters: normalized), to: &step, at: range)
    }

    // MARK: - Scripts

    /// The comments that keep a request's or folder's scripts, each warned of as not converted.
    mutating func scripts(of resource: Value, what: String) -> [String] {
        var comments: [String] = []
        for (key, kind) in [
            ("preRequestScript", "pre-request script"), ("afterResponseScript", "after-response script"),
        ] {
            let lines = PostmanReader.lines(of: resource[key])
            guard lines.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { continue }
            diagnostics.warning(
                .importSettingNotConverted,
                "the \(kind) of \(what) is not converted (\(lines.count) line\(lines.count == 1 ? "" : "s"))",
                at: located(resource["_id"]),
                hint: key == "afterResponseScript"
                    ? "checks of the response are written as `expect:` (grammar.md §8)" : nil)
            comments.append("not converted: the \(kind) of \(what):")
            comments += Self.scriptComments(lines)
        }
        return comments
    }

    // MARK: - Template tags

    /// `text` with `{{ _.name }}` variables as references and `{% … %}` tags: a `{% response %}` of an
    /// earlier request a reference to that step, any other tag an input (warned of).
    mutating func text(_ text: String, secret: Bool) -> PlanText {
        guard text.contains("{%") else { return variables.text(text, secret: secret, plan: &plan) }
        var result = PlanText("")
        var rest = text[...]
        while let open = rest.range(of: "{%"), let close = rest[open.upperBound...].range(of: "%}") {
            result = result + variables.text(String(rest[..<open.lowerBound]), secret: secret, plan: &plan)
            let tag = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            result = result + .reference(reference(ofTag: tag))
            rest = rest[close.upperBound...]
        }
        return result + variables.text(String(rest), secret: secret, plan: &plan)
    }

    private mutating func reference(ofTag tag: String) -> Reference {
        let words = Self.arguments(of: tag)
        if words.first == "response", words.count >= 4, let step = stepOfRequest[words[2]],
            let path = Self.resultPath(field: words[1], filter: words[3])
        {
            var prefix = ImportedPlan(origin: "", steps: Array(plan.steps[...step]))
            StepNaming.name(&prefix)
            return .step(prefix.steps[step].id, path)
        }
        let name = words.first ?? "tag"
        diagnostics.warning(
            .importSettingNotConverted, "the template tag `{% \(tag.prefix(80)) %}` is not converted; it is an input",
            at: located("{%"), hint: "give its value with `--input`")
        return .input(
            plan.inputs.input(
                forSourceVariable: "{%" + tag, value: nil, secret: false,
                description: "the value of Insomnia's `\(name)` tag"))
    }

    /// `response 'body', 'req_1', 'b64::JC5pZA==::46b'` as its words, quotes removed.
    private static func arguments(of tag: String) -> [String] {
        QuotedWords(quotes: ["'", "\""], separators: [" ", ","], keepingQuotes: false).split(tag)
    }

    /// The result path a `{% response %}` reads: `body` with a simple JSONPath (`$.id`, `$.items[0].id`), or
    /// a `header` by name.
    private static func resultPath(field: String, filter: String) -> String? {
        var filter = filter
        if filter.hasPrefix("b64::") {
            let parts = filter.split(separator: ":", omittingEmptySubsequences: true)
            guard parts.count >= 2, let data = Data(base64Encoded: String(parts[1])),
                let decoded = String(data: data, encoding: .utf8)
            else { return nil }
            filter = decoded
        }
        switch field {
        case "header":
            guard !filter.isEmpty, filter.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                return nil
            }
            return "headers.\(filter.lowercased())"
        case "body":
            guard filter.hasPrefix("$"), filter.count <= 200 else { return nil }
            let path = filter.dropFirst()
            let allowed = path.allSatisfy { $0.isLetter || $0.isNumber || "._[]".contains($0) }
            guard allowed, !path.contains(".."), path.isEmpty || path.hasPrefix(".") || path.hasPrefix("[") else {
                return nil
            }
            return "body" + path
        default:
            return nil
        }
    }
}
