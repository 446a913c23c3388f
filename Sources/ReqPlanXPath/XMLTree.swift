/// A parsed XML (or HTML) document in the XPath 1.0 data model: a root, elements, attributes, text,
/// comments and processing instructions, numbered in document order.
///
/// Nodes live in one array and refer to each other by index; a node's index is its position in
/// document order (an element, then its attributes, then its children), so a sorted list of indices
/// is a node-set in document order, an element's attributes are the indices right after it, and a
/// node's descendants are the indices after those up to its `last`. A node takes 56 bytes and no
/// allocation of its own (children are linked, not listed), but for names and text over 15 bytes.
struct XMLTree {
    /// The kinds of node of the XPath data model (namespace nodes are not represented).
    enum Kind: UInt8, Equatable {
        case root, element, attribute, text, comment, processingInstruction
    }

    /// One node.
    struct Node {
        /// The qualified name of an element or attribute as written, or a processing instruction's target.
        var name: String
        /// The text of a text node, an attribute, a comment or a processing instruction.
        var value: String
        fileprivate var parentIndex: Int32
        fileprivate var firstChildIndex: Int32 = -1
        fileprivate var nextSiblingIndex: Int32 = -1
        fileprivate var attributeCount: Int32 = 0
        /// While the tree is read, the last child's index (-1: none); then the subtree's last node.
        fileprivate var lastIndex: Int32 = -1
        var kind: Kind

        /// The parent's index (-1 for the root). An attribute's parent is its element.
        var parent: Int { Int(parentIndex) }
        /// The index of the last node of the subtree (the node itself when it has no descendants).
        var last: Int { Int(lastIndex) }
        /// The indices of an element's attributes.
        func attributes(at index: Int) -> Range<Int> { (index + 1)..<(index + 1 + Int(attributeCount)) }
    }

    /// The most nodes a tree may have (indices are 32 bits).
    static let maxNodes = Int(Int32.max)

    /// Every node; index 0 is the root.
    private(set) var nodes: [Node] = [Node(name: "", value: "", parentIndex: -1, kind: .root)]
    /// Whether the document was read by HTML rules (names in lower case).
    var isHTML = false

    /// Makes room for `count` nodes.
    mutating func reserveCapacity(_ count: Int) {
        nodes.reserveCapacity(count)
    }

    /// The first child of a node and the sibling after a node (nil: none).
    func firstChild(of index: Int) -> Int? {
        let child = nodes[index].firstChildIndex
        return child >= 0 ? Int(child) : nil
    }

    func nextSibling(of index: Int) -> Int? {
        let sibling = nodes[index].nextSiblingIndex
        return sibling >= 0 ? Int(sibling) : nil
    }

    /// The children of a node, in document order.
    func children(of index: Int) -> [Int] {
        var children: [Int] = []
        var child = firstChild(of: index)
        while let next = child {
            children.append(next)
            child = nextSibling(of: next)
        }
        return children
    }

    /// Adds a node under `parent` (as an attribute when it is one: an element's attributes come right after
    /// it, before anything else is added), while fewer than `maxNodes` are in the tree.
    @discardableResult
    mutating func append(_ kind: Kind, name: String = "", value: String = "", to parent: Int) -> Int {
        let previous = Int(nodes[parent].lastIndex)
        // Adjacent text is one text node in the data model.
        if kind == .text, previous >= 0, nodes[previous].kind == .text, previous == nodes.count - 1 {
            nodes[previous].value += value
            return previous
        }
        let index = nodes.count
        nodes.append(Node(name: name, value: value, parentIndex: Int32(parent), kind: kind))
        if kind == .attribute {
            assert(index == parent + Int(nodes[parent].attributeCount) + 1, "an attribute after its element's content")
            nodes[parent].attributeCount += 1
        } else {
            if previous >= 0 {
                nodes[previous].nextSiblingIndex = Int32(index)
            } else {
                nodes[parent].firstChildIndex = Int32(index)
            }
            nodes[parent].lastIndex = Int32(index)
        }
        return index
    }

    /// Sets `last` of every node, once the tree is complete: a node's subtree ends where its last child's
    /// does, or after its attributes (later nodes come first, so a last child's is known).
    mutating func finish() {
        for index in nodes.indices.reversed() {
            let lastChild = Int(nodes[index].lastIndex)
            let afterAttributes = index + Int(nodes[index].attributeCount)
            nodes[index].lastIndex = Int32(max(afterAttributes, lastChild >= 0 ? nodes[lastChild].last : index))
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
            for attribute in nodes[current].attributes(at: current) where nodes[attribute].name == declaration {
                return nodes[attribute].value
            }
            current = nodes[current].parent
        }
        return ""
    }
}
