/// A JSON value whose object members keep the order they are written in, so the printed schema reads
/// in the order of the parser's key tables (editors show properties in that order).
///
/// Written with Swift literals (`["type": "string", "minimum": 1]`), it is what the schema generator
/// builds and prints; it is not a general JSON library (nothing here parses JSON).
enum SchemaJSON: Sendable {
    case string(String)
    case integer(Int)
    case number(Double)
    case bool(Bool)
    case null
    case array([SchemaJSON])
    case object([Member])

    /// One member of an object.
    struct Member: Sendable {
        var key: String
        var value: SchemaJSON
    }

    /// The member `key` of an object, if any.
    subscript(key: String) -> SchemaJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// This object with `other`'s members appended; a key already present takes `other`'s value in place.
    func merging(_ other: SchemaJSON) -> SchemaJSON {
        guard case .object(var members) = self, case .object(let added) = other else { return self }
        for member in added {
            if let index = members.firstIndex(where: { $0.key == member.key }) {
                members[index].value = member.value
            } else {
                members.append(member)
            }
        }
        return .object(members)
    }

    /// `lhs.merging(rhs)`: written with literals, `["title": "…"] + forbidding(keys)`.
    static func + (lhs: SchemaJSON, rhs: SchemaJSON) -> SchemaJSON { lhs.merging(rhs) }

    // MARK: Printing

    /// Pretty-printed JSON: two spaces per level, `"key": value`, one array element per line.
    func printed(indent: Int = 0) -> String {
        let inner = String(repeating: "  ", count: indent + 1)
        let outer = String(repeating: "  ", count: indent)
        switch self {
        case .string(let text): return Self.quoted(text)
        case .integer(let value): return String(value)
        case .number(let value):
            return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        case .array(let elements):
            if elements.isEmpty { return "[]" }
            let lines = elements.map { inner + $0.printed(indent: indent + 1) }
            return "[\n" + lines.joined(separator: ",\n") + "\n" + outer + "]"
        case .object(let members):
            if members.isEmpty { return "{}" }
            let lines = members.map { inner + Self.quoted($0.key) + ": " + $0.value.printed(indent: indent + 1) }
            return "{\n" + lines.joined(separator: ",\n") + "\n" + outer + "}"
        }
    }

    /// A JSON string literal (RFC 8259): quotes, backslashes and control characters escaped, the rest as is.
    static func quoted(_ text: String) -> String {
        var result = ""
        ReqPlanSyntax.Value.writeString(text, to: &result)
        return result
    }
}

extension SchemaJSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .integer(value) }
    init(floatLiteral value: Double) { self = .number(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(arrayLiteral elements: SchemaJSON...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, SchemaJSON)...) {
        self = .object(elements.map { Member(key: $0.0, value: $0.1) })
    }
}
