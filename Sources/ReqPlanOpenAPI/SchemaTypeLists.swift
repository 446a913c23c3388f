import Foundation
import Yams

/// OpenAPI 3.1 lets a schema list several types (`type: [string, integer]`). OpenAPIKit 6.4 keeps only the
/// first one besides `"null"` and drops the others without a warning, so a value of another listed type would
/// be reported as wrong. Before decoding, such a list becomes an `anyOf` with one schema per type: in JSON
/// Schema the two mean the same (keywords of one type, such as `minimum`, apply only to values of that
/// type), and OpenAPIKit reads `anyOf` whole. A list of one type and `"null"` is left as it is: OpenAPIKit
/// reads it as a nullable schema.
enum SchemaTypeLists {
    /// False if the text has no `type` key followed by a list (`type: [` or `type:` and a `-` item), written
    /// as JSON and YAML write keys; true otherwise (then `expanded` walks the nodes).
    static func mayHaveTypeLists(_ data: Data) -> Bool {
        KeyScan.any("type", in: data, acrossLines: true) { occurrence, bytes in
            guard case .key(let value) = occurrence, value < bytes.count else { return false }
            return bytes[value] == UInt8(ascii: "[") || bytes[value] == UInt8(ascii: "-")
        }
    }

    /// `node` with every schema's list of several types turned into an `anyOf`, or nil if it has none.
    static func expanded(_ node: Node) -> Node? {
        let inner = node.replacingChildren(expanded)
        guard case .mapping(let mapping) = inner ?? node else { return inner }
        var pairs = mapping.map { ($0.key, $0.value) }
        guard let typePosition = pairs.firstIndex(where: { $0.0.string == "type" }),
            case .sequence(let list) = pairs[typePosition].1
        else { return inner }
        let types = list.compactMap(\.string)
        guard types.count == list.count, types.filter({ $0 != "null" }).count > 1 else { return inner }
        pairs.remove(at: typePosition)
        let alternatives = Node.sequence(
            Node.Sequence(types.map { Node.mapping(Node.Mapping([(Node("type"), Node($0))])) }))
        let compositions = ["allOf", "anyOf", "oneOf"]
        if !pairs.contains(where: { compositions.contains($0.0.string ?? "") }) {
            pairs.insert((Node("anyOf"), alternatives), at: typePosition)
        } else {
            // OpenAPIKit reads one composition keyword per schema: all of them go into one `allOf`, each
            // alternative list as a schema of its own.
            var parts: [Node] = []
            if let allOf = pairs.firstIndex(where: { $0.0.string == "allOf" }),
                case .sequence(let items) = pairs[allOf].1
            {
                parts += items
            }
            parts.append(.mapping(Node.Mapping([(Node("anyOf"), alternatives)])))
            for keyword in ["anyOf", "oneOf"] {
                if let position = pairs.firstIndex(where: { $0.0.string == keyword }) {
                    parts.append(.mapping(Node.Mapping([(Node(keyword), pairs[position].1)])))
                }
            }
            pairs.removeAll { compositions.contains($0.0.string ?? "") }
            pairs.insert((Node("allOf"), .sequence(Node.Sequence(parts))), at: min(typePosition, pairs.count))
        }
        return .mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark))
    }
}
