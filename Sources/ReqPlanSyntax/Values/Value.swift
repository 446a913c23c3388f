/// A JSON-like value: what YAML literals, JSON bodies, inputs and expressions produce.
///
/// Objects keep their keys in order, so a JSON body is sent as written and a
/// report lists fields as the server returned them.
public enum Value: Sendable, Hashable {
    case null
    case bool(Bool)
    /// An integer, kept exact (ids from servers often exceed 2^53).
    case int(Int)
    case double(Double)
    case string(String)
    case list([Value])
    case object([Field])

    /// One key and value of an object.
    public struct Field: Sendable, Hashable {
        public var key: String
        public var value: Value
        public init(_ key: String, _ value: Value) {
            self.key = key
            self.value = value
        }
    }

    /// The value's type, as the language names it.
    public var type: ValueType {
        switch self {
        case .null: .null
        case .bool: .boolean
        case .int, .double: .number
        case .string: .string
        case .list: .list
        case .object: .object
        }
    }

    /// The value of `key` in an object (the last one if repeated), or `nil`.
    public subscript(key: String) -> Value? {
        guard case .object(let fields) = self else { return nil }
        return fields.last(where: { $0.key == key })?.value
    }

    /// The number as a `Double`, for ints and doubles.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// Whether the value counts as true in a condition: only `true` does.
    public var isTrue: Bool { self == .bool(true) }

    /// The text a value becomes when interpolated into a string: strings as they
    /// are, `null` as the empty string, numbers and booleans as written, lists
    /// and objects as compact JSON.
    public var interpolated: String {
        switch self {
        case .null: ""
        case .string(let string): string
        default: jsonText()
        }
    }

    /// Equality as the language defines it: ints and doubles compare by value.
    public func languageEquals(_ other: Value) -> Bool {
        switch (self, other) {
        case (.int(let a), .double(let b)): Double(a) == b
        case (.double(let a), .int(let b)): a == Double(b)
        case (.list(let a), .list(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.languageEquals($1) }
        case (.object(let a), .object(let b)):
            a.count == b.count
                && a.allSatisfy { field in other[field.key].map { field.value.languageEquals($0) } ?? false }
        default: self == other
        }
    }
}

/// The types a value can have, as written in `type:` matchers and input declarations.
public enum ValueType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case string, number, boolean, list, object, null
    public var description: String { rawValue }

    /// "a string", "an object", for messages.
    public var withArticle: String {
        switch self {
        case .object: "an object"
        case .null: "null"
        default: "a \(rawValue)"
        }
    }
}
