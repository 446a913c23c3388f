import Foundation
import ReqPlanSyntax

/// The first place a value breaks its schema.
public struct APISchemaMismatch: Sendable, Hashable, CustomStringConvertible {
    /// A JSON pointer (RFC 6901) to the value: `/items/3/id`; empty for the whole value.
    public var pointer: String
    /// What the schema wants there: "an integer", "one of `available`, `sold`", "property `name`".
    public var expected: String
    /// What is there: "a string", "no such property", "`\"x\"`".
    public var found: String

    /// Creates a mismatch.
    public init(pointer: String, expected: String, found: String) {
        self.pointer = pointer
        self.expected = expected
        self.found = found
    }

    public var description: String {
        "at `\(pointer.isEmpty ? "/" : pointer)`: expected \(expected), found \(found)"
    }
}

/// Checks JSON values against `APISchema`s: the response check at run time, literal bodies and parameter
/// values before it. JSON Schema semantics (draft 2020-12 as OpenAPI 3.1 uses it) for the keywords the
/// model has; `additionalProperties` unspecified allows other properties, as JSON Schema says.
public struct APISchemaValidator: Sendable {
    /// Where references point.
    public let table: APISchemaTable

    /// Creates a validator over the named schemas of a description.
    public init(table: APISchemaTable) {
        self.table = table
    }

    /// The first place `value` breaks `schema`, in document order; `nil` when it fits.
    public func firstMismatch(_ value: Value, against schema: APISchema) -> APISchemaMismatch? {
        var path = Path()
        return mismatch(value, schema, path: &path, depth: 0)
    }

    /// Where the value being checked is: the pointer is written only for a mismatch (a response check
    /// visits every field of every response).
    struct Path {
        enum Part {
            case key(String)
            case index(Int)
        }

        var parts: [Part] = []

        /// RFC 6901: `/items/3/id`; empty for the whole value.
        var pointer: String {
            parts.map { part in
                switch part {
                case .key(let key): "/" + APISchemaValidator.escape(key)
                case .index(let index): "/\(index)"
                }
            }.joined()
        }

        /// The pointer of a part below this one.
        func pointer(below part: Part) -> String {
            var inner = self
            inner.parts.append(part)
            return inner.pointer
        }
    }

    private func mismatch(_ value: Value, _ schema: APISchema, path: inout Path, depth: Int, detail: Bool = true)
        -> APISchemaMismatch?
    {
        let schema = table.resolve(schema)
        // Nesting and compositions together (a schema whose `allOf` holds itself ends here).
        guard depth < 64 else { return nil }
        if let types = schema.types, !types.contains(where: { APIType(of: value).fits($0) }) {
            return failure(detail, path.pointer, Self.describe(types), Self.describe(value))
        }
        if let allowed = schema.enumValues, !allowed.contains(where: { $0.schemaEquals(value) }) {
            func list() -> String { allowed.prefix(8).map { "`\($0.jsonText())`" }.joined(separator: ", ") }
            return failure(
                detail, path.pointer, "one of " + list() + (allowed.count > 8 ? ", …" : ""), Self.describe(value))
        }
        if let pattern = schema.pattern, case .string(let text) = value,
            // Compiled once per pattern (a response check runs on every response), matched within the
            // evaluation's limits: the description gives the pattern and the server the text.
            let expression = try? RegularExpression.compile(pattern)
        {
            do {
                if try RegularExpression.firstMatch(of: expression, in: text) == nil {
                    return failure(detail, path.pointer, "text matching `\(pattern)`", Self.describe(value))
                }
            } catch {
                return failure(
                    detail, path.pointer, "text matching `\(pattern)` (the match was stopped: \(error.message))",
                    Self.describe(value))
            }
        }
        switch value {
        case .object(let fields):
            if !schema.required.isEmpty {
                let missing = schema.required.filter { name in !fields.contains(where: { $0.key == name }) }
                if let name = missing.min() {
                    return failure(
                        detail, path.pointer(below: .key(name)), "required property `\(name)`", "no such property")
                }
            }
            for field in fields {
                let inner: APISchema
                if let property = schema.property(field.key) {
                    inner = property
                } else {
                    switch schema.additionalProperties {
                    case .forbidden:
                        let names = schema.properties.map(\.name)
                        return failure(
                            detail, path.pointer(below: .key(field.key)),
                            names.isEmpty ? "no properties" : "only " + names.map { "`\($0)`" }.joined(separator: ", "),
                            "property `\(field.key)`")
                    case .schema(let additional):
                        inner = additional
                    case .allowed, .unspecified:
                        continue
                    }
                }
                path.parts.append(.key(field.key))
                defer { path.parts.removeLast() }
                if let problem = mismatch(field.value, inner, path: &path, depth: depth + 1, detail: detail) {
                    return problem
                }
            }
        case .list(let items):
            if let itemSchema = schema.items {
                for (index, item) in items.enumerated() {
                    path.parts.append(.index(index))
                    defer { path.parts.removeLast() }
                    if let problem = mismatch(item, itemSchema, path: &path, depth: depth + 1, detail: detail) {
                        return problem
                    }
                }
            }
        default:
            break
        }
        for part in schema.allOf {
            if let problem = mismatch(value, part, path: &path, depth: depth + 1, detail: detail) { return problem }
        }
        // The alternatives are first only tried; the reasons are written when they are shown.
        if !schema.anyOf.isEmpty,
            !schema.anyOf.contains(where: { mismatch(value, $0, path: &path, depth: depth + 1, detail: false) == nil })
        {
            guard detail else { return Self.unexplained }
            let problems = schema.anyOf.compactMap { mismatch(value, $0, path: &path, depth: depth + 1) }
            return Self.noAlternative(problems, at: path.pointer)
        }
        if !schema.oneOf.isEmpty {
            let fitting = schema.oneOf.count {
                mismatch(value, $0, path: &path, depth: depth + 1, detail: false) == nil
            }
            if fitting == 0 {
                guard detail else { return Self.unexplained }
                let problems = schema.oneOf.compactMap { mismatch(value, $0, path: &path, depth: depth + 1) }
                return Self.noAlternative(problems, at: path.pointer)
            }
            if fitting > 1 {
                return failure(
                    detail, path.pointer, "exactly one of the `oneOf` schemas", "a value that fits \(fitting) of them")
            }
        }
        return nil
    }

    /// Why a value fits none of the alternatives: the reason of the one that got furthest into the value;
    /// when every one failed at the value itself, what each wanted (`type: [string, integer]` read as
    /// `anyOf`: "a string or an integer").
    private static func noAlternative(_ problems: [APISchemaMismatch], at pointer: String) -> APISchemaMismatch? {
        guard let deepest = problems.max(by: { $0.pointer.count < $1.pointer.count }) else { return nil }
        guard problems.count > 1, problems.allSatisfy({ $0.pointer == pointer }) else { return deepest }
        var wanted: [String] = []
        for problem in problems where !wanted.contains(problem.expected) { wanted.append(problem.expected) }
        let expected =
            wanted.count == 1
            ? wanted[0] : wanted.dropLast().joined(separator: ", ") + " or " + (wanted.last ?? "")
        return APISchemaMismatch(pointer: pointer, expected: expected, found: deepest.found)
    }

    /// A mismatch, its texts written only when `detail` (an alternative being tried needs none).
    private func failure(
        _ detail: Bool, _ pointer: @autoclosure () -> String, _ expected: @autoclosure () -> String,
        _ found: @autoclosure () -> String
    ) -> APISchemaMismatch {
        detail ? APISchemaMismatch(pointer: pointer(), expected: expected(), found: found()) : Self.unexplained
    }

    /// What an alternative tried without `detail` gives when it does not fit.
    private static let unexplained = APISchemaMismatch(pointer: "", expected: "", found: "")

    /// "an integer", "a string or null".
    static func describe(_ types: Set<APIType>) -> String {
        let sorted = types.sorted()
        if sorted.count == 1 { return sorted[0].withArticle }
        return sorted.dropLast().map(\.withArticle).joined(separator: ", ") + " or " + (sorted.last?.withArticle ?? "")
    }

    /// "a string (`\"abc\"`)", "an object".
    static func describe(_ value: Value) -> String {
        switch value {
        case .object, .list: return APIType(of: value).withArticle
        case .null: return "null"
        default:
            var text = value.jsonText()
            if text.count > 40 { text = String(text.prefix(37)) + "…" }
            return "\(APIType(of: value).withArticle) (`\(text)`)"
        }
    }

    /// RFC 6901: `~` → `~0`, `/` → `~1`.
    static func escape(_ key: String) -> String {
        key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}

extension Value {
    /// JSON Schema equality (`enum`, `const`): numbers by value, objects ignoring key order.
    func schemaEquals(_ other: Value) -> Bool {
        languageEquals(other)
    }
}
