import Foundation
import Yams

/// OpenAPI 3.1 schemas may close an object with `unevaluatedProperties: false`, which OpenAPIKit 6.4 does
/// not read. For an object schema with no `allOf`/`anyOf`/`oneOf` it means what `additionalProperties:
/// false` means, and is turned into that before decoding, so reading an undeclared field of it is an
/// error (grammar.md §6.9). With compositions it is left out: `additionalProperties: false` there would
/// forbid the properties the parts declare.
enum UnevaluatedProperties {
    /// Whether the text may hold the keyword (then `closed` walks the nodes).
    static func mayHave(_ data: Data) -> Bool {
        KeyScan.any("unevaluatedProperties", in: data) { occurrence, _ in
            if case .key = occurrence { return true }
            return false
        }
    }

    /// `node` with each schema that says `unevaluatedProperties: false` (and neither
    /// `additionalProperties` nor a composition) also saying `additionalProperties: false`; nil if none.
    static func closed(_ node: Node) -> Node? {
        let inner = node.replacingChildren(closed)
        guard case .mapping(let mapping) = inner ?? node,
            mapping.contains(where: { $0.key.string == "unevaluatedProperties" && $0.value.string == "false" }),
            !mapping.contains(where: {
                ["additionalProperties", "allOf", "anyOf", "oneOf"].contains($0.key.string ?? "")
            })
        else { return inner }
        var pairs = mapping.map { ($0.key, $0.value) }
        pairs.append((Node("additionalProperties"), Node("false")))
        return .mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark))
    }
}
