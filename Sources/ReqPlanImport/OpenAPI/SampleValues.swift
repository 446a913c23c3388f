import ReqPlanPlanner
import ReqPlanSyntax

/// Values for requests written from an API description: the description's own example where it gives one
/// that fits its schema, else one made from the schema (`enum`'s first value, `default`, a value of its
/// `format`, else a plain value of its type), as Swagger UI and Postman fill a request. A string whose
/// schema has a `pattern` and no example cannot be made up: it becomes a required input.
struct SampleValues {
    /// The description's named schemas.
    let table: APISchemaTable
    /// What a made value is checked against.
    private let validator: APISchemaValidator
    /// The inputs a value that cannot be made becomes.
    var inputs: InputTable

    /// How deep a made value goes: a recursive schema (a tree of nodes) stops here.
    static let maxDepth = 6
    /// How many properties of an object that requires none are written.
    static let maxProperties = 24

    init(table: APISchemaTable, inputs: InputTable) {
        self.table = table
        self.validator = APISchemaValidator(table: table)
        self.inputs = inputs
    }

    /// Whether `value` fits `schema` as the checker reads it.
    func fits(_ value: Value, _ schema: APISchema?) -> Bool {
        guard let schema else { return true }
        return validator.firstMismatch(value, against: schema) == nil
    }

    /// Whether a made value fits `schema`: one holding an input's reference is taken to (its value is given
    /// at run time).
    func fits(_ value: Value?, _ schema: APISchema?) -> Bool {
        guard let value else { return true }
        return fits(value, schema)
    }

    /// A value of `schema` for the field or parameter `name`: `example` when it fits, else one made.
    mutating func value(_ schema: APISchema?, named name: String, example: Value? = nil) -> PlanValue {
        if let example, fits(example, schema) { return PlanValue(example) }
        guard let schema else { return .text(PlanText("value")) }
        return made(schema, named: name, depth: 0, through: [])
    }

    /// A value of `schema` as text (a parameter's): a scalar as JSON writes it, a string as it is.
    mutating func text(_ schema: APISchema?, named name: String, example: Value? = nil) -> PlanText {
        Self.text(of: value(schema, named: name, example: example))
    }

    /// A value as the text a parameter sends: a scalar as it is, a list or an object as JSON.
    static func text(of value: PlanValue) -> PlanText {
        switch value {
        case .text(let text): text
        case .null: PlanText("")
        case .bool(let flag): PlanText(flag ? "true" : "false")
        case .number(let digits): PlanText(digits)
        case .list, .object: PlanText(value.jsonTemplate)
        }
    }

    private mutating func made(_ schema: APISchema, named name: String, depth: Int, through: Set<String>)
        -> PlanValue
    {
        var seen = through
        if let reference = schema.reference {
            // A schema that holds itself (a tree's node) is written once along a path.
            guard !seen.contains(reference), depth < Self.maxDepth else { return .null }
            seen.insert(reference)
        }
        let resolved = table.resolve(schema)
        if let example = schema.example ?? resolved.example, fits(example, resolved) { return PlanValue(example) }
        if let first = resolved.enumValues?.first(where: { $0 != .null }) ?? resolved.enumValues?.first {
            return PlanValue(first)
        }
        let choices = (resolved.oneOf + resolved.anyOf).filter { table.types(of: $0) != [.null] }
        if !choices.isEmpty {
            // The first alternative whose value the whole schema takes (a `oneOf` refuses one that fits two).
            let values = choices.map { made($0, named: name, depth: depth + 1, through: seen) }
            return values.first { fits(Self.literal($0), resolved) } ?? values[0]
        }
        let types = table.types(of: resolved)
        let properties = self.properties(of: resolved)
        if !properties.all.isEmpty || types?.subtracting([.null]) == [.object] {
            guard depth < Self.maxDepth else { return .object([]) }
            // The required properties; of an object that requires none, at the top two levels, those whose
            // value fits (a starter body shows the fields, and is never one the description refuses).
            var members: [PlanValue.Member] = []
            for property in properties.all.prefix(Self.maxProperties * 4) {
                let required = properties.required.contains(property.name)
                guard required || (properties.required.isEmpty && depth < 2) else { continue }
                let value = made(property.schema, named: property.name, depth: depth + 1, through: seen)
                guard required || fits(Self.literal(value), property.schema) else { continue }
                members.append(PlanValue.Member(property.name, value))
                if !required && members.count >= Self.maxProperties { break }
            }
            return .object(members)
        }
        for part in resolved.allOf {
            let value = made(part, named: name, depth: depth + 1, through: seen)
            if value != .null { return value }
        }
        let type = (types ?? [.string]).sorted().first { $0 != .null } ?? .null
        switch type {
        case .null: return .null
        case .boolean: return .bool(true)
        case .integer, .number: return .number("1")
        case .array:
            guard let items = resolved.items, depth < Self.maxDepth else { return .list([]) }
            let item = made(items, named: name, depth: depth + 1, through: seen)
            return .list(item == .null ? [] : [item])
        case .object: return .object([])
        case .string:
            if let format = resolved.format ?? schema.format, let text = Self.formatted[format] {
                return .text(PlanText(text))
            }
            if resolved.pattern != nil || schema.pattern != nil {
                let input = inputs.input(
                    forSourceVariable: name, value: nil, secret: false,
                    description: "`\(name)`: the description gives no example of its pattern")
                return .text(.reference(.input(input)))
            }
            return .text(PlanText("string"))
        }
    }

    /// The properties of an object schema, those of its `allOf` parts merged in, with the names required.
    func properties(of schema: APISchema, depth: Int = 0) -> (
        all: [(name: String, schema: APISchema)], required: Set<String>
    ) {
        let resolved = table.resolve(schema)
        var all = resolved.properties
        var required = resolved.required
        guard depth < 16 else { return (all, required) }
        for part in resolved.allOf {
            let inner = properties(of: part, depth: depth + 1)
            all += inner.all.filter { property in !all.contains { $0.name == property.name } }
            required.formUnion(inner.required)
        }
        return (all, required)
    }

    /// The value `value` is, when it holds no reference; `nil` when one is only known at run time.
    static func literal(_ value: PlanValue) -> Value? {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let digits): return Int(digits).map(Value.int) ?? Double(digits).map(Value.double)
        case .text(let text): return text.literal.map(Value.string)
        case .list(let items):
            var values: [Value] = []
            for item in items {
                guard let value = literal(item) else { return nil }
                values.append(value)
            }
            return .list(values)
        case .object(let members):
            var fields: [Value.Field] = []
            for member in members {
                guard let value = literal(member.value) else { return nil }
                fields.append(Value.Field(member.key, value))
            }
            return .object(fields)
        }
    }

    /// Values of the string formats people meet most, as the checker and a server read them.
    static let formatted: [String: String] = [
        "date-time": "2024-01-01T00:00:00Z", "date": "2024-01-01", "time": "12:00:00",
        "uuid":
            "00000000-0000-4000-8000-000000000000", "email": "user@example.com", "uri": "https://example.com",
        "url": "https://example.com", "hostname": "example.com", "ipv4": "192.0.2.1", "ipv6": "2001:db8::1",
        "byte": "c3RyaW5n", "password": "string",
    ]
}
