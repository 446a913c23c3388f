import ReqPlanSyntax

/// Reads an Insomnia export v4 (`_type: export`, `__export_format: 4`; JSON or YAML) into one plan.
///
/// The export is a flat list of resources tied by `parentId`: each workspace's requests and request groups are
/// walked depth first in Insomnia's order (`metaSortKey`, then the file's), so each request is one step after
/// the one before it. The base environment of a workspace (and each group's own `environment`) gives the
/// values of the `{{ _.name }}` variables, each an input; a `{% response … %}` tag that reads an earlier
/// request's body or header is a reference to that step. Scripts and unit tests are kept as comments.
struct InsomniaReader {
    var diagnostics: DiagnosticCollector
    /// The requests read and the inputs they read.
    var plan: ImportedPlan
    private let source: SourceFile
    /// Where `located(_:)` last found what it looked for.
    private let lastFound = LastFound()
    var variables = TemplateVariables()
    /// The step index of each request read, by its `_id`, for the `{% response %}` tags of later ones.
    var stepOfRequest: [String: Int] = [:]

    init(_ source: SourceFile, inputs: InputTable) {
        self.source = source
        diagnostics = DiagnosticCollector(file: source.path)
        plan = ImportedPlan(origin: source.path, inputs: inputs)
        variables.prefixes = ["_."]
    }

    mutating func read() {
        guard let root = parse() else { return }
        guard root["_type"]?.stringValue == "export", case .list(let resources)? = root["resources"] else {
            let isV5 = root["type"]?.stringValue?.hasPrefix("collection.insomnia.rest/") == true
            diagnostics.error(
                .importSourceMalformed,
                isV5
                    ? "`\(source.path)` is an Insomnia export v5, which is not read"
                    : "`\(source.path)` is not an Insomnia export: it has no `_type: export` and `resources` list",
                at: SourceRange(at: SourceLocation(line: 1, column: 1)),
                hint: "export the collection from Insomnia as \"Insomnia v4 (JSON or YAML)\"")
            return
        }
        let format = root["__export_format"].map(PostmanReader.scalarText) ?? ""
        guard format == "4" else {
            diagnostics.error(
                .importSourceMalformed,
                "`\(source.path)` is an Insomnia export of format `\(format)`; format 4 is read",
                at: located("__export_format"), hint: "export it again from a current Insomnia as \"Insomnia v4\"")
            return
        }
        var children: [String: [Value]] = [:]
        for resource in resources {
            children[resource["parentId"]?.stringValue ?? "", default: []].append(resource)
        }
        for key in children.keys {
            // Insomnia's order: `metaSortKey` ascending; the file's order between equal keys.
            children[key] = children[key, default: []].enumerated().sorted { first, second in
                let (a, b) = (
                    first.element["metaSortKey"]?.doubleValue ?? 0, second.element["metaSortKey"]?.doubleValue ?? 0
                )
                return a != b ? a < b : first.offset < second.offset
            }.map(\.element)
        }
        for resource in resources {
            switch resource["_type"]?.stringValue {
            case "workspace"?: readWorkspace(resource, children: children)
            case "unit_test"?, "unit_test_suite"?, "request"?, "request_group"?, "environment"?, "cookie_jar"?,
                "api_spec"?, "grpc_request"?, "websocket_request"?, "websocket_payload"?, "proto_file"?,
                "proto_directory"?, "mock_server"?, "mock_route"?, "client_certificate"?, "ca_certificate"?, nil:
                continue
            case let other?:
                plan.notes.append("a resource of `_type: \(other)` is not converted")
            }
        }
    }

    // MARK: - Workspaces and groups

    private mutating func readWorkspace(_ workspace: Value, children: [String: [Value]]) {
        let id = workspace["_id"]?.stringValue ?? ""
        let name = workspace["name"]?.stringValue ?? id
        plan.notes.append("Insomnia workspace `\(name)`")
        let members = children[id] ?? []
        variables = TemplateVariables()
        variables.prefixes = ["_."]
        if let base = members.first(where: { $0["_type"]?.stringValue == "environment" }) {
            addVariables(base["data"], origin: "the base environment of `\(name)`")
            let subEnvironments = children[base["_id"]?.stringValue ?? ""] ?? []
            // One sub-environment is the one the requests were written for; of several, none is chosen.
            if subEnvironments.count == 1, let only = subEnvironments.first {
                addVariables(only["data"], origin: "the environment `\(only["name"]?.stringValue ?? "")`")
            }
            let others = subEnvironments.count == 1 ? [] : subEnvironments.compactMap { $0["name"]?.stringValue }
            if !others.isEmpty {
                plan.notes.append(
                    "environments not applied (give their values with `--input` or an inputs file): "
                        + others.map { "`\($0)`" }.joined(separator: ", "))
            }
        }
        // The unit tests of each request, kept as comments above it.
        var tests: [String: [String]] = [:]
        for suite in members where suite["_type"]?.stringValue == "unit_test_suite" {
            for test in children[suite["_id"]?.stringValue ?? ""] ?? [] {
                guard let request = test["requestId"]?.stringValue else { continue }
                let code = PostmanReader.lines(of: test["code"])
                tests[request, default: []] +=
                    ["not converted: the unit test `\(test["name"]?.stringValue ?? "")`:"]
                    + code.prefix(200).map { "  " + $0 }
                diagnostics.warning(
                    .importSettingNotConverted,
                    "the unit test `\(test["name"]?.stringValue ?? "")` is not converted", at: located(test["_id"]),
                    hint: "checks of the response are written as `expect:` (grammar.md §8)")
            }
        }
        // Depth first, without recursion; a group is walked once, whatever its `parentId`s loop through.
        var walked: Set<String> = [id]
        var stack: [(items: ArraySlice<Value>, path: [String], auth: Value?)] = [(members[...], [], nil)]
        while var frame = stack.popLast() {
            guard let resource = frame.items.popFirst() else { continue }
            stack.append(frame)
            let name = resource["name"]?.stringValue ?? ""
            switch resource["_type"]?.stringValue {
            case "request_group"?:
                addVariables(resource["environment"], origin: "the folder `\(name)`")
                let auth = resource["authentication"].flatMap { isSet($0) ? $0 : nil } ?? frame.auth
                let groupID = resource["_id"]?.stringValue ?? ""
                guard walked.insert(groupID).inserted else { continue }
                stack.append(((children[groupID] ?? [])[...], frame.path + [name], auth))
                let scripts = self.scripts(of: resource, what: "the folder `\(name)`")
                if !scripts.isEmpty { plan.notes += scripts }
            case "request"?:
                guard var step = request(resource, inherited: frame.auth) else { continue }
                step.name = name.isEmpty ? nil : name
                let folder = frame.path.isEmpty ? [] : ["folder: " + frame.path.joined(separator: " / ")]
                step.comments =
                    folder + scripts(of: resource, what: "the request `\(name)`")
                    + tests[resource["_id"]?.stringValue ?? "", default: []] + step.comments
                stepOfRequest[resource["_id"]?.stringValue ?? ""] = plan.steps.count
                plan.steps.append(step)
            case "grpc_request"?, "websocket_request"?:
                diagnostics.warning(
                    .importOptionNotConverted,
                    "the \(resource["_type"]?.stringValue == "grpc_request" ? "gRPC" : "WebSocket") request `\(name)` is not converted; left out",
                    at: located(resource["_id"]), hint: "a plan sends HTTP requests")
            default:
                continue
            }
        }
    }

    /// Environment data (nested objects flattened: `{{ _.api.url }}` reads `api.url`) as variables.
    private mutating func addVariables(_ data: Value?, origin: String) {
        guard let data else { return }
        var pending: [(prefix: String, value: Value)] = [("", data)]
        var budget = 100_000
        while let (prefix, value) = pending.popLast(), budget > 0 {
            budget -= 1
            if case .object(let fields) = value {
                pending += fields.reversed().map { (prefix.isEmpty ? $0.key : prefix + "." + $0.key, $0.value) }
            } else if !prefix.isEmpty {
                variables.values[prefix] = TemplateVariables.Variable(
                    value: PostmanReader.scalarText(value), secret: false, origin: origin)
            }
        }
    }

    private func isSet(_ auth: Value) -> Bool {
        guard let type = auth["type"]?.stringValue else { return false }
        return !type.isEmpty
    }

    // MARK: - Places

    private mutating func parse() -> Value? {
        if source.text.drop(while: { $0.isWhitespace || $0 == "\u{FEFF}" }).first == "{" {
            switch CollectionSource.json(
                of: source, hint: "an Insomnia export is the JSON or YAML Insomnia writes (Export → Insomnia v4)")
            {
            case .success(let value): return value
            case .failure(let diagnostic):
                diagnostics.emit(diagnostic)
                return nil
            }
        }
        switch DataDocument.parse(source, what: "Insomnia export", limits: ParseLimits()) {
        case .failure(let failure):
            diagnostics.emit(failure.diagnostic)
            return nil
        case .success(let document):
            switch document.value() {
            case .success(let value): return value
            case .failure(let diagnostic):
                diagnostics.emit(diagnostic)
                return nil
            }
        }
    }

    /// Where a resource is, by its `_id` (first written).
    func located(_ id: Value?) -> SourceRange? {
        guard let id = id?.stringValue, !id.isEmpty else { return nil }
        return located(id)
    }

    /// Where `text` is first written: searched for from where the last one was found, then from the start.
    /// Resources are mostly read in the order they are written, so a file of 10,000 is not searched from its
    /// start 10,000 times.
    func located(_ text: String) -> SourceRange? {
        guard source.text.utf8.count <= 4 * 1024 * 1024 else { return nil }
        guard
            let found = lastFound.mark.flatMap({ source.find(text, after: $0) })
                ?? source.find(text, after: source.start)
        else { return nil }
        lastFound.mark = found
        return SourceRange(start: found.location, length: text.unicodeScalars.count)
    }
}

/// Where the last text an Insomnia reader looked for was found.
final class LastFound {
    var mark: SourceFile.Mark?
}
