import Foundation
import Yams

/// Schema spellings that real descriptions use and OpenAPIKit refuses, mended before decoding so that they
/// never fail a load (each keeps what reqplan checks):
/// - `items` as a list of schemas (JSON Schema draft 4 tuples, common in Swagger 2.0): an `items` schema
///   that is `anyOf` them, or, in a schema without `type`, the schema itself `anyOf` them;
/// - an integer bound beyond 64 bits (`maximum: 9223372036854776000`, a rounded 2^63): the largest
///   (smallest) 64-bit integer, which OpenAPIKit can hold;
/// - in a 3.1 document, OpenAPI 3.0's boolean `exclusiveMinimum: true` beside `minimum: 0`: 3.1's
///   `exclusiveMinimum: 0` (`false`: left out);
/// - an object's `properties` beside `allOf`, `anyOf` or `oneOf` (OpenAPIKit reads the composition and
///   drops the properties): the object part becomes one more `allOf` part, beside the composition.
enum SchemaRepairs {
    /// False if the text has neither an `items` key followed by a list nor a bound of 19 digits or more.
    static func mayNeedRepairs(_ data: Data) -> Bool {
        let list = KeyScan.any("items", in: data, acrossLines: true) { occurrence, bytes in
            guard case .key(let value) = occurrence, value < bytes.count else { return false }
            return bytes[value] == UInt8(ascii: "[") || bytes[value] == UInt8(ascii: "-")
        }
        if list { return true }
        let compositions = ["allOf", "anyOf", "oneOf"].contains { key in
            KeyScan.any(key, in: data) { occurrence, _ in
                if case .key = occurrence { return true }
                return false
            }
        }
        if compositions { return true }
        return ["maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"].contains { key in
            KeyScan.any(key, in: data) { occurrence, bytes in
                guard case .key(var value) = occurrence else { return false }
                if value < bytes.count, bytes[value] == UInt8(ascii: "-") { value += 1 }
                var digits = 0
                while value + digits < bytes.count, (48...57).contains(bytes[value + digits]) { digits += 1 }
                return digits >= 19
                    || (value < bytes.count && [UInt8(ascii: "t"), UInt8(ascii: "f")].contains(bytes[value]))
            }
        }
    }

    /// `node` with those spellings mended, or nil if it has none.
    /// - Parameter openAPI31: whether the document is OpenAPI 3.1 (where bounds are numbers only).
    static func repaired(_ node: Node, openAPI31: Bool) -> Node? {
        let inner = node.replacingChildren { repaired($0, openAPI31: openAPI31) }
        guard case .mapping(let mapping) = inner ?? node else { return inner }
        // Most mappings have nothing to mend: tell so without copying them (a 5 MB document has hundreds
        // of thousands).
        var composition = false
        var properties = false
        var candidate = false
        for (key, _) in mapping {
            switch key.string ?? "" {
            case "allOf", "anyOf", "oneOf": composition = true
            case "properties": properties = true
            case "items", "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum": candidate = true
            default: break
            }
        }
        guard candidate || (composition && properties) else { return inner }
        var changed = false
        var dropped: Set<String> = []
        var pairs = mapping.map { key, value -> (Node, Node) in
            switch key.string ?? "" {
            case let name
            where openAPI31 && ["exclusiveMinimum", "exclusiveMaximum"].contains(name)
                && ["true", "false"].contains(value.string ?? ""):
                changed = true
                let bound = name == "exclusiveMinimum" ? "minimum" : "maximum"
                dropped.insert(name)
                guard value.string == "true", let limit = mapping.first(where: { $0.key.string == bound })?.value
                else { return (key, value) }
                dropped.remove(name)
                dropped.insert(bound)
                return (key, limit)
            case "items":
                guard case .sequence(let list) = value else { return (key, value) }
                changed = true
                // Without `type: array` the list names what the value itself may be (Slack writes
                // `objs_conversation: { items: [ … ] }` for one of three objects).
                guard mapping.contains(where: { $0.key.string == "type" }) else { return (Node("anyOf"), value) }
                return (key, .mapping(Node.Mapping([(Node("anyOf"), .sequence(list))])))
            case "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum":
                guard let text = value.string, text.count >= 19, Int(text) == nil,
                    let number = Double(text), number.rounded() == number
                else { return (key, value) }
                changed = true
                return (key, Node(String(number < 0 ? Int.min : Int.max)))
            default:
                return (key, value)
            }
        }
        if let split = Self.objectBesideComposition(pairs) {
            pairs = split
            changed = true
        }
        guard changed else { return inner }
        pairs.removeAll { dropped.contains($0.0.string ?? "") }
        return .mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark))
    }

    /// The keys of an object part that OpenAPIKit drops beside a composition.
    private static let objectKeys: Set<String> = [
        "properties", "required", "additionalProperties", "minProperties", "maxProperties",
    ]

    /// A schema's keys with its object part (`properties`, `required`…) moved into an `allOf` beside its
    /// composition; nil when it has no such part beside one.
    private static func objectBesideComposition(_ pairs: [(Node, Node)]) -> [(Node, Node)]? {
        let names = pairs.map { $0.0.string ?? "" }
        let compositions = names.filter { ["allOf", "anyOf", "oneOf"].contains($0) }
        guard !compositions.isEmpty, names.contains("properties") else { return nil }
        var object: [(Node, Node)] = [(Node("type"), Node("object"))]
        var rest: [(Node, Node)] = []
        var parts: [Node] = []
        for (key, value) in pairs {
            let name = key.string ?? ""
            if objectKeys.contains(name) {
                object.append((key, value))
            } else if name == "allOf", case .sequence(let items) = value {
                parts += items
            } else if name == "anyOf" || name == "oneOf" {
                parts.append(.mapping(Node.Mapping([(key, value)])))
            } else {
                rest.append((key, value))
            }
        }
        parts.insert(.mapping(Node.Mapping(object)), at: 0)
        return rest + [(Node("allOf"), .sequence(Node.Sequence(parts)))]
    }
}
