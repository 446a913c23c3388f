import Foundation
import ReqPlanPlanner
import Yams

/// Turns a Swagger 2.0 document (already bundled into one) into an OpenAPI 3.0 one, as swagger2openapi
/// (Mermade) does, so that it is then read like any 3.0 document:
/// - `host`, `basePath` and `schemes` become `servers`; `definitions` become `components/schemas`, shared
///   `parameters` and `responses` their components (a shared `in: body` parameter a request body);
/// - an operation's `in: body` parameter becomes its `requestBody` in each media type of `consumes`; its
///   `in: formData` parameters one object schema, under `application/x-www-form-urlencoded` or, when it
///   consumes it or a parameter is a file, `multipart/form-data`;
/// - a response's `schema` becomes its `content` in each media type of `produces`, `examples` each
///   media type's `example`; a parameter's or header's `type`, `items`, `enum`… its `schema`;
/// - in schemas, `x-nullable` becomes `nullable`, `type: file` a binary string, a `discriminator` name an
///   object; references are rewritten to the new places. Other keys (vendor extensions among them) stay.
struct Swagger2Conversion {
    private let document: [String: Node]
    private let order: [String]
    /// Names of the shared parameters that are bodies (`#/parameters/X` becomes a request body).
    private let bodyParameters: Set<String>
    private let consumes: [String]
    private let produces: [String]

    init(_ root: Node) {
        var document: [String: Node] = [:]
        var order: [String] = []
        if case .mapping(let mapping) = root {
            for (key, value) in mapping {
                let name = key.string ?? ""
                document[name] = value
                order.append(name)
            }
        }
        self.document = document
        self.order = order
        var bodies: Set<String> = []
        for (name, parameter) in Self.pairs(document["parameters"]) where parameter["in"]?.string == "body" {
            bodies.insert(name)
        }
        bodyParameters = bodies
        consumes = Self.strings(document["consumes"]) ?? ["application/json"]
        produces = Self.strings(document["produces"]) ?? ["application/json"]
    }

    /// The OpenAPI 3.0 document.
    func converted() throws -> Node {
        var top: [(String, Node)] = [("openapi", Node("3.0.3"))]
        for key in order {
            guard let value = document[key] else { continue }
            switch key {
            case "swagger", "host", "basePath", "schemes", "consumes", "produces", "definitions", "parameters",
                "responses", "securityDefinitions":
                continue
            case "paths":
                top.append(("servers", servers()))
                top.append(("paths", try paths(value)))
            default:
                top.append((key, value))
            }
        }
        if document["paths"] == nil {
            top.append(("servers", servers()))
            top.append(("paths", Self.map([])))
        }
        top.append(("components", components()))
        return Self.map(top)
    }

    // MARK: Top level

    private func servers() -> Node {
        let base = document["basePath"]?.string ?? ""
        guard let host = document["host"]?.string else {
            return .sequence(Node.Sequence([Self.map([("url", Node(base.isEmpty ? "/" : base))])]))
        }
        let schemes = Self.strings(document["schemes"]) ?? ["https"]
        return .sequence(Node.Sequence(schemes.map { Self.map([("url", Node("\($0)://\(host)\(base)"))]) }))
    }

    private func components() -> Node {
        var sections: [(String, Node)] = []
        let definitions = Self.pairs(document["definitions"])
        if !definitions.isEmpty {
            sections.append(("schemas", Self.map(definitions.map { ($0.0, schema($0.1)) })))
        }
        let shared = Self.pairs(document["parameters"])
        let plain = shared.filter { !bodyParameters.contains($0.0) }
        if !plain.isEmpty {
            sections.append(("parameters", Self.map(plain.map { ($0.0, parameter($0.1)) })))
        }
        let bodies = shared.filter { bodyParameters.contains($0.0) }
        if !bodies.isEmpty {
            sections.append(("requestBodies", Self.map(bodies.map { ($0.0, requestBody($0.1, consumes: consumes)) })))
        }
        let responses = Self.pairs(document["responses"])
        if !responses.isEmpty {
            sections.append(("responses", Self.map(responses.map { ($0.0, response($0.1, produces: produces)) })))
        }
        let security = Self.pairs(document["securityDefinitions"])
        if !security.isEmpty {
            sections.append(("securitySchemes", Self.map(security.map { ($0.0, securityScheme($0.1)) })))
        }
        return Self.map(sections)
    }

    private func securityScheme(_ node: Node) -> Node {
        var pairs = Self.pairs(node).filter { !["flow", "authorizationUrl", "tokenUrl", "scopes"].contains($0.0) }
        switch node["type"]?.string {
        case "basic":
            pairs = pairs.map { $0.0 == "type" ? ("type", Node("http")) : $0 } + [("scheme", Node("basic"))]
        case "oauth2":
            let flow: String
            switch node["flow"]?.string {
            case "password": flow = "password"
            case "application": flow = "clientCredentials"
            case "accessCode": flow = "authorizationCode"
            default: flow = "implicit"
            }
            var settings: [(String, Node)] = []
            if let url = node["authorizationUrl"] { settings.append(("authorizationUrl", url)) }
            if let url = node["tokenUrl"] { settings.append(("tokenUrl", url)) }
            settings.append(("scopes", node["scopes"] ?? Self.map([])))
            pairs.append(("flows", Self.map([(flow, Self.map(settings))])))
        default:
            break
        }
        return Self.map(pairs)
    }

    // MARK: Paths and operations

    private func paths(_ node: Node) throws -> Node {
        Self.map(
            try Self.pairs(node).map { path, item in
                guard case .mapping = item else {
                    throw APIDescriptionLoadError("path `\(path)` of the Swagger 2.0 document is not an object")
                }
                return (path, pathItem(item))
            })
    }

    private func pathItem(_ item: Node) -> Node {
        let shared = Self.items(item["parameters"])
        var pairs: [(String, Node)] = []
        let ownShared = shared.filter { !isBody($0) }
        if !ownShared.isEmpty { pairs.append(("parameters", .sequence(Node.Sequence(ownShared.map(parameter))))) }
        for (key, value) in Self.pairs(item) where key != "parameters" {
            pairs.append((key, ObjectKind.methods.contains(key) ? operation(value, shared: shared) : value))
        }
        return Self.map(pairs)
    }

    /// Whether a parameter (or a reference to a shared one) is a body or a form field.
    private func isBody(_ parameter: Node) -> Bool {
        if let reference = parameter.referenceValue {
            return bodyParameters.contains(String(reference.split(separator: "/").last ?? ""))
        }
        return ["body", "formData"].contains(parameter["in"]?.string ?? "")
    }

    private func operation(_ node: Node, shared: [Node]) -> Node {
        let consumes = Self.strings(node["consumes"]) ?? self.consumes
        let produces = Self.strings(node["produces"]) ?? self.produces
        let own = Self.items(node["parameters"])
        // The path item's body and form parameters belong to each operation (the operation's own win).
        let names = Set(own.compactMap { $0["name"]?.string })
        let inherited = shared.filter { isBody($0) && !names.contains($0["name"]?.string ?? "\u{0}") }
        let all = own + inherited
        var pairs: [(String, Node)] = []
        for (key, value) in Self.pairs(node) {
            switch key {
            case "consumes", "produces", "schemes":
                continue
            case "parameters":
                let plain = all.filter { !isBody($0) }
                if !plain.isEmpty { pairs.append(("parameters", .sequence(Node.Sequence(plain.map(parameter))))) }
            case "responses":
                pairs.append(
                    ("responses", Self.map(Self.pairs(value).map { ($0.0, response($0.1, produces: produces)) })))
            default:
                pairs.append((key, value))
            }
        }
        if let body = requestBody(of: all, consumes: consumes) {
            let position = pairs.firstIndex { $0.0 == "responses" } ?? pairs.count
            pairs.insert(("requestBody", body), at: position)
        }
        return Self.map(pairs)
    }

    /// The request body made of an operation's body parameter or form fields.
    private func requestBody(of parameters: [Node], consumes: [String]) -> Node? {
        if let reference = parameters.lazy.compactMap(\.referenceValue).first(where: { reference in
            bodyParameters.contains(String(reference.split(separator: "/").last ?? ""))
        }) {
            let name = String(reference.split(separator: "/").last ?? "")
            return Self.map([("$ref", Node("#/components/requestBodies/\(Self.escaped(name))"))])
        }
        if let body = parameters.first(where: { $0["in"]?.string == "body" }) {
            return requestBody(body, consumes: consumes)
        }
        let fields = parameters.filter { $0["in"]?.string == "formData" }
        guard !fields.isEmpty else { return nil }
        let hasFile = fields.contains { $0["type"]?.string == "file" }
        let type =
            hasFile || consumes.contains("multipart/form-data")
            ? "multipart/form-data" : "application/x-www-form-urlencoded"
        let properties = fields.map { ($0["name"]?.string ?? "", schema(Self.schemaOfParameter($0))) }
        let required = fields.filter { $0["required"]?.string == "true" }.compactMap { $0["name"]?.string }
        var object: [(String, Node)] = [("type", Node("object")), ("properties", Self.map(properties))]
        if !required.isEmpty { object.append(("required", .sequence(Node.Sequence(required.map { Node($0) })))) }
        return Self.map([
            ("content", Self.map([(type, Self.map([("schema", Self.map(object))]))])),
            ("required", Node(fields.contains { $0["required"]?.string == "true" } ? "true" : "false")),
        ])
    }

    private func requestBody(_ body: Node, consumes: [String]) -> Node {
        let schema = schema(body["schema"] ?? Self.map([]))
        var pairs: [(String, Node)] = []
        if let description = body["description"] { pairs.append(("description", description)) }
        pairs.append(("content", Self.map(consumes.map { ($0, Self.map([("schema", schema)])) })))
        if let required = body["required"] { pairs.append(("required", required)) }
        return Self.map(pairs)
    }

    /// A non-body parameter: its type keywords moved into `schema`, `collectionFormat` into
    /// `style`/`explode`.
    private func parameter(_ node: Node) -> Node {
        guard node.referenceValue == nil else { return rewrittenReference(node) }
        var pairs: [(String, Node)] = []
        for (key, value) in Self.pairs(node)
        where !Self.schemaKeys.contains(key) && key != "collectionFormat" && key != "allowEmptyValue" {
            pairs.append((key, value))
        }
        if node["in"]?.string == "query", let empty = node["allowEmptyValue"] {
            pairs.append(("allowEmptyValue", empty))
        }
        switch node["collectionFormat"]?.string {
        case "multi": pairs += [("style", Node("form")), ("explode", Node("true"))]
        case "ssv": pairs += [("style", Node("spaceDelimited")), ("explode", Node("false"))]
        case "pipes": pairs += [("style", Node("pipeDelimited")), ("explode", Node("false"))]
        case "csv", "tsv":
            let style = ["query", "cookie"].contains(node["in"]?.string ?? "") ? "form" : "simple"
            pairs += [("style", Node(style)), ("explode", Node("false"))]
        default: break
        }
        pairs.append(("schema", schema(Self.schemaOfParameter(node))))
        return Self.map(pairs)
    }

    private func response(_ node: Node, produces: [String]) -> Node {
        guard node.referenceValue == nil else { return rewrittenReference(node) }
        var pairs: [(String, Node)] = []
        for (key, value) in Self.pairs(node) {
            switch key {
            case "schema", "examples":
                continue
            case "headers":
                let headers = Self.pairs(value).map { name, header -> (String, Node) in
                    var kept = Self.pairs(header).filter {
                        !Self.schemaKeys.contains($0.0) && $0.0 != "collectionFormat"
                    }
                    kept.append(("schema", schema(Self.schemaOfParameter(header))))
                    return (name, Self.map(kept))
                }
                pairs.append(("headers", Self.map(headers)))
            default:
                pairs.append((key, value))
            }
        }
        if pairs.first(where: { $0.0 == "description" }) == nil { pairs.insert(("description", Node("")), at: 0) }
        if let body = node["schema"] {
            let converted = schema(body)
            let examples = Self.pairs(node["examples"])
            let types = produces.isEmpty ? ["application/json"] : produces
            let content = types.map { type -> (String, Node) in
                var media: [(String, Node)] = [("schema", converted)]
                if let example = examples.first(where: { $0.0 == type })?.1 { media.append(("example", example)) }
                return (type, Self.map(media))
            }
            pairs.append(("content", Self.map(content)))
        }
        return Self.map(pairs)
    }

    // MARK: Schemas

    /// The keys of a Swagger 2.0 parameter or header that describe its value.
    private static let schemaKeys: Set<String> = [
        "type", "format", "items", "default", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
        "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "enum", "multipleOf",
        "x-nullable",
    ]

    private static func schemaOfParameter(_ node: Node) -> Node {
        map(pairs(node).filter { schemaKeys.contains($0.0) })
    }

    /// A schema with Swagger 2.0's spellings turned into OpenAPI 3.0's, through its subschemas.
    private func schema(_ node: Node) -> Node {
        switch node {
        case .mapping:
            if node.referenceValue != nil { return rewrittenReference(node) }
            var pairs: [(String, Node)] = []
            for (key, value) in Self.pairs(node) {
                switch key {
                case "x-nullable":
                    pairs.append(("nullable", value))
                case "type" where value.string == "file":
                    pairs += [("type", Node("string")), ("format", Node("binary"))]
                case "type" where value.string == "null":
                    // Not a 2.0 or 3.0 type, but written: a value that may only be null.
                    pairs.append(("nullable", Node("true")))
                case "type":
                    guard case .sequence(let list) = value else {
                        pairs.append((key, value))
                        continue
                    }
                    // A list of types (not 2.0, but written): `anyOf` one schema per type, nullable for null.
                    let types = list.compactMap(\.string).filter { $0 != "null" }
                    if types.count < list.count { pairs.append(("nullable", Node("true"))) }
                    if types.count == 1 {
                        pairs.append(("type", Node(types[0])))
                    } else if !types.isEmpty {
                        pairs.append(("anyOf", .sequence(Node.Sequence(types.map { Self.map([("type", Node($0))]) }))))
                    }
                case "discriminator" where value.string != nil:
                    pairs.append(("discriminator", Self.map([("propertyName", value)])))
                case "properties", "patternProperties", "definitions":
                    pairs.append((key, Self.map(Self.pairs(value).map { ($0.0, schema($0.1)) })))
                case "items", "additionalProperties", "not", "allOf", "anyOf", "oneOf":
                    pairs.append((key, schema(value)))
                default:
                    pairs.append((key, value))
                }
            }
            return Self.map(pairs)
        case .sequence(let sequence):
            return .sequence(Node.Sequence(sequence.map(schema)))
        default:
            return node
        }
    }

    /// A reference with its target moved to where the 3.0 document keeps it.
    private func rewrittenReference(_ node: Node) -> Node {
        guard let reference = node.referenceValue else { return node }
        var target = reference
        for (old, new) in [
            ("#/definitions/", "#/components/schemas/"), ("#/responses/", "#/components/responses/"),
        ] where reference.hasPrefix(old) {
            target = new + reference.dropFirst(old.count)
        }
        if reference.hasPrefix("#/parameters/") {
            let name = String(reference.dropFirst("#/parameters/".count))
            let section = bodyParameters.contains(name) ? "requestBodies" : "parameters"
            target = "#/components/\(section)/\(name)"
        }
        return Self.map([("$ref", Node(target))])
    }

    // MARK: Nodes

    private static func map(_ pairs: [(String, Node)]) -> Node {
        .mapping(Node.Mapping(pairs.map { (Node($0.0), $0.1) }))
    }

    private static func pairs(_ node: Node?) -> [(String, Node)] {
        guard case .mapping(let mapping)? = node else { return [] }
        return mapping.map { ($0.key.string ?? "", $0.value) }
    }

    private static func items(_ node: Node?) -> [Node] {
        guard case .sequence(let sequence)? = node else { return [] }
        return Array(sequence)
    }

    private static func strings(_ node: Node?) -> [String]? {
        guard case .sequence(let sequence)? = node else { return nil }
        return sequence.compactMap(\.string)
    }

    private static func escaped(_ name: String) -> String {
        name.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}
