/// A YAML value that may contain `${{ }}` templates anywhere inside: a JSON
/// body, a query value, a `for_each` list, an expected value.
public indirect enum ValueTemplate: Sendable, Hashable {
    /// A value with no expression in it (a number, `true`, a plain string).
    case literal(Value, SourceRange)
    /// A string with at least one `${{ }}`.
    case template(Template)
    /// A sequence.
    case list([ValueTemplate], SourceRange)
    /// A mapping; keys are literal.
    case object([Entry], SourceRange)

    /// One entry of a mapping.
    public struct Entry: Sendable, Hashable {
        public var key: Located<String>
        public var value: ValueTemplate
        public init(key: Located<String>, value: ValueTemplate) {
            self.key = key
            self.value = value
        }
    }

    /// Where the value was written.
    public var range: SourceRange {
        switch self {
        case .literal(_, let range), .list(_, let range), .object(_, let range): range
        case .template(let template): template.range
        }
    }

    /// The value, when it holds no expression.
    public var literalValue: Value? {
        switch self {
        case .literal(let value, _): return value
        case .template: return nil
        case .list(let items, _):
            var values: [Value] = []
            for item in items {
                guard let value = item.literalValue else { return nil }
                values.append(value)
            }
            return .list(values)
        case .object(let entries, _):
            var fields: [Value.Field] = []
            for entry in entries {
                guard let value = entry.value.literalValue else { return nil }
                fields.append(.init(entry.key.value, value))
            }
            return .object(fields)
        }
    }

    /// Every expression inside, depth first in document order.
    public var expressions: [Expression] {
        switch self {
        case .literal: []
        case .template(let template): template.expressions
        case .list(let items, _): items.flatMap(\.expressions)
        case .object(let entries, _): entries.flatMap(\.value.expressions)
        }
    }
}
