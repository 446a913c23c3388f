import ReqPlanSyntax

/// A JSON type as schemas name them.
public enum APIType: String, Sendable, Hashable, CaseIterable, Comparable {
    case null, boolean, integer, number, string, array, object

    /// Whether a value of this type is also one of `other` (an integer is a number).
    public func fits(_ other: APIType) -> Bool { self == other || (self == .integer && other == .number) }

    public static func < (lhs: APIType, rhs: APIType) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }

    /// "a string", "an object", "an integer", for messages.
    public var withArticle: String {
        switch self {
        case .integer, .array, .object: "an \(rawValue)"
        case .null: "null"
        default: "a \(rawValue)"
        }
    }

    /// The schema type of a value (`3` is an integer, `3.5` a number).
    public init(of value: Value) {
        switch value {
        case .null: self = .null
        case .bool: self = .boolean
        case .int, .largeInt: self = .integer
        case .double(let number): self = number.rounded() == number && number.isFinite ? .integer : .number
        case .string: self = .string
        case .list: self = .array
        case .object: self = .object
        }
    }
}

/// reqplan's own small schema model: what the static checks and the response check need of a JSON
/// Schema (types, properties, required, items, nullable, enums, patterns, `additionalProperties`,
/// `allOf`/`oneOf`/`anyOf`, references). Filled by a reader of API descriptions (the `ReqPlanOpenAPI`
/// target reads OpenAPI 3.0 and 3.1); another source of types can fill it too.
///
/// A class, immutable once built, so a schema referenced from many places is shared.
public final class APISchema: Sendable {
    /// What other properties of an object may be.
    public enum AdditionalProperties: Sendable {
        /// Not said: any other property is allowed by JSON Schema; reqplan warns when a plan reads a name the
        /// schema does not declare (grammar.md §6.9, `response_fields`).
        case unspecified
        /// `additionalProperties: true`.
        case allowed
        /// `additionalProperties: false` (or `unevaluatedProperties: false`).
        case forbidden
        /// `additionalProperties: { schema }`.
        case schema(APISchema)
    }

    /// The types allowed; `nil` when any type is (`{}` or a schema without `type`).
    public let types: Set<APIType>?
    /// Declared properties of an object, in order.
    public let properties: [(name: String, schema: APISchema)]
    /// Where each property is in `properties`, by name (the response check looks every field up).
    private let propertyIndex: [String: Int]
    /// Names of required properties.
    public let required: Set<String>
    /// What properties not listed may be.
    public let additionalProperties: AdditionalProperties
    /// The schema of an array's items.
    public let items: APISchema?
    /// `enum`: the only values allowed.
    public let enumValues: [Value]?
    /// `pattern` of a string (ECMA 262; checked with `NSRegularExpression`).
    public let pattern: String?
    /// `allOf`: every schema must hold.
    public let allOf: [APISchema]
    /// `anyOf`: at least one must hold.
    public let anyOf: [APISchema]
    /// `oneOf`: exactly one must hold.
    public let oneOf: [APISchema]
    /// A reference to a named schema of the description (`#/components/schemas/Pet` is `Pet`).
    public let reference: String?
    /// `description`, when the document gives one (for editors: completion and hover show it).
    public let description: String?
    /// A value the document shows for it (`example`, the first of `examples`, else `default`), for plans
    /// written from the description (`reqplan import openapi`); read only when the loader is asked to.
    public let example: Value?
    /// `format` of a string or number (`date-time`, `uuid`, `int64`), read with `example`.
    public let format: String?

    /// Creates a schema.
    public init(
        types: Set<APIType>? = nil, properties: [(name: String, schema: APISchema)] = [], required: Set<String> = [],
        additionalProperties: AdditionalProperties = .unspecified, items: APISchema? = nil,
        enumValues: [Value]? = nil, pattern: String? = nil, allOf: [APISchema] = [], anyOf: [APISchema] = [],
        oneOf: [APISchema] = [], reference: String? = nil, description: String? = nil, example: Value? = nil,
        format: String? = nil
    ) {
        self.types = types
        self.properties = properties
        var index: [String: Int] = [:]
        for (position, property) in properties.enumerated() where index[property.name] == nil {
            index[property.name] = position
        }
        self.propertyIndex = index
        self.required = required
        self.additionalProperties = additionalProperties
        self.items = items
        self.enumValues = enumValues
        self.pattern = pattern
        self.allOf = allOf
        self.anyOf = anyOf
        self.oneOf = oneOf
        self.reference = reference
        self.description = description
        self.example = example
        self.format = format
    }

    /// This schema with `example` and `format` (a copy; the schema itself is shared).
    public func with(example: Value?, format: String?) -> APISchema {
        guard example != nil || format != nil else { return self }
        return APISchema(
            types: types, properties: properties, required: required, additionalProperties: additionalProperties,
            items: items, enumValues: enumValues, pattern: pattern, allOf: allOf, anyOf: anyOf, oneOf: oneOf,
            reference: reference, description: description, example: example, format: format)
    }

    /// A schema that allows anything.
    public static let any = APISchema()

    /// The schema of property `name`, if declared here.
    public func property(_ name: String) -> APISchema? {
        propertyIndex[name].map { properties[$0].schema }
    }
}

/// Named schemas a description's references point to, and what follows them.
public struct APISchemaTable: Sendable {
    /// Schemas by the name references use.
    public var schemas: [String: APISchema]

    /// Creates a table.
    public init(schemas: [String: APISchema] = [:]) {
        self.schemas = schemas
    }

    /// `schema` with its references followed (at most 64 in a row; a chain longer, or a name the table
    /// does not have, gives a schema that allows anything).
    public func resolve(_ schema: APISchema) -> APISchema {
        var current = schema
        var hops = 0
        while let name = current.reference {
            guard hops < 64, let target = schemas[name] else { return .any }
            current = target
            hops += 1
        }
        return current
    }

    /// The alternatives a value of `schema` may be, references followed and `allOf` kept together: the
    /// schema itself when it has no `oneOf`/`anyOf`, else one per alternative (each with the schema's own
    /// constraints still applying through `base`).
    func alternatives(of schema: APISchema) -> [APISchema] {
        let resolved = resolve(schema)
        let choices = resolved.oneOf + resolved.anyOf
        return choices.isEmpty ? [resolved] : choices.map(resolve)
    }

    /// The types a value of `schema` may have, `nil` when any: the intersection over `allOf`, the union
    /// over `oneOf`/`anyOf`.
    public func types(of schema: APISchema, depth: Int = 0) -> Set<APIType>? {
        let resolved = resolve(schema)
        guard depth < 32 else { return nil }
        var result = resolved.types
        for part in resolved.allOf {
            guard let partTypes = types(of: part, depth: depth + 1) else { continue }
            result = result.map { intersect($0, partTypes) } ?? partTypes
        }
        let choices = resolved.oneOf + resolved.anyOf
        if !choices.isEmpty {
            var union: Set<APIType>? = []
            for choice in choices {
                guard let choiceTypes = types(of: choice, depth: depth + 1) else {
                    union = nil
                    break
                }
                union?.formUnion(choiceTypes)
            }
            if let union { result = result.map { intersect($0, union) } ?? union }
        }
        return result
    }

    /// Types both allow, an integer fitting a number.
    private func intersect(_ a: Set<APIType>, _ b: Set<APIType>) -> Set<APIType> {
        var result = a.intersection(b)
        if a.contains(.integer) && b.contains(.number) || b.contains(.integer) && a.contains(.number) {
            result.insert(.integer)
        }
        return result
    }

    /// Whether `schema` allows null.
    public func isNullable(_ schema: APISchema) -> Bool {
        types(of: schema)?.contains(.null) ?? true
    }

    /// What a member `name` of a value of `schema` is.
    public enum Member {
        /// A declared property: its schema, and whether every alternative requires it.
        case declared(APISchema, required: Bool)
        /// Not declared, but the schema allows other properties (with this schema).
        case undeclared(APISchema)
        /// The schema does not declare it; the declared names, for a "did you mean". `closed` when the
        /// schema forbids other properties (`additionalProperties: false` in every alternative), so the
        /// field cannot come; else it may come, undeclared.
        case unknown(known: [String], closed: Bool)
        /// Nothing can be said (no object schema, or any type).
        case unchecked
    }

    /// Looks a property up in `schema`, through references, `allOf` and the alternatives of
    /// `oneOf`/`anyOf` (found in one alternative is enough).
    public func member(_ name: String, of schema: APISchema) -> Member {
        var known: [String] = []
        var undeclared: APISchema?
        var found: [(APISchema, Bool)] = []
        var unchecked = false
        var closed = true
        for alternative in alternatives(of: schema) {
            let parts = flattened(alternative)
            var foundHere: (APISchema, Bool)?
            var required = false
            var open = false
            var forbids = false
            var objectLike = false
            for part in parts {
                required = required || part.required.contains(name)
                if let property = part.property(name) { foundHere = foundHere ?? (property, false) }
                known += part.properties.map(\.name).filter { !known.contains($0) }
                if !part.properties.isEmpty || part.types == [.object] || part.types == [.object, .null] {
                    objectLike = true
                }
                switch part.additionalProperties {
                case .allowed: open = true
                case .schema(let additional):
                    open = true
                    undeclared = undeclared ?? additional
                case .forbidden: forbids = true
                case .unspecified: break
                }
            }
            if let foundHere {
                found.append((foundHere.0, required))
            } else if open {
                undeclared = undeclared ?? .any
            } else if !objectLike {
                unchecked = true
            } else if !forbids {
                closed = false
            }
        }
        if let first = found.first {
            return .declared(first.0, required: found.count == alternatives(of: schema).count && found.allSatisfy(\.1))
        }
        if let undeclared { return .undeclared(undeclared) }
        if unchecked { return .unchecked }
        return .unknown(known: known, closed: closed)
    }

    /// Whether `schema` is a map: an object that declares no property in any alternative and allows others
    /// (`additionalProperties: { type: string }`, or `true`), so that any name is one of its keys, and none is
    /// a field the description forgot to declare.
    public func isMap(_ schema: APISchema) -> Bool {
        var allowsOthers = false
        for alternative in alternatives(of: schema) {
            for part in flattened(alternative) {
                if !part.properties.isEmpty { return false }
                switch part.additionalProperties {
                case .allowed, .schema: allowsOthers = true
                case .forbidden, .unspecified: break
                }
            }
        }
        return allowsOthers
    }

    /// The items schema of an array `schema`, when it says.
    public func items(of schema: APISchema) -> APISchema? {
        for alternative in alternatives(of: schema) {
            for part in flattened(alternative) {
                if let items = part.items { return items }
            }
        }
        return nil
    }

    /// A schema and its `allOf` parts, references followed, depth first.
    func flattened(_ schema: APISchema, depth: Int = 0) -> [APISchema] {
        let resolved = resolve(schema)
        guard depth < 32 else { return [resolved] }
        return [resolved] + resolved.allOf.flatMap { flattened($0, depth: depth + 1) }
    }
}
