import ReqPlanSyntax

/// OpenCollection YAML (Bruno 3's `.yml` files) as the blocks of the `.bru` file Bruno writes for the same
/// request, folder or environment, each located where its YAML is written. Bruno's own filestore reads both
/// syntaxes into one model (`packages/bruno-filestore/src/formats/yml`); here they meet in `BruFile`, so one
/// reader gives both the same steps, inputs and warnings.
extension BruFile {
    /// A request item: `info` (`name`, `seq`), `http` or `graphql` (`method`, `url`, `params`, `headers`, `body`,
    /// `auth`), `runtime` (`variables`, `actions`, `scripts`, `assertions`) and `settings`. A gRPC or WebSocket
    /// item has no method block: the reader leaves it out, with a warning.
    /// - Parameter name: the request's name when `info.name` gives none (its file's).
    init(openCollectionItem item: YAMLNode, in source: SourceFile, name: String) {
        var file = OpenCollectionBlocks(source: source)
        file.addMeta(item["info"], at: item, name: name)
        let kind = item.openCollectionKind
        if kind == "http" || kind == "graphql", let request = item[kind] {
            let method = (request["method"]?.text ?? (kind == "graphql" ? "POST" : "GET")).lowercased()
            let body = kind == "graphql" ? file.addGraphQLBody(request["body"]) : file.addBody(request["body"])
            let auth = file.addAuth(request["auth"])
            file.add(
                method, at: request,
                entries: [
                    file.entry("url", request["url"]?.text ?? "", at: request["url"] ?? request),
                    file.entry("body", body, at: request["body"] ?? request),
                    file.entry("auth", auth, at: request["auth"] ?? request),
                ])
            let params = request["params"]?.items ?? []
            file.addList("params:query", params.filter { $0["type"]?.text != "path" }, at: request["params"])
            file.addList("params:path", params.filter { $0["type"]?.text == "path" }, at: request["params"])
            file.addList("headers", request["headers"]?.items ?? [], at: request["headers"])
        }
        if let redirects = item["settings"]?["followRedirects"], redirects.text == "false" {
            file.add("settings", at: redirects, entries: [file.entry("followRedirects", "false", at: redirects)])
        }
        file.addRuntime(item["runtime"])
        self.init(blocks: file.blocks)
    }

    /// The collection's (`opencollection.yml`) or a folder's (`folder.yml`, an item of `type: folder`) settings:
    /// `info` (`name`, `seq`) and `request` (`headers`, `auth`, `variables`, `actions`, `scripts`), for the
    /// requests under it.
    init(openCollectionDefaults node: YAMLNode, in source: SourceFile, name: String) {
        var file = OpenCollectionBlocks(source: source)
        file.addMeta(node["info"], at: node, name: name)
        if let request = node["request"] {
            file.addList("headers", request["headers"]?.items ?? [], at: request["headers"])
            if let auth = request["auth"] {
                let mode = file.addAuth(auth)
                file.add("auth", at: auth, entries: [file.entry("mode", mode, at: auth)])
            }
            file.addRuntime(request)
        }
        self.init(blocks: file.blocks)
    }

    /// An environment (`environments/NAME.yml`, an entry of `config.environments`): `variables` as `vars`, the
    /// names of those marked `secret: true` as `vars:secret`.
    init(openCollectionEnvironment node: YAMLNode, in source: SourceFile) {
        var file = OpenCollectionBlocks(source: source)
        let variables = node["variables"]?.items ?? []
        file.addList("vars", variables.filter { $0["secret"]?.text != "true" }, at: node["variables"])
        let secrets = variables.filter { $0["secret"]?.text == "true" && $0["disabled"]?.text != "true" }
        if let first = secrets.first {
            file.add("vars:secret", at: first, text: secrets.compactMap { $0["name"]?.text }.joined(separator: "\n"))
        }
        self.init(blocks: file.blocks)
    }
}

/// The blocks of one OpenCollection item, built in the order the reader asks for them.
private struct OpenCollectionBlocks {
    let source: SourceFile
    var blocks: [BruFile.Block] = []

    /// OpenCollection's auth fields by the names a `.bru` file gives them (`credentials.clientId` is
    /// `client_id`); the others keep theirs (`username`, `token`, `accessKeyId`, `placement`).
    private static let authNames = [
        "flow": "grant_type", "accessTokenUrl": "access_token_url", "authorizationUrl": "authorization_url",
        "callbackUrl": "callback_url", "refreshTokenUrl": "refresh_token_url", "clientId": "client_id",
        "clientSecret": "client_secret",
    ]

    mutating func add(_ name: String, at node: YAMLNode, entries: [BruFile.Entry] = [], text: String = "") {
        let start = source.location(of: node)
        blocks.append(
            BruFile.Block(name: name, entries: entries, text: text, line: start.line, column: start.column))
    }

    func entry(_ key: String, _ value: String, at node: YAMLNode, enabled: Bool = true) -> BruFile.Entry {
        let start = source.location(of: node)
        return BruFile.Entry(key: key, value: value, enabled: enabled, line: start.line, column: start.column)
    }

    /// `meta { name, seq }`.
    mutating func addMeta(_ info: YAMLNode?, at node: YAMLNode, name: String) {
        let given = info?["name"]?.text ?? ""
        var entries = [entry("name", given.isEmpty ? name : given, at: info?["name"] ?? node)]
        if let seq = info?["seq"], let text = seq.text { entries.append(entry("seq", text, at: seq)) }
        add("meta", at: info ?? node, entries: entries)
    }

    /// A block of `name`/`value` items (headers, parameters, form fields, variables), `disabled: true` ones
    /// disabled; none when the list is empty.
    mutating func addList(_ name: String, _ items: [YAMLNode], at node: YAMLNode?) {
        guard let node, !items.isEmpty else { return }
        add(
            name, at: node,
            entries: items.map { item in
                entry(
                    item["name"]?.text ?? "", item["value"]?.text ?? "", at: item,
                    enabled: item["disabled"]?.text != "true")
            })
    }

    /// The body of an `http` request as `body:MODE` blocks; its mode (`none` when there is none, as Bruno reads
    /// a body without a `type`). Of several variants, the one `selected` (else the first).
    mutating func addBody(_ node: YAMLNode?) -> String {
        let variants = node?.items ?? []
        let body = variants.isEmpty ? node : (variants.first { $0["selected"]?.text == "true" } ?? variants[0])["body"]
        guard let body, let type = body["type"]?.text else { return "none" }
        let data = body["data"]
        switch type {
        case "json", "text", "xml", "sparql":
            add("body:\(type)", at: data ?? body, text: data?.text ?? "")
            return type
        case "form-urlencoded":
            addList("body:form-urlencoded", data?.items ?? [], at: data)
            return "formUrlEncoded"
        case "multipart-form":
            // In a `.bru` file's words: `@file(a|b)` for a file part's paths, ` @contentType(…)` after the value.
            let parts = (data?.items ?? []).map { part in
                var value = part["value"]?.text ?? ""
                if part["type"]?.text == "file" {
                    let paths = part["value"]?.items.compactMap(\.text) ?? [value]
                    value = "@file(" + paths.joined(separator: "|") + ")"
                }
                if let type = part["contentType"]?.text, !type.isEmpty { value += " @contentType(\(type))" }
                return entry(
                    part["name"]?.text ?? "", value, at: part, enabled: part["disabled"]?.text != "true")
            }
            add("body:multipart-form", at: data ?? body, entries: parts)
            return "multipartForm"
        default:
            return type
        }
    }

    /// The body of a `graphql` request (`query`, `variables`) as `body:graphql` blocks.
    mutating func addGraphQLBody(_ node: YAMLNode?) -> String {
        guard let node else { return "none" }
        add("body:graphql", at: node["query"] ?? node, text: node["query"]?.text ?? "")
        if let variables = node["variables"] { add("body:graphql:vars", at: variables, text: variables.text ?? "") }
        return "graphql"
    }

    /// An `auth` (`inherit`, or a mapping of `type` and its fields) as an `auth:MODE` block; its mode (`none`
    /// when there is none, as Bruno reads it).
    mutating func addAuth(_ node: YAMLNode?) -> String {
        guard let node else { return "none" }
        guard let type = node["type"]?.text else { return node.text ?? "none" }
        var entries: [BruFile.Entry] = []
        // OAuth 2.0 keeps its client in `credentials` (`placement`: where the client sends them) and the user in
        // `resourceOwner`.
        let client = (node["credentials"]?.entries ?? []).map {
            ($0.key.text == "placement" ? "credentials_placement" : $0.key.text, $0.value)
        }
        let fields = (node.entries + (node["resourceOwner"]?.entries ?? [])).map { ($0.key.text, $0.value) } + client
        for case (let name?, let value) in fields where name != "type" {
            guard var text = value.text else { continue }
            if name == "flow", text == "resource_owner_password_credentials" { text = "password" }
            entries.append(entry(Self.authNames[name] ?? name, text, at: value))
        }
        add("auth:\(type)", at: node, entries: entries)
        return type
    }

    /// What runs around a request (`runtime` of a request, `request` of a folder): `variables` as
    /// `vars:pre-request`, `set-variable` actions after the response as `vars:post-response`, `scripts` as
    /// `script:TYPE` and `tests` blocks, `assertions` as `assert`.
    mutating func addRuntime(_ node: YAMLNode?) {
        guard let node else { return }
        addList("vars:pre-request", node["variables"]?.items ?? [], at: node["variables"])
        let captures = (node["actions"]?.items ?? []).filter {
            $0["type"]?.text == "set-variable" && $0["phase"]?.text == "after-response"
        }
        if let actions = node["actions"], !captures.isEmpty {
            add(
                "vars:post-response", at: actions,
                entries: captures.map { action in
                    let expression = action["selector"]?["expression"]
                    return entry(
                        action["variable"]?["name"]?.text ?? "", expression?.text ?? "", at: expression ?? action,
                        enabled: action["disabled"]?.text != "true")
                })
        }
        for script in node["scripts"]?.items ?? [] {
            guard let type = script["type"]?.text else { continue }
            add(type == "tests" ? "tests" : "script:" + type, at: script, text: script["code"]?.text ?? "")
        }
        let assertions = node["assertions"]?.items ?? []
        if let list = node["assertions"], !assertions.isEmpty {
            add(
                "assert", at: list,
                entries: assertions.map { assertion in
                    let operation = assertion["operator"]?.text ?? "eq"
                    let operand = assertion["value"]?.text.map { " " + $0 } ?? ""
                    return entry(
                        assertion["expression"]?.text ?? "", operation + operand, at: assertion,
                        enabled: assertion["disabled"]?.text != "true")
                })
        }
    }
}

extension YAMLNode {
    /// The value of `key` in a mapping (the first, if written twice).
    subscript(key: String) -> YAMLNode? {
        guard case .mapping(let mapping) = self else { return nil }
        return mapping.entries.first { $0.key.string == key }?.value
    }

    /// The entries of a mapping; none for a scalar or a list.
    var entries: [(key: YAMLNode, value: YAMLNode)] {
        guard case .mapping(let mapping) = self else { return [] }
        return mapping.entries
    }

    /// The items of a list; none for a scalar or a mapping.
    var items: [YAMLNode] {
        guard case .sequence(let items) = self else { return [] }
        return items.nodes
    }

    /// A value's text as Bruno reads it: a scalar as written (a plain `~`, `null` or nothing is empty), a typed
    /// value (`{ type: number, data: "42" }`) its `data`, of value variants (`- { title, selected, value }`)
    /// the selected one's (else the first's); `nil` for any other list or mapping.
    var text: String? {
        switch self {
        case .scalar(let scalar):
            return scalar.isPlain && coreSchemaValue == .null ? "" : scalar.string
        case .mapping:
            return self["type"] != nil ? self["data"]?.text : nil
        case .sequence(let items):
            let chosen = items.nodes.first { $0["selected"]?.text == "true" } ?? items.nodes.first
            return chosen?["value"]?.text
        }
    }

    /// What an OpenCollection item is: its `info.type` (`http`, `graphql`, `grpc`, `websocket`, `folder`,
    /// `script`, `app`), else what its keys say, as Bruno tells them; empty for none.
    var openCollectionKind: String {
        if let type = self["info"]?["type"]?.text { return type }
        for (key, kind) in [("items", "folder"), ("http", "http"), ("graphql", "graphql"), ("grpc", "grpc")]
        where self[key] != nil {
            return kind
        }
        if self["websocket"] != nil { return "websocket" }
        return self["type"]?.text == "script" ? "script" : ""
    }
}
