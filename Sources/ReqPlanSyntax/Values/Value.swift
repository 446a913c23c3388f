/// A JSON-like value: what YAML literals, JSON bodies, inputs and expressions produce.
///
/// Objects keep their keys in order, so a JSON body is sent as written and a
/// report lists fields as the server returned them.
public enum Value: Sendable, Hashable {
    case null
    case bool(Bool)
    /// An integer, kept exact (ids from servers often exceed 2^53).
    case int(Int)
    /// An integer outside `Int`'s range, kept as written in decimal (`18446744073709551615`, an optional
    /// `-`, no leading zeros): sent and shown with its digits; arithmetic and comparisons take its nearest
    /// `Double`.
    case largeInt(String)
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
        case .int, .largeInt, .double: .number
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
        case .largeInt(let digits): Double(digits)
        case .double(let value): value
        default: nil
        }
    }

    /// The number an integer's decimal text stands for: `.int` when `Int` holds it, else `.largeInt` with
    /// its digits (a `+` and leading zeros dropped); `nil` when `text` is not an optionally signed run of
    /// decimal digits.
    public static func integer(fromDecimal text: some StringProtocol) -> Value? {
        var digits = Substring(text)
        var negative = false
        if digits.first == "-" || digits.first == "+" {
            negative = digits.first == "-"
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        if let value = Int(text.hasPrefix("+") ? String(text.dropFirst()) : String(text)) { return .int(value) }
        let significant = digits.drop(while: { $0 == "0" })
        return .largeInt((negative ? "-" : "") + (significant.isEmpty ? "0" : significant))
    }

    /// The first number in the value that is infinite or NaN (YAML's `.inf`, `.nan`), with its JSON pointer
    /// (`""` for the value itself, `/items/0` inside it); `nil` when every number is finite. JSON and text
    /// have no way to write one, so nothing sends it. Walks without recursion.
    public var firstNonFinite: (pointer: String, number: Double)? {
        var pending: [(Value, String)] = [(self, "")]
        while let (value, pointer) = pending.popLast() {
            switch value {
            case .double(let number) where !number.isFinite: return (pointer, number)
            case .list(let items):
                for (index, item) in items.enumerated().reversed() { pending.append((item, pointer + "/\(index)")) }
            case .object(let fields):
                for field in fields.reversed() {
                    let key = field.key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(
                        of: "/", with: "~1")
                    pending.append((field.value, pointer + "/" + key))
                }
            default: break
            }
        }
        return nil
    }

    /// How many values the value holds, itself included, counted up to `limit`: what comparing it costs an
    /// evaluation's budget (`EvaluationMeter`), without walking a huge value twice. No recursion.
    public func size(upTo limit: Int = 100_000) -> Int {
        var count = 0
        var pending = [self]
        while let next = pending.popLast(), count < limit {
            count += 1
            switch next {
            case .list(let items): pending += items.prefix(max(0, limit - count - pending.count))
            case .object(let fields): pending += fields.prefix(max(0, limit - count - pending.count)).map(\.value)
            default: break
            }
        }
        return count
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
        case (.largeInt(let a), .largeInt(let b)): a == b
        case (.largeInt, .int), (.int, .largeInt): false
        case (.largeInt(let a), .double(let b)): Double(a) == b
        case (.double(let a), .largeInt(let b)): a == Double(b)
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

    /// The JSON Schema type of a value of this type (`list` is `array`).
    public var jsonSchemaType: String {
        switch self {
        case .string: "string"
        case .number: "number"
        case .boolean: "boolean"
        case .list: "array"
        case .object: "object"
        case .null: "null"
        }
    }

    /// "a string", "an object", for messages.
    public var withArticle: String {
        switch self {
        case .object: "an object"
        case .null: "null"
        default: "a \(rawValue)"
        }
    }
}
