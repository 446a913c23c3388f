import Yams

extension Node {
    /// This node with each child (a mapping's value, a sequence's item) replaced by `transform`'s result where
    /// that is not nil; nil when no child changed, so a walk over a document that changes nothing copies
    /// nothing. Keys, tags, styles and marks are kept.
    func replacingChildren(_ transform: (Node) throws -> Node?) rethrows -> Node? {
        try replacingChildren { _, child in try transform(child) }
    }

    /// As `replacingChildren(_:)`, `transform` also given each child's key: a mapping key's text, or an
    /// item's position in a sequence.
    func replacingChildren(_ transform: (_ key: String, Node) throws -> Node?) rethrows -> Node? {
        switch self {
        case .mapping(let mapping):
            var pairs: [(Node, Node)] = []
            var changed = false
            for (position, (key, value)) in mapping.enumerated() {
                if let new = try transform(key.string ?? "", value) {
                    if !changed {
                        pairs = mapping.prefix(position).map { ($0.key, $0.value) }
                        changed = true
                    }
                    pairs.append((key, new))
                } else if changed {
                    pairs.append((key, value))
                }
            }
            return changed ? .mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark)) : nil
        case .sequence(let sequence):
            var items: [Node] = []
            var changed = false
            for (position, item) in sequence.enumerated() {
                if let new = try transform(String(position), item) {
                    if !changed {
                        items = Array(sequence.prefix(position))
                        changed = true
                    }
                    items.append(new)
                } else if changed {
                    items.append(item)
                }
            }
            return changed ? .sequence(Node.Sequence(items, sequence.tag, sequence.style, sequence.mark)) : nil
        default:
            return nil
        }
    }

    /// The value of `$ref` when this is a mapping that has one (keys compared as text: `Node.Mapping`'s
    /// subscript resolves each key's tag on the way).
    var referenceValue: String? {
        guard case .mapping(let mapping) = self else { return nil }
        return mapping.first { $0.key.string == "$ref" }?.value.string
    }
}
