import Yams

/// A YAML or JSON file of data, not a plan: an inputs file, an environment (and an API description, once
/// its loader reads through it), read under the same `ParseLimits` as plans, so no such file can exhaust
/// time, memory or the stack either.
///
/// - Size: more than `maxFileSize` bytes is refused before the file is read whole (RP0004).
/// - YAML: composed as plans are (`Yams.compose` with marks; keys that are lists or mappings, or aliases of
///   them, are refused before Yams composes them, RP0006; syntax errors located, RP0002). JSON is read as
///   YAML, so its errors are located too, and its surrogate pair escapes (`"\ud83c\udfb2"`) are one character.
/// - Aliases and depth: reading charges every node, an alias each time it is read, against `maxNodes`
///   (RP0005), and stops at lists and mappings deeper than `maxDepth` (RP0008), both located.
/// - Scalars: the YAML 1.2 core schema, as in plans (`yes` and `on` are strings, `0x1F` a number).
///
/// A reader that walks `root` itself (an OpenAPI decoder) calls `checkBounds()` first: past it, the tree is
/// known to expand to at most `maxNodes` nodes and `maxDepth` levels.
public struct DataDocument {
    /// One entry of a top-level mapping, located.
    public struct Entry: Sendable {
        /// The key, where it is written.
        public var key: Located<String>
        /// The value.
        public var value: Value
        /// Where the value is written (its first token).
        public var valueRange: SourceRange
    }

    /// Why a file cannot be read: a located diagnostic, and the text it points into, when the file was read.
    public struct ReadError: Error, Sendable {
        /// What is wrong, with `file` set.
        public var diagnostic: Diagnostic
        /// The file's text, for the excerpt.
        public var source: SourceFile?

        /// Creates a failure.
        public init(_ diagnostic: Diagnostic, source: SourceFile?) {
            self.diagnostic = diagnostic
            self.source = source
        }
    }

    /// The text, for excerpts.
    public let source: SourceFile
    /// The composed tree; `nil` for an empty document (or one of comments only).
    public let root: Node?
    /// What the file is, in messages (`inputs file`).
    public let what: String
    /// The limits it is read under.
    public let limits: ParseLimits

    /// Reads and composes the file at `path`.
    /// - Parameters:
    ///   - shown: how diagnostics name the file (default: `path`).
    ///   - what: what the file is, in messages (`inputs file`, `API description`).
    ///   - origin: who named the file (`FileReader`): the user, or an input within a boundary.
    /// - Returns: the document, or why it cannot be read (RP0001, RP0004) or composed (RP0002, RP0006),
    ///   with `file` set.
    public static func read(
        atPath path: String, shownAs shown: String? = nil, what: String, limits: ParseLimits,
        origin: FileReader.Origin = .user
    ) -> Result<DataDocument, ReadError> {
        let name = shown ?? path
        switch FileReader.text(
            atPath: path, origin: origin, limit: limits.maxFileSize, what: "the \(what)", shownAs: name)
        {
        case .failure(let failure):
            var diagnostic = Diagnostic.error(
                failure.isTooLarge ? .fileTooLarge : .unreadableFile, failure.text, at: nil,
                hint: failure.isTooLarge ? limits.tooLargeHint(splitting: "the \(what)") : failure.hint)
            diagnostic.file = name
            return .failure(ReadError(diagnostic, source: nil))
        case .success(let text):
            return parse(SourceFile(path: name, text: text), what: what, limits: limits)
        }
    }

    /// Composes text already read.
    /// - Returns: the document, or why it cannot be composed, with `file` set.
    public static func parse(_ source: SourceFile, what: String, limits: ParseLimits)
        -> Result<DataDocument, ReadError>
    {
        switch YAMLLoader.compose(source, limits: limits, what: what) {
        case .failure(var diagnostic):
            diagnostic.file = source.path
            return .failure(ReadError(diagnostic, source: source))
        case .success(let root):
            return .success(DataDocument(source: source, root: root, what: what, limits: limits))
        }
    }

    /// Checks that the tree stays within `maxNodes` (aliases expanded) and `maxDepth`, reading nothing
    /// else: for a reader that walks `root` itself.
    /// - Returns: RP0005 or RP0008 at the node where a limit is reached, or `nil`.
    /// - Complexity: O(min(*n*, `maxNodes`)) in the nodes of the expanded tree; no recursion.
    public func checkBounds() -> Diagnostic? {
        guard let root else { return nil }
        return Self.checkBounds(root, in: source, what: what, limits: limits)
    }

    /// Composes `source` into reqplan's own tree (`YAMLNode`, as plans are composed: a copy of a node is one
    /// reference count, where a copy of Yams' `Node` is several) and checks its bounds as `checkBounds()`
    /// does: for a reader that walks a large document itself (an Arazzo document of 10,000 steps).
    /// - Returns: the root (`nil` for an empty document), or why the text cannot be composed (RP0002,
    ///   RP0004, RP0006) or expands past the limits (RP0005, RP0008), with `file` set.
    public static func tree(_ source: SourceFile, what: String, limits: ParseLimits) -> Result<YAMLNode?, ReadError> {
        switch YAMLLoader.composePlan(source, limits: limits, what: what) {
        case .failure(var diagnostic):
            diagnostic.file = source.path
            return .failure(ReadError(diagnostic, source: source))
        case .success(let root):
            guard let root else { return .success(nil) }
            if var diagnostic = checkBounds(root, in: source, what: what, limits: limits) {
                diagnostic.file = source.path
                return .failure(ReadError(diagnostic, source: source))
            }
            return .success(root)
        }
    }

    /// RP0005 or RP0008 where the tree under `root` passes `limits`, or `nil`.
    private static func checkBounds<Node: BoundedNode>(
        _ root: Node, in source: SourceFile, what: String, limits: ParseLimits
    ) -> Diagnostic? {
        var budget = NodeBudget(limits: limits)
        var pending: [(node: Node, depth: Int)] = [(root, 0)]
        while let (node, depth) = pending.popLast() {
            guard budget.charge() else {
                return located(budget.expansionDiagnostic("the \(what)", at: node.range(in: source)), in: source)
            }
            if node.isCollection, depth >= limits.maxDepth {
                return located(budget.depthDiagnostic("the \(what)", at: node.range(in: source)), in: source)
            }
            node.pushChildren(onto: &pending, depth: depth + 1)
        }
        return nil
    }

    /// The whole document as a value; an empty document is null.
    public func value() -> Result<Value, Diagnostic> {
        guard let root else { return .success(.null) }
        // Counting first allocates nothing: an alias bomb is refused before a million values are built.
        if let problem = checkBounds() { return .failure(problem) }
        var budget = NodeBudget(limits: limits)
        return convert(root, depth: 0, budget: &budget)
    }

    /// The entries of a top-level mapping, in the order written, each value converted under the limits;
    /// an empty document has none.
    /// - Returns: the entries, or RP0102 (not a mapping; a key that is not a string), RP0005 or RP0008.
    public func entries() -> Result<[Entry], Diagnostic> {
        guard let root else { return .success([]) }
        guard case .mapping(let mapping) = root else {
            if root.coreSchemaValue == .null { return .success([]) }
            return .failure(
                located(
                    .error(
                        .wrongType, "the \(what) must be a mapping of names to values",
                        at: range(root), hint: "write one `name: value` per line")))
        }
        if let problem = checkBounds() { return .failure(problem) }
        var budget = NodeBudget(limits: limits)
        guard budget.charge() else { return .failure(located(budget.expansionDiagnostic("the \(what)", at: nil))) }
        var entries: [Entry] = []
        for (key, value) in mapping {
            guard budget.charge() else {
                return .failure(located(budget.expansionDiagnostic("the \(what)", at: range(key))))
            }
            guard case .scalar(let scalar) = key else {
                return .failure(
                    located(.error(.wrongType, "the keys of the \(what) must be names", at: range(key))))
            }
            switch convert(value, depth: 1, budget: &budget) {
            case .failure(let diagnostic): return .failure(diagnostic)
            case .success(let converted):
                entries.append(
                    Entry(key: Located(scalar.string, at: range(key)), value: converted, valueRange: range(value)))
            }
        }
        return .success(entries)
    }

    // MARK: Converting

    /// A node as a value, charging `budget`; recursion is bounded by `maxDepth`.
    private func convert(_ node: Node, depth: Int, budget: inout NodeBudget) -> Result<Value, Diagnostic> {
        guard budget.charge() else {
            return .failure(located(budget.expansionDiagnostic("the \(what)", at: range(node))))
        }
        if node.isCollection, depth >= limits.maxDepth {
            return .failure(located(budget.depthDiagnostic("the \(what)", at: range(node))))
        }
        switch node {
        case .scalar, .alias:
            return .success(node.coreSchemaValue ?? .null)
        case .sequence(let sequence):
            var items: [Value] = []
            items.reserveCapacity(sequence.count)
            for item in sequence {
                switch convert(item, depth: depth + 1, budget: &budget) {
                case .failure(let diagnostic): return .failure(diagnostic)
                case .success(let value): items.append(value)
                }
            }
            return .success(.list(items))
        case .mapping(let mapping):
            var fields: [Value.Field] = []
            for (key, value) in mapping {
                guard case .scalar(let scalar) = key else {
                    return .failure(
                        located(.error(.wrongType, "the keys of the \(what) must be names", at: range(key))))
                }
                switch convert(value, depth: depth + 1, budget: &budget) {
                case .failure(let diagnostic): return .failure(diagnostic)
                case .success(let converted): fields.append(Value.Field(scalar.string, converted))
                }
            }
            return .success(.object(fields))
        }
    }

    private func range(_ node: Node) -> SourceRange { source.range(of: node) }

    private func located(_ diagnostic: Diagnostic) -> Diagnostic { Self.located(diagnostic, in: source) }

    private static func located(_ diagnostic: Diagnostic, in source: SourceFile) -> Diagnostic {
        var diagnostic = diagnostic
        diagnostic.file = source.path
        return diagnostic
    }
}

/// A node of a composed tree whose bounds `DataDocument` checks: Yams' `Node` (data files, API descriptions)
/// or reqplan's `YAMLNode` (plans, Arazzo documents).
protocol BoundedNode {
    /// Whether the node is a list or a mapping.
    var isCollection: Bool { get }
    /// Where the node is written in `source`.
    func range(in source: SourceFile) -> SourceRange
    /// Appends the node's children (keys and values) to `pending`, last to first, so the first is read first.
    func pushChildren(onto pending: inout [(node: Self, depth: Int)], depth: Int)
}

extension BoundedNode {
    /// Appends the nodes of each element of `collection` (`nodes` gives them: a key and its value, or an item
    /// alone) to `pending`, last to first, so that the first is read first. By position: `reversed()` would
    /// copy each collection.
    static func push<Children: Collection>(
        _ collection: Children, onto pending: inout [(node: Self, depth: Int)], depth: Int,
        _ nodes: (Children.Element) -> (Self, Self?)
    ) where Children.Index == Int {
        for index in stride(from: collection.endIndex - 1, through: collection.startIndex, by: -1) {
            let (first, second) = nodes(collection[index])
            if let second { pending.append((second, depth)) }
            pending.append((first, depth))
        }
    }
}

extension Node: BoundedNode {
    func range(in source: SourceFile) -> SourceRange { source.range(of: self) }

    func pushChildren(onto pending: inout [(node: Node, depth: Int)], depth: Int) {
        switch self {
        case .mapping(let mapping): Self.push(mapping, onto: &pending, depth: depth) { ($0.0, $0.1) }
        case .sequence(let sequence): Self.push(sequence, onto: &pending, depth: depth) { ($0, nil) }
        case .scalar, .alias: break
        }
    }
}

extension YAMLNode: BoundedNode {
    func range(in source: SourceFile) -> SourceRange { source.range(of: self) }

    func pushChildren(onto pending: inout [(node: YAMLNode, depth: Int)], depth: Int) {
        switch self {
        case .mapping(let mapping): Self.push(mapping, onto: &pending, depth: depth) { ($0.0, $0.1) }
        case .sequence(let items): Self.push(items, onto: &pending, depth: depth) { ($0, nil) }
        case .scalar: break
        }
    }
}
