import ReqPlanSyntax

/// The keys the plan format allows at a place, with their descriptions: read from the JSON Schema that
/// `reqplan schema` prints (`PlanSchema`), which is generated from the parser's own key tables, so
/// completion offers exactly the keys the parser takes.
public struct SchemaOutline: Sendable {
    /// One step of the way from the document's root to a mapping.
    public enum PathElement: Sendable, Hashable {
        /// The value of a key.
        case key(String)
        /// An item of a list.
        case item
    }

    /// A key that may be written, and what it means.
    public struct Key: Sendable, Hashable {
        /// The key.
        public var name: String
        /// Its description in the schema, if any.
        public var description: String?
    }

    private let root: Value

    /// The outline of the plan schema.
    public static let plan = SchemaOutline(schema: (try? Value.parseJSON(PlanSchema.json)) ?? .object([]))

    /// An outline of `schema` (a JSON Schema whose `$ref`s point into its own `$defs`).
    public init(schema: Value) {
        root = schema
    }

    /// The keys the mapping at `path` may have, in the schema's order; empty when the path leads nowhere
    /// the schema knows (a free-form value, a misspelt key on the way).
    public func keys(at path: [PathElement]) -> [Key] {
        var nodes = [root]
        for element in path {
            nodes = nodes.flatMap(alternatives).flatMap { child(of: $0, element) }
            if nodes.isEmpty { return [] }
        }
        var keys: [Key] = []
        var seen: Set<String> = []
        for node in nodes.flatMap(alternatives) {
            guard case .object(let properties)? = node["properties"] else { continue }
            for property in properties where property.value != .bool(false) && property.key != "<<" {
                if seen.insert(property.key).inserted {
                    keys.append(Key(name: property.key, description: description(property.value)))
                }
            }
        }
        return keys
    }

    /// The schema of `element` under `node` (one of its alternatives).
    private func child(of node: Value, _ element: PathElement) -> [Value] {
        switch element {
        case .item:
            return node["items"].map { [$0] } ?? []
        case .key(let name):
            if let property = node["properties"]?[name], property != .bool(false) { return [property] }
            if let other = node["additionalProperties"], case .object = other { return [other] }
            return []
        }
    }

    /// `node` and every schema it stands for: through `$ref`, `allOf`, `anyOf`, `oneOf`, `then` and `else`
    /// (depth-limited, as `$defs` may refer to each other).
    private func alternatives(_ node: Value) -> [Value] {
        var result: [Value] = []
        var stack: [(Value, Int)] = [(node, 0)]
        while let (current, depth) = stack.popLast() {
            guard case .object = current, depth < 16 else { continue }
            result.append(current)
            if case .string(let reference)? = current["$ref"], reference.hasPrefix("#/$defs/"),
                let target = root["$defs"]?[String(reference.dropFirst("#/$defs/".count))]
            {
                stack.append((target, depth + 1))
            }
            for combinator in ["allOf", "anyOf", "oneOf"] {
                if case .list(let members)? = current[combinator] {
                    stack.append(contentsOf: members.reversed().map { ($0, depth + 1) })
                }
            }
            for branch in ["then", "else"] {
                if let member = current[branch] { stack.append((member, depth + 1)) }
            }
        }
        return result
    }

    /// The description of a property, on it or on what it refers to.
    private func description(_ property: Value) -> String? {
        for node in alternatives(property) {
            if case .string(let text)? = node["description"] { return text }
        }
        return nil
    }
}
