import ReqPlanSyntax

/// Reads Postman collections (v2.0 and v2.1) and environments into one plan, in the collection's order.
///
/// An environment (or globals) file, `values` of `key`/`value` pairs, gives the values of the `{{name}}`
/// variables the collections read; it wins over a collection's own `variable` list, as in Postman. Folders
/// are walked depth first, in order, so each request is one step after the one the runner sent before it.
/// Each `{{name}}` is an input (its value the default, unless it is a secret); a variable a test script sets
/// from the response (`pm.environment.set("id", pm.response.json().id)`) is a reference to that step's
/// body instead. Scripts are not converted: their text is kept as comments above the step.
struct PostmanReader: CollectionReading {
    private(set) var diagnostics: [Diagnostic] = []
    /// The requests read and the inputs they read (the bodies and credentials of the extension write to it).
    var plan: ImportedPlan
    /// The values of the environment files, which win over a collection's variables.
    private var environment: [String: TemplateVariables.Variable] = [:]
    /// The variables of the collection being read.
    private var variables = TemplateVariables()
    private var collector = DiagnosticCollector(file: nil)
    private var source = SourceFile(path: "", text: "")
    /// Where the search for the next item's name starts.
    private var cursor = SourceFile(path: "", text: "").start

    init(inputs: InputTable) {
        plan = ImportedPlan(origin: "", inputs: inputs)
    }

    /// Reads the environments among `sources`, then each collection.
    mutating func read(_ sources: [SourceFile]) {
        var collections: [(SourceFile, Value)] = []
        for source in sources {
            begin(source)
            guard let root = parse(source) else {
                finish()
                continue
            }
            if root["item"] == nil, case .list(let values)? = root["values"] {
                for value in values {
                    guard let key = value["key"]?.stringValue, value["enabled"] != .bool(false),
                        value["disabled"] != .bool(true)
                    else { continue }
                    environment[key] = TemplateVariables.Variable(
                        value: value["value"].map(Self.scalarText) ?? "",
                        secret: value["type"]?.stringValue == "secret",
                        origin: "the environment `\(root["name"]?.stringValue ?? source.path)`")
                }
            } else {
                collections.append((source, root))
            }
            finish()
        }
        for (source, root) in collections {
            begin(source)
            readCollection(root)
            finish()
        }
    }

    // MARK: - Collections

    private mutating func readCollection(_ root: Value) {
        if root["item"] == nil, root["requests"] != nil || root["order"] != nil {
            collector.error(
                .importSourceMalformed, "`\(source.path)` is a Postman Collection v1, which is not read",
                at: locate(key: "requests"),
                hint: "export the collection again as v2.1 (Postman: Export → Collection v2.1)")
            return
        }
        guard case .list(let items)? = root["item"] else {
            collector.error(
                .importSourceMalformed, "`\(source.path)` is not a Postman collection: it has no `item` list",
                at: SourceRange(at: SourceLocation(line: 1, column: 1)),
                hint: "a collection is the JSON Postman exports (Export → Collection v2.1)")
            return
        }
        variables = TemplateVariables()
        readVariables(root["variable"], origin: "the collection's variables")
        variables.values.merge(environment) { $1 }
        plan.origin = source.path
        if let name = root["info"]?["name"]?.stringValue { plan.notes.append("Postman collection `\(name)`") }
        let collectionScripts = scripts(of: root, what: "the collection")
        plan.notes += collectionScripts
        // Depth first, in order, without recursion: a frame per folder open.
        var stack: [PostmanFolder] = [
            PostmanFolder(items: items[...], path: [], auth: root["auth"], pending: [])
        ]
        while var folder = stack.popLast() {
            guard let item = folder.items.popFirst() else { continue }
            stack.append(folder)
            let name = item["name"]?.stringValue ?? ""
            let range = locate(name: name)
            readVariables(item["variable"], origin: "the variables of `\(name)`")
            if case .list(let children)? = item["item"] {
                let comments = scripts(of: item, what: "the folder `\(name)`", at: range)
                stack[stack.count - 1].pending = []
                stack.append(
                    PostmanFolder(
                        items: children[...], path: folder.path + [name], auth: item["auth"] ?? folder.auth,
                        pending: folder.pending + comments))
                continue
            }
            guard let request = item["request"] else {
                collector.warning(
                    .importOptionNotConverted, "the item `\(name)` has no request; left out", at: range)
                continue
            }
            let comments = scripts(of: item, what: "the request", at: range)
            guard var step = self.step(of: request, name: name, inherited: folder.auth, at: range) else { continue }
            step.name = name.isEmpty ? nil : name
            let header = folder.path.isEmpty ? [] : ["folder: " + folder.path.joined(separator: " / ")]
            step.comments = header + folder.pending + comments + step.comments
            stack[stack.count - 1].pending = []
            plan.steps.append(step)
            captureVariables(set: item, by: plan.steps.count - 1)
        }
    }

    private mutating func readVariables(_ list: Value?, origin: String) {
        guard case .list(let values)? = list else { return }
        for value in values {
            guard let key = value["key"]?.stringValue ?? value["id"]?.stringValue, value["disabled"] != .bool(true),
                environment[key] == nil
            else { continue }
            variables.values[key] = TemplateVariables.Variable(
                value: value["value"].map(Self.scalarText) ?? "", secret: value["type"]?.stringValue == "secret",
                origin: origin)
        }
    }

    // MARK: - Requests

    private mutating func step(of request: Value, name: String, inherited: Value?, at range: SourceRange?)
        -> ImportedStep?
    {
        // v2 allows a request written as its URL alone.
        if let url = request.stringValue {
            var query: [Pair] = []
            var step = ImportedStep(method: "GET", url: self.url(of: .string(url), query: &query))
            step.query = query
            return step
        }
        let method = (request["method"]?.stringValue ?? "GET").uppercased()
        guard CurlCommand.methods.contains(method) else {
            collector.warning(
                .importOptionNotConverted,
                "the method `\(method)` of `\(name)` is not one a plan sends; the request is left out", at: range)
            return nil
        }
        let url = request["url"] ?? .string("")
        guard
            hasURL(
                url.stringValue ?? url["raw"]?.stringValue ?? (url["host"] == nil ? "" : "host"), of: name, at: range)
        else { return nil }
        var query: [Pair] = []
        var step = ImportedStep(method: method, url: self.url(of: url, query: &query))
        step.query = query
        step.headers = headers(of: request["header"])
        body(of: request["body"], into: &step, at: range)
        auth(request["auth"] ?? inherited, into: &step, at: range)
        if case .object(let behaviours)? = request["protocolProfileBehavior"] {
            for behaviour in behaviours {
                if behaviour.key == "followRedirects", case .bool(let follow) = behaviour.value {
                    step.followRedirects = follow ? nil : false
                } else if behaviour.key != "disableBodyPruning" {
                    collector.warning(
                        .importSettingNotConverted,
                        "the setting `\(behaviour.key)` of `\(name)` has no form in a plan; left out", at: range)
                    step.comments.append("not converted: the setting `\(behaviour.key)`")
                }
            }
        }
        return step
    }

    /// The URL without its query, which goes to `query` (enabled parameters only); `:name` path variables
    /// take their value.
    private mutating func url(of value: Value, query: inout [Pair]) -> PlanText {
        var raw = value.stringValue ?? value["raw"]?.stringValue ?? ""
        if raw.isEmpty, case .list(let hosts)? = value["host"] {
            let host = hosts.compactMap(\.stringValue).joined(separator: ".")
            let path =
                (value["path"].flatMap { v -> [String]? in
                    guard case .list(let segments) = v else { return nil }
                    return segments.compactMap(\.stringValue)
                } ?? []).joined(separator: "/")
            raw = (value["protocol"]?.stringValue.map { $0 + "://" } ?? "") + host + (path.isEmpty ? "" : "/" + path)
        }
        let mark = raw.firstIndex(of: "?")
        var base = String(raw[..<(mark ?? raw.endIndex)])
        if let hash = base.firstIndex(of: "#") { base = String(base[..<hash]) }
        if case .list(let parameters)? = value["query"] {
            for parameter in parameters where parameter["disabled"] != .bool(true) {
                guard let key = parameter["key"]?.stringValue else { continue }
                query.append(Pair(key, text(parameter["value"].map(Self.scalarText) ?? "")))
            }
        } else if let mark {
            let rest = raw[raw.index(after: mark)...].prefix { $0 != "#" }
            query = FormFields.pairs(of: PlanText(String(rest))).map { Pair($0.name, text($0.value.literal ?? "")) }
        }
        if !base.hasPrefix("{{") && !base.contains("://") { base = "http://" + base }
        var pathValues: [String: String] = [:]
        if case .list(let list)? = value["variable"] {
            for variable in list {
                if let key = variable["key"]?.stringValue ?? variable["id"]?.stringValue {
                    pathValues[key] = variable["value"].map(Self.scalarText) ?? ""
                }
            }
        }
        guard !pathValues.isEmpty else { return text(base) }
        let segments = base.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            guard segment.hasPrefix(":"), let value = pathValues[String(segment.dropFirst())] else {
                return String(segment)
            }
            return value
        }
        return text(segments.joined(separator: "/"))
    }

    private mutating func headers(of value: Value?) -> [Pair] {
        switch value {
        case .list(let headers)?:
            return headers.compactMap { header in
                guard header["disabled"] != .bool(true), let key = header["key"]?.stringValue else { return nil }
                return Pair(key, text(header["value"].map(Self.scalarText) ?? ""))
            }
        case .string(let lines)?:
            // v2.0 allows the headers as one text, `Name: value` a line.
            var pairs: [Pair] = []
            for line in lines.split(whereSeparator: \.isNewline).map(String.init) {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                pairs.append(Pair(String(line[..<colon]).trimmingCharacters(in: .whitespaces), text(value)))
            }
            return pairs
        default:
            return []
        }
    }

    // MARK: - Variables

    /// `text` with each `{{name}}` a reference: to the step whose script set it, else to an input.
    mutating func text(_ text: String, secret: Bool = false) -> PlanText {
        let result = variables.text(text, secret: secret, plan: &plan)
        for name in variables.dynamicRead {
            collector.warning(
                .importSettingNotConverted,
                "Postman's dynamic variable `{{\(name)}}` has no form in a plan; it is an input",
                at: locate(text: "{{\(name)}}"), hint: "give its value with `--input`")
        }
        variables.dynamicRead = []
        return result
    }

    /// A variable's value as text: a string as it is, a number or boolean as JSON writes it.
    static func scalarText(_ value: Value) -> String {
        if case .string(let text) = value { return text }
        if case .null = value { return "" }
        return value.jsonText()
    }

    // MARK: - Sources and places

    private mutating func begin(_ source: SourceFile) {
        self.source = source
        collector = DiagnosticCollector(file: source.path)
        cursor = source.start
    }

    private mutating func finish() {
        diagnostics += collector.diagnostics
    }

    private mutating func parse(_ source: SourceFile) -> Value? {
        switch CollectionSource.json(
            of: source, hint: "a Postman collection or environment is the JSON Postman exports")
        {
        case .success(let value): return value
        case .failure(let diagnostic):
            collector.emit(diagnostic)
            return nil
        }
    }

    /// Where the item named `name` is, searching on from the previous item's.
    private mutating func locate(name: String) -> SourceRange? {
        guard source.text.utf8.count <= 4 * 1024 * 1024 else { return nil }
        let needle = Value.string(name).jsonText()
        guard let found = source.find(needle, after: cursor) else { return nil }
        cursor = source.mark(after: found)
        return SourceRange(start: found.location, length: needle.unicodeScalars.count)
    }

    /// Where `"key"` is first written.
    func locate(key: String) -> SourceRange? {
        locate(text: Value.string(key).jsonText())
    }

    /// Where `text` is first written at or after the current item.
    func locate(text: String) -> SourceRange? {
        guard source.text.utf8.count <= 4 * 1024 * 1024,
            let found = source.find(text, after: cursor) ?? source.find(text, after: source.start)
        else { return nil }
        return SourceRange(start: found.location, length: text.unicodeScalars.count)
    }

    /// Later `{{name}}` reads `path` of the step at `index`.
    mutating func recordCapture(_ name: String, step index: Int, path: String) {
        variables.capture(name, step: index, path: path)
    }

    let tool = "Postman"

    mutating func warning(_ code: DiagnosticCode, _ message: String, at range: SourceRange?, hint: String? = nil) {
        collector.warning(code, message, at: range, hint: hint)
    }
}

/// A folder being walked: the items left, its path of names, the auth its requests inherit, and the
/// comments (its scripts) waiting for its first request.
private struct PostmanFolder {
    var items: ArraySlice<Value>
    var path: [String]
    var auth: Value?
    var pending: [String]
}
