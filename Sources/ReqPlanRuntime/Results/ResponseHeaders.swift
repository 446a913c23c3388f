import ReqPlanTransport
import ReqPlanSyntax

/// Response headers as every part of reqplan shows them: one entry per field name, in the order
/// the names first came, repeated fields combined as RFC 9110 §5.3 says (values joined by `, `),
/// except `Set-Cookie`, which cannot be combined (RFC 9110 §5.3, RFC 6265 §3) and is a list of
/// its values. `expect.headers`, `steps.X.headers`, `--verbose` and every report read this one
/// form, so a repeated header cannot show as its first value in one place and its last in another.
public struct ResponseHeaders: Sendable {
    /// One field: its name in lower case and its combined value.
    public struct Field: Sendable, Hashable {
        public var name: String
        /// The values as they came, in order (one unless the field was repeated).
        public var values: [String]

        /// Whether the field is `Set-Cookie`, whose values stay a list.
        public var isList: Bool { name == "set-cookie" }

        /// The value expressions and matchers see: the joined text, or for `Set-Cookie` a list.
        public var value: Value {
            isList ? .list(values.map(Value.string)) : .string(values.joined(separator: ", "))
        }

        /// The lines `--verbose` prints: one per value for `Set-Cookie` (as it came), else one.
        public var lines: [String] {
            isList ? values : [values.joined(separator: ", ")]
        }
    }

    /// The fields, in the order their names first came.
    public let fields: [Field]

    /// Combines `headers` (as received, repeated fields repeated).
    public init(_ headers: some Sequence<(name: String, value: String)>) {
        var fields: [Field] = []
        for (name, value) in headers {
            let lowered = name.lowercased()
            if let index = fields.firstIndex(where: { $0.name == lowered }) {
                fields[index].values.append(value)
            } else {
                fields.append(Field(name: lowered, values: [value]))
            }
        }
        self.fields = fields
    }

    /// Combines `headers` (as received, repeated fields repeated).
    public init(_ headers: [HeaderField]) {
        self.init(headers.lazy.map { (name: $0.name, value: $0.value) })
    }

    /// The combined value of `name` (any case), or nil when the response has no such field.
    public subscript(_ name: String) -> Value? {
        let lowered = name.lowercased()
        return fields.first { $0.name == lowered }?.value
    }

    /// The headers as an object keyed by lower-case name (`steps.X.headers`).
    public var value: Value {
        .object(fields.map { Value.Field($0.name, $0.value) })
    }
}
