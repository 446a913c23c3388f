/// A node of a plan's YAML, as `YAMLComposer` builds it from libyaml's events and the plan reader reads it:
/// its shape, a scalar's text and style, and where it starts. Nothing else: the reader resolves plain
/// scalars itself (`coreSchemaValue`), so no tag is kept, and an alias is the node its anchor named.
///
/// Each node is one immutable object, so a copy is one reference count and a tree can be read from several
/// threads at once. (Yams' `Node`, which the plan reader read before, copies a string, a tag object and a
/// weak anchor with every scalar, and resolves tags in place: a quarter of a long plan's reading went to
/// copying and releasing its nodes. BENCHMARKS.md, issue 20.)
enum YAMLNode: Sendable {
    case scalar(Scalar)
    case mapping(Mapping)
    case sequence(Items)

    /// A scalar: its text (escapes and folding applied) and how it was written.
    final class Scalar: Sendable {
        let string: String
        let style: Style
        /// Where the scalar starts (its opening quote or indicator, if any).
        let mark: SourceLocation

        init(_ string: String, style: Style, mark: SourceLocation) {
            self.string = string
            self.style = style
            self.mark = mark
        }

        /// How a scalar is written, as libyaml reports it (`yaml_scalar_style_t`).
        enum Style: UInt32, Sendable {
            case any, plain, singleQuoted, doubleQuoted, literal, folded
        }

        /// Whether it is written plain, so read by the core schema (`yes` is a string, `12` a number).
        var isPlain: Bool { style == .plain || style == .any }
    }

    /// A mapping's entries in the order written.
    final class Mapping: Sendable, RandomAccessCollection {
        let entries: [(key: YAMLNode, value: YAMLNode)]
        let mark: SourceLocation

        init(_ entries: [(key: YAMLNode, value: YAMLNode)], mark: SourceLocation) {
            self.entries = entries
            self.mark = mark
        }

        var startIndex: Int { entries.startIndex }
        var endIndex: Int { entries.endIndex }
        subscript(position: Int) -> (key: YAMLNode, value: YAMLNode) { entries[position] }

        var keys: LazyMapSequence<[(key: YAMLNode, value: YAMLNode)], YAMLNode> { entries.lazy.map(\.key) }
    }

    /// A list's items in order.
    final class Items: Sendable, RandomAccessCollection {
        let nodes: [YAMLNode]
        let mark: SourceLocation

        init(_ nodes: [YAMLNode], mark: SourceLocation) {
            self.nodes = nodes
            self.mark = mark
        }

        var startIndex: Int { nodes.startIndex }
        var endIndex: Int { nodes.endIndex }
        subscript(position: Int) -> YAMLNode { nodes[position] }
    }

    /// Where the node starts, counted in the text it was composed from.
    var mark: SourceLocation {
        switch self {
        case .scalar(let scalar): scalar.mark
        case .mapping(let mapping): mapping.mark
        case .sequence(let items): items.mark
        }
    }

    /// A scalar's text; `nil` for a list or mapping.
    var string: String? {
        guard case .scalar(let scalar) = self else { return nil }
        return scalar.string
    }

    /// Whether the node is a list or a mapping.
    var isCollection: Bool {
        if case .scalar = self { return false }
        return true
    }

    /// A scalar's value by the YAML 1.2 core schema, as plans read scalars (`Value.coreSchema`); `nil` for
    /// a list or mapping.
    var coreSchemaValue: Value? {
        guard case .scalar(let scalar) = self else { return nil }
        return Value.coreSchema(scalar.string, plain: scalar.isPlain)
    }
}

extension SourceFile {
    /// Where a node starts.
    /// - Parameter lineOffset: how many lines of this file come before the text the node was composed from
    ///   (a run of steps composed alone, `PlanReader.readAlone`).
    func location(of node: YAMLNode, lineOffset: Int = 0) -> SourceLocation {
        SourceLocation(line: node.mark.line + lineOffset, column: node.mark.column)
    }

    /// The range of a node's first token (the whole scalar for scalars).
    func range(of node: YAMLNode, lineOffset: Int = 0) -> SourceRange {
        let start = location(of: node, lineOffset: lineOffset)
        if case .scalar(let scalar) = node, scalar.style == .plain {
            return range(ofPlainScalar: scalar.string, at: start)
        }
        return tokenRange(at: start)
    }
}
