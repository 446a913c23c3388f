/// A parsed XML (or HTML) document in the XPath 1.0 data model: a root, elements, attributes, text,
/// comments and processing instructions, numbered in document order.
///
/// Nodes live in one array and refer to each other by index; a node's index is its position in
/// document order (an element, then its attributes, then its children), so a sorted list of indices
/// is a node-set in document order, and a node's descendants are the indices after it up to its `last`.
struct XMLTree {
    /// The kinds of node of the XPath data model (namespace nodes are not represented).
    enum Kind: Equatable {
        case root, element, attribute, text, comment, processingInstruction
    }

    /// One node.
    struct Node {
        var kind: Kind
        /// The qualified name of an element or attribute as written, or a processing instruction's target.
        var name: String
        /// The text of a text node, an attribute, a comment or a processing instruction.
        var value: String
        /// The parent's index (-1 for the root). An attribute's parent is its element.
        var parent: Int
        var children: [Int] = []
        var attributes: [Int] = []
        /// The index of the last node of the subtree (the node itself when it has no descendants).
        var last: Int = 0
    }

    /// Every node; index 0 is the root.
    private(set) var nodes: [Node] = [Node(kind: .root, name: "", value: "", parent: -1)]
    /// Whether the document was read by HTML rules (names in lower case).
    var isHTML = false

    subscript(index: Int) -> Node { nodes[index] }

    /// Adds a node under `parent` (as an attribute when it is one).
    @discardableResult
    mutating func append(_ kind: Kind, name: String = "", value: String = "", to parent: Int) -> Int {
        // Adjacent text is one text node in the data model.
        if kind == .text, let previous = nodes[parent].children.last, nodes[previous].kind == .text,
            previous == nodes.count - 1
        {
            nodes[previous].value += value
            return previous
        }
        let index = nodes.count
        nodes.append(Node(kind: kind, name: name, value: value, parent: parent))
        if kind == .attribute {
            nodes[parent].attributes.append(index)
        } else {
            nodes[parent].children.append(index)
        }
        return index
    }

    /// Sets `last` of every node, once the tree is complete.
    mutating func finish() {
        for index in nodes.indices.reversed() {
            let node = nodes[index]
            nodes[index].last = max(
                index, node.children.last.map { nodes[$0].last } ?? index,
                node.attributes.last ?? index)
        }
    }

    /// How many ancestors a node has (0 for the root).
    func depth(of index: Int) -> Int {
        var depth = 0
        var current = nodes[index].parent
        while current >= 0 {
            depth += 1
            current = nodes[current].parent
        }
        return depth
    }

    /// The namespace URI of an element's or attribute's name, from the `xmlns` declarations in scope
    /// (empty when it has none).
    func namespaceURI(_ index: Int) -> String {
        let node = nodes[index]
        guard node.kind == .element || node.kind == .attribute else { return "" }
        let prefix = node.name.firstIndex(of: ":").map { String(node.name[..<$0]) }
        if prefix == "xml" { return "http://www.w3.org/XML/1998/namespace" }
        // An unprefixed attribute is in no namespace.
        if prefix == nil && node.kind == .attribute { return "" }
        let declaration = prefix.map { "xmlns:" + $0 } ?? "xmlns"
        var current = node.kind == .attribute ? node.parent : index
        while current > 0 {
            for attribute in nodes[current].attributes where nodes[attribute].name == declaration {
                return nodes[attribute].value
            }
            current = nodes[current].parent
        }
        return ""
    }
}
