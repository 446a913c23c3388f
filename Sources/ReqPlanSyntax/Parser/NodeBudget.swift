import Yams

/// What may still be read of one YAML document under `ParseLimits`: every node read is charged, an alias
/// again each time it is read (that is how a "billion laughs" document, a few hundred bytes that expand
/// to billions of nodes, is stopped), and nothing is read deeper than `maxDepth`.
///
/// The plan reader charges the nodes it reads as it builds the AST; `DataDocument` charges the nodes of
/// an inputs file (or any data file) as it converts them, so both stop at the same bounds with the same
/// diagnostics.
struct NodeBudget {
    /// The limits charged against.
    let limits: ParseLimits
    /// Nodes that may still be read.
    private var remaining: Int
    /// Whether the node limit was reached (nothing more is read).
    private(set) var exceeded = false

    init(limits: ParseLimits) {
        self.limits = limits
        self.remaining = limits.maxNodes
    }

    /// Charges one node read.
    /// - Returns: `false` once the budget is spent; the first time, `exceeded` becomes true and the caller
    ///   reports `expansionDiagnostic`.
    mutating func charge() -> Bool {
        if exceeded { return false }
        remaining -= 1
        if remaining >= 0 { return true }
        exceeded = true
        return false
    }

    /// Nodes charged to `self` since it was `start` (a copy of it).
    func spent(since start: NodeBudget) -> Int { start.remaining - remaining }

    /// Charges `count` nodes read elsewhere (by a copy of this budget, on another thread).
    /// - Returns: `false` if that spends the budget; the first time, `exceeded` becomes true.
    mutating func charge(nodes count: Int) -> Bool {
        if exceeded { return false }
        remaining -= count
        if remaining >= 0 { return true }
        exceeded = true
        return false
    }

    /// RP0005: the document expands past the node limit; `what` names it (`the plan`, `the inputs file`).
    func expansionDiagnostic(_ what: String, at range: SourceRange?) -> Diagnostic {
        .error(
            .aliasExpansion, "\(what) expands to more than \(limits.maxNodes) YAML nodes through aliases",
            at: range, hint: "an alias is repeated inside another alias (a \"billion laughs\" document)")
    }

    /// RP0008: a value nests deeper than `maxDepth`.
    func depthDiagnostic(_ what: String, at range: SourceRange?) -> Diagnostic {
        .error(
            .nestedTooDeep, "\(what) nests lists and mappings more than \(limits.maxDepth) levels deep here",
            at: range, hint: "flatten the value; reqplan reads values at most \(limits.maxDepth) levels deep")
    }
}

extension Value {
    /// A scalar's value by the YAML 1.2 core schema, as plans read scalars: quoted and block scalars
    /// (`plain` false) are strings; `yes`, `no` and `on` stay strings.
    static func coreSchema(_ text: String, plain: Bool) -> Value {
        guard plain else { return .string(text) }
        // Most plain scalars in long lists are whole numbers: read those without the word checks below.
        let bytes = text.utf8
        if let first = bytes.first, first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9"), bytes.count < 19,
            bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let value = Int(text)
        {
            return .int(value)
        }
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .double(.infinity)
        case "-.inf", "-.Inf", "-.INF": return .double(-.infinity)
        case ".nan", ".NaN", ".NAN": return .double(.nan)
        default: break
        }
        if let first = text.unicodeScalars.first,
            ("0"..."9").contains(first) || first == "-" || first == "+" || first == "."
        {
            if text.hasPrefix("0x"), let value = Int(text.dropFirst(2), radix: 16) { return .int(value) }
            if text.hasPrefix("0o"), let value = Int(text.dropFirst(2), radix: 8) { return .int(value) }
            // A whole number keeps its digits, whatever its size (`18446744073709551615` is sent as written).
            if let integer = Value.integer(fromDecimal: text) { return integer }
            if text.unicodeScalars.allSatisfy({ "0123456789.eE+-".unicodeScalars.contains($0) }),
                text.contains(where: { $0.isNumber }), let value = Double(text)
            {
                return .double(value)
            }
        }
        return .string(text)
    }
}

extension Node {
    /// Whether the node is a list or a mapping.
    var isCollection: Bool {
        switch self {
        case .mapping, .sequence: true
        case .scalar, .alias: false
        }
    }

    /// A scalar's value by the YAML 1.2 core schema, as plans read scalars (`Value.coreSchema`); `nil` for a
    /// list or mapping.
    public var coreSchemaValue: ReqPlanSyntax.Value? {
        guard case .scalar(let scalar) = self else { return nil }
        return .coreSchema(scalar.string, plain: scalar.style == .plain || scalar.style == .any)
    }
}

extension SourceFile {
    /// Where a node starts (line 1, column 1 when Yams gave no mark).
    public func location(of node: Node) -> SourceLocation {
        guard let mark = node.mark else { return SourceLocation(line: 1, column: 1) }
        return SourceLocation(line: mark.line, column: mark.column)
    }

    /// The range of a node's first token (the whole scalar for scalars).
    public func range(of node: Node) -> SourceRange {
        if case .scalar(let scalar) = node, scalar.style == .plain {
            return range(ofPlainScalar: scalar.string, at: location(of: node))
        }
        return tokenRange(at: location(of: node))
    }

    /// The range of a plain scalar that starts at `start`: on one line, it is written exactly as its value, so
    /// the source need not be scanned. (Its bytes are read, not its characters: breaking a string into
    /// characters cost more than the rest of the range.)
    func range(ofPlainScalar string: String, at start: SourceLocation) -> SourceRange {
        guard !string.isEmpty else { return tokenRange(at: start) }
        var isASCII = true
        for byte in string.utf8 {
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { return tokenRange(at: start) }
            if byte >= 0x80 { isASCII = false }
        }
        return SourceRange(start: start, length: isASCII ? string.utf8.count : string.unicodeScalars.count)
    }
}
