import Yams

/// What an object of an OpenAPI document is, told by where it stands: the value of `parameters[0]` of an
/// operation is a Parameter, the value of `content.*.schema` a Schema. A reference (`$ref`) is read as the
/// kind of the position that holds it, whatever file or pointer it names, as Redocly's bundler types it
/// (`packages/core/src/bundle.ts` walks the document with the same kind of type tree).
indirect enum ObjectKind: Equatable, Sendable {
    /// The document itself (`openapi:` or `swagger:` at the top).
    case document
    /// `components` of a 3.x document.
    case components
    case pathItem, operation, parameter, requestBody, response, header, mediaType, encoding, example, link
    case callback, securityScheme, schema
    /// A mapping whose every value is of one kind (`properties`, `responses`, `content`).
    case map(ObjectKind)
    /// A sequence whose every item is of one kind (`parameters`, `allOf`).
    case list(ObjectKind)
    /// A component's own slot (`components/schemas/Pet`, Swagger 2.0's `definitions/Pet`): a `$ref` there
    /// is replaced by its target, which becomes the component, as Redocly's bundler does.
    case definition(ObjectKind)
    /// A part that takes no Reference Object and holds none of the kinds above (`info`, a tag, a
    /// server): a `$ref` in it is replaced by its target.
    case plain
    /// Data given as it is (an example's `value`, `default`, `enum`): only a `$ref` to another file is
    /// replaced by its target; one within the document is left as data.
    case opaque
    /// A vendor extension (`x-…`): not read by reqplan, and not walked.
    case skipped

    /// The Components section a referenced object of this kind is filed under; nil for kinds whose
    /// references are inlined (path items: OpenAPI 3.0 has no `components/pathItems`, and a path item is
    /// rarely shared).
    func section(swagger2: Bool) -> String? {
        if swagger2 {
            switch self {
            case .schema: return "definitions"
            case .parameter: return "parameters"
            case .response: return "responses"
            default: return nil
            }
        }
        switch self {
        case .schema: return "schemas"
        case .parameter: return "parameters"
        case .requestBody: return "requestBodies"
        case .response: return "responses"
        case .header: return "headers"
        case .example: return "examples"
        case .link: return "links"
        case .callback: return "callbacks"
        case .securityScheme: return "securitySchemes"
        default: return nil
        }
    }

    /// The kind of the value under `key` in an object of this kind (of item `key` in a list).
    func child(_ key: String, swagger2: Bool) -> ObjectKind {
        if key.hasPrefix("x-") { return self == .opaque ? .opaque : .skipped }
        switch self {
        case .map(let kind), .list(let kind): return kind
        case .definition(let kind): return kind.child(key, swagger2: swagger2)
        case .document: return Self.documentChild(key, swagger2: swagger2)
        case .components: return Self.componentsSections[key].map { .map(.definition($0)) } ?? .plain
        case .pathItem:
            if key == "parameters" { return .list(.parameter) }
            return Self.methods.contains(key) ? .operation : .plain
        case .operation:
            switch key {
            case "parameters": return .list(.parameter)
            case "requestBody": return .requestBody
            case "responses": return .map(.response)
            case "callbacks": return .map(.callback)
            default: return .plain
            }
        case .parameter, .header:
            switch key {
            case "schema": return .schema
            case "items": return swagger2 ? .schema : .plain
            case "content": return .map(.mediaType)
            case "examples": return .map(.example)
            case "example", "default", "enum": return .opaque
            default: return .plain
            }
        case .requestBody: return key == "content" ? .map(.mediaType) : .plain
        case .response:
            switch key {
            case "headers": return .map(.header)
            case "content": return .map(.mediaType)
            case "links": return .map(.link)
            case "schema": return swagger2 ? .schema : .plain
            case "examples": return swagger2 ? .opaque : .plain
            default: return .plain
            }
        case .mediaType:
            switch key {
            case "schema": return .schema
            case "examples": return .map(.example)
            case "encoding": return .map(.encoding)
            case "example": return .opaque
            default: return .plain
            }
        case .encoding: return key == "headers" ? .map(.header) : .plain
        case .example: return key == "value" ? .opaque : .plain
        case .callback: return .pathItem
        case .link, .securityScheme, .plain: return .plain
        case .schema: return Self.schemaChild(key)
        case .opaque: return .opaque
        case .skipped: return .skipped
        }
    }

    /// Whether a `$ref` here stands for an object of this kind (a Reference Object, or a schema's `$ref`).
    var takesReference: Bool {
        switch self {
        case .plain, .opaque, .skipped, .document, .components, .map, .list: false
        default: true
        }
    }

    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace", "query"]

    static let componentsSections: [String: ObjectKind] = [
        "schemas": .schema, "responses": .response, "parameters": .parameter, "examples": .example,
        "requestBodies": .requestBody, "headers": .header, "securitySchemes": .securityScheme, "links": .link,
        "callbacks": .callback, "pathItems": .pathItem,
    ]

    private static func documentChild(_ key: String, swagger2: Bool) -> ObjectKind {
        switch key {
        case "paths", "webhooks": return .map(.pathItem)
        case "components": return .components
        case "definitions" where swagger2: return .map(.definition(.schema))
        case "parameters" where swagger2: return .map(.definition(.parameter))
        case "responses" where swagger2: return .map(.definition(.response))
        default: return .plain
        }
    }

    private static func schemaChild(_ key: String) -> ObjectKind {
        switch key {
        case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas": return .map(.schema)
        case "allOf", "anyOf", "oneOf", "prefixItems": return .list(.schema)
        case "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
            "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema":
            return .schema
        case "example", "examples", "default", "enum", "const": return .opaque
        default: return .plain
        }
    }
}
