/// A node of a YAML (or JSON) document, as `YAMLComposer` builds it from libyaml's events and the plan reader
/// and the Arazzo reader read it (`DataDocument.tree`): its shape, a scalar's text and style, and where it
/// starts. Nothing else: the reader resolves plain scalars itself (`coreSchemaValue`), so no tag is kept, and
/// an alias is the node its anchor named (so a reader charges a `NodeBudget`, or reads a tree whose bounds
/// were checked).
///
/// Each node is one immutable object, so a copy is one reference count and a tree can be read from several
/// threads at once. (Yams' `Node`, which the plan reader read before, copies a string, a tag object and a
/// weak anchor with every scalar, and resolves tags in place: a quarter of a long plan's reading went to
/// copying and releasing its nodes. BENCHMARKS.md, issue 20.)
public enum YAMLNode: Sendable {
    /// A scalar.
    case scalar(Scalar)
    /// A mapping.
    case mapping(Mapping)
    /// A list.
    case sequence(Items)

    /// A scalar: its text (escapes and folding applied) and how it was written.
    public final class Scalar: Sendable {
        /// The scalar's text.
        public let string: String
        /// How it is written.
        public let style: Style
        /// Where the scalar starts (its opening quote or indicator, if any).
        public let mark: SourceLocation

        init(_ string: String, style: Style, mark: SourceLocation) {
            self.string = string
            self.style = style
            self.mark = mark
        }

        /// How a scalar is written, as libyaml reports it (`yaml_scalar_style_t`).
        public enum Style: UInt32, Sendable {
            /// Any style (libyaml's `YAML_ANY_SCALAR_STYLE`): read as plain.
            case any
            /// `text`
            case plain
            /// `'text'`
            case singleQuoted
            /// `"text"`
            case doubleQuoted
            /// `|` and lines
            case literal
            /// `>` and lines
            case folded
        }

        /// Whether it is written plain, so read by the core schema (`yes` is a string, `12` a number).
        public var isPlain: Bool { style == .plain || style == .any }
    }

    /// A mapping's entries in the order written.
    public final class Mapping: Sendable, RandomAccessCollection {
        /// The entries in the order written.
        public let entries: [(key: YAMLNode, value: YAMLNode)]
        /// Where the mapping starts.
        public let mark: SourceLocation

        init(_ entries: [(key: YAMLNode, value: YAMLNode)], mark: SourceLocation) {
            self.entries = entries
            self.mark = mark
        }

        /// The first entry's position.
        public var startIndex: Int { entries.startIndex }
        /// The position past the last entry.
        public var endIndex: Int { entries.endIndex }
        /// The entry at `position`.
        public subscript(position: Int) -> (key: YAMLNode, value: YAMLNode) { entries[position] }

        var keys: LazyMapSequence<[(key: YAMLNode, value: YAMLNode)], YAMLNode> { entries.lazy.map(\.key) }
    }

    /// A list's items in order.
    public final class Items: Sendable, RandomAccessCollection {
        /// The items in order.
        public let nodes: [YAMLNode]
        /// Where the list starts.
        public let mark: SourceLocation

        init(_ nodes: [YAMLNode], mark: SourceLocation) {
            self.nodes = nodes
            self.mark = mark
        }

        /// The first item's position.
        public var startIndex: Int { nodes.startIndex }
        /// The position past the last item.
        public var endIndex: Int { nodes.endIndex }
        /// The item at `position`.
        public subscript(position: Int) -> YAMLNode { nodes[position] }
    }

    /// Where the node starts, counted in the text it was composed from.
    public var mark: SourceLocation {
        switch self {
        case .scalar(let scalar): scalar.mark
        case .mapping(let mapping): mapping.mark
        case .sequence(let items): items.mark
        }
    }

    /// A scalar's text; `nil` for a list or mapping.
    public var string: String? {
        guard case .scalar(let scalar) = self else { return nil }
        return scalar.string
    }

    /// Whether the node is a list or a mapping.
    public var isCollection: Bool {
        if case .scalar = self { return false }
        return true
    }

    /// A scalar's value by the YAML 1.2 core schema, as plans read scalars (`Value.coreSchema`); `nil` for
    /// a list or mapping.
    public var coreSchemaValue: Value? {
        guard case .scalar(let scalar) = self else { return nil }
        return Value.coreSchema(scalar.string, plain: scalar.isPlain)
    }
}

extension SourceFile {
    /// Where a node starts.
    /// - Parameter lineOffset: how many lines of this file come before the text the node was composed from
    ///   (a run of steps composed alone, `PlanReader.readAlone`).
    public func location(of node: YAMLNode, lineOffset: Int = 0) -> SourceLocation {
        SourceLocation(line: node.mark.line + lineOffset, column: node.mark.column)
    }

    /// The range of a node's first token (the whole scalar for scalars).
    public func range(of node: YAMLNode, lineOffset: Int = 0) -> SourceRange {
        let start = location(of: node, lineOffset: lineOffset)
        if case .scalar(let scalar) = node, scalar.style == .plain {
            return range(ofPlainScalar: scalar.string, at: start)
        }
        return tokenRange(at: start)
    }
}
