import Foundation
import Yams

/// The parts of a document that some operations need: the paths and methods kept, and the components
/// they refer to, directly or through other components. What OpenAPIKit decodes, and reqplan converts,
/// is then what a plan binds, not the whole description (BENCHMARKS.md, "API descriptions as published").
enum DocumentPruning {
    /// The keys of a path item that hold an operation, in the order OpenAPIKit lists a path item's
    /// endpoints (`OpenAPI.BuiltinHttpMethod`).
    static let methods = ["get", "post", "patch", "put", "delete", "head", "options", "trace", "query"]

    /// `root` with only the paths in `keep` (by the key as written), each with only the methods given
    /// (keys such as `parameters` kept), and without `webhooks`. A path item that is a reference is kept
    /// whole.
    static func keepingPaths(_ root: Node, _ keep: [String: Set<String>]) -> Node {
        guard case .mapping(let top) = root else { return root }
        var pairs: [(Node, Node)] = []
        for (key, value) in top {
            switch key.string {
            case "webhooks":
                continue
            case "paths":
                guard case .mapping(let paths) = value else { fallthrough }
                let kept = paths.compactMap { path, item -> (Node, Node)? in
                    guard let text = path.string, let methods = keep[text] else { return nil }
                    return (path, keepingMethods(item, methods))
                }
                pairs.append((key, .mapping(Node.Mapping(kept, paths.tag, paths.style, paths.mark))))
            default:
                pairs.append((key, value))
            }
        }
        return .mapping(Node.Mapping(pairs, top.tag, top.style, top.mark))
    }

    private static func keepingMethods(_ item: Node, _ keep: Set<String>) -> Node {
        guard case .mapping(let mapping) = item, item.referenceValue == nil else { return item }
        let pairs = mapping.filter { key, _ in
            guard let name = key.string, methods.contains(name) else { return true }
            return keep.contains(name)
        }
        return .mapping(Node.Mapping(pairs.map { ($0.key, $0.value) }, mapping.tag, mapping.style, mapping.mark))
    }

    /// `root` with only the components that the rest of the document refers to (`#/components/…`),
    /// directly or through other components; security schemes, which requirements name without a
    /// reference, are all kept.
    static func keepingReferencedComponents(_ root: Node) -> Node {
        guard case .mapping(let top) = root,
            let position = top.firstIndex(where: { $0.key.string == "components" }),
            case .mapping(let components) = top[position].value
        else { return root }
        var sections: [String: [String: Node]] = [:]
        for (section, entries) in components {
            guard let name = section.string, case .mapping(let entries) = entries else { continue }
            var byName: [String: Node] = [:]
            for (key, value) in entries {
                if let key = key.string, byName[key] == nil { byName[key] = value }
            }
            sections[name] = byName
        }
        var references = ComponentReferences()
        for (key, value) in top where key.string != "components" { references.collect(value) }
        while let next = references.pending.popLast() {
            if let node = sections[next.section]?[next.name] { references.collect(node) }
        }
        let kept = components.map { section, entries -> (Node, Node) in
            guard let name = section.string, name != "securitySchemes", case .mapping(let entries) = entries else {
                return (section, entries)
            }
            let pairs = entries.filter { key, _ in
                key.string.map { references.found.contains(ComponentReferences.Name(section: name, name: $0)) } ?? false
            }
            return (
                section,
                .mapping(Node.Mapping(pairs.map { ($0.key, $0.value) }, entries.tag, entries.style, entries.mark))
            )
        }
        var pairs = top.map { ($0.key, $0.value) }
        pairs[top.distance(from: top.startIndex, to: position)].1 = .mapping(
            Node.Mapping(kept, components.tag, components.style, components.mark))
        return .mapping(Node.Mapping(pairs, top.tag, top.style, top.mark))
    }
}

/// The components that references name (`#/components/schemas/Pet`, `#/components/schemas/Pet/properties/id`).
private struct ComponentReferences {
    struct Name: Hashable {
        var section: String
        var name: String
    }

    /// Every component named so far.
    var found: Set<Name> = []
    /// Those not yet walked.
    var pending: [Name] = []

    /// Records the components that references in `node` name.
    mutating func collect(_ node: Node) {
        switch node {
        case .mapping(let mapping):
            for (key, value) in mapping {
                if key.string == "$ref", let reference = value.string { record(reference) } else { collect(value) }
            }
        case .sequence(let sequence):
            for item in sequence { collect(item) }
        default:
            break
        }
    }

    private mutating func record(_ reference: String) {
        guard reference.hasPrefix("#/components/") else { return }
        // `#/components/SECTION/NAME/…`: the section and the name.
        let tokens = Array(ReferenceTarget.tokens(ofPointer: String(reference.dropFirst())).dropFirst().prefix(2))
        guard tokens.count == 2 else { return }
        let name = Name(section: tokens[0], name: tokens[1])
        if found.insert(name).inserted { pending.append(name) }
    }
}
