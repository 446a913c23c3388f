import ReqPlanSyntax

/// The demo API's JSON: reqplan's own `Value`, whose objects keep their members in the order written, so the
/// demo API answers with the keys in the order clients sent them (and tests can rely on it). It is read and
/// written by the language's JSON reader and writer (`Value.parseJSON`, `jsonText`); what is here is the
/// literals and accessors the routes write their answers with.
typealias JSON = Value

// The literals, so a route writes `["id": .int(id), "ok": true]`. Public, as conformances are; no target but
// the demo API's and its users' sees them.
extension Value: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A string literal is a JSON string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal is a JSON integer.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A boolean literal is a JSON boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A float literal is a JSON decimal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// An array literal is a JSON array.
    public init(arrayLiteral elements: Value...) { self = .list(elements) }
    /// A dictionary literal is a JSON object, members in the order written.
    public init(dictionaryLiteral elements: (String, Value)...) {
        self = .object(elements.map { Field($0.0, $0.1) })
    }
}

extension Value {
    /// A string, or null for `nil`.
    static func optional(_ text: String?) -> Value { text.map { .string($0) } ?? .null }

    /// A list of strings.
    static func strings(_ texts: [String]) -> Value { .list(texts.map { .string($0) }) }

    /// The members of an object, `nil` for any other value.
    var members: [Field]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements of a list, `nil` for any other value.
    var elements: [Value]? {
        if case .list(let elements) = self { return elements }
        return nil
    }

    /// The text of a string, `nil` for any other value.
    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// A whole number: an integer, or a decimal without fraction.
    var integer: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value.rounded() == value && abs(value) < 9e15: return Int(value)
        default: return nil
        }
    }

    /// The value of a boolean, `nil` for any other value.
    var boolean: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// A scalar as text (strings as is, numbers and booleans as JSON writes them), `nil` otherwise.
    var scalarText: String? {
        switch self {
        case .string(let text): return text
        case .int, .largeInt, .double, .bool: return jsonText()
        default: return nil
        }
    }

    /// This object with `key` set to `value`: replaced in place when present, appended otherwise.
    func setting(_ key: String, to value: Value) -> Value {
        guard case .object(var members) = self else { return self }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            members.append(Field(key, value))
        }
        return .object(members)
    }

    /// This object without the member `key`.
    func removing(_ key: String) -> Value {
        guard case .object(let members) = self else { return self }
        return .object(members.filter { $0.key != key })
    }
}
