/// Collects diagnostics during one stage, so a stage reports every problem at once.
///
/// Stages append to a collector and the boundary between stages decides what
/// to do with the result (for example, not to plan a plan that did not parse).
public struct DiagnosticCollector: Sendable {
    /// The display path stamped on diagnostics that have none.
    public let file: String?
    /// Everything collected so far, in the order it was found.
    public private(set) var diagnostics: [Diagnostic] = []

    /// Creates an empty collector for `file`.
    public init(file: String?) {
        self.file = file
    }

    /// Whether any error (not warning) was collected.
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// The number of errors collected.
    public var errorCount: Int { diagnostics.count(where: { $0.severity == .error }) }

    /// Records a diagnostic, stamping it with this collector's file.
    public mutating func emit(_ diagnostic: Diagnostic) {
        var diagnostic = diagnostic
        if diagnostic.file == nil { diagnostic.file = file }
        diagnostics.append(diagnostic)
    }

    /// Records an error.
    public mutating func error(
        _ code: DiagnosticCode, _ message: String, at range: SourceRange?,
        notes: [Diagnostic.Note] = [], hint: String? = nil, fix: Diagnostic.Fix? = nil
    ) {
        emit(.error(code, message, at: range, notes: notes, hint: hint, fix: fix))
    }

    /// Records a warning.
    public mutating func warning(
        _ code: DiagnosticCode, _ message: String, at range: SourceRange?,
        notes: [Diagnostic.Note] = [], hint: String? = nil, fix: Diagnostic.Fix? = nil
    ) {
        emit(.warning(code, message, at: range, notes: notes, hint: hint, fix: fix))
    }

    /// Forgets what was recorded after the first `count` diagnostics: a check tried one way, then another.
    public mutating func rollBack(to count: Int) {
        if count < diagnostics.count { diagnostics.removeSubrange(count...) }
    }

    /// Turns the errors recorded since the first `start` ones whose code is in `codes` into warnings, each with
    /// `hint` (in place of its own when it has none): a check that does not hold a step to it, such as a
    /// negative test that sends what its description refuses on purpose.
    public mutating func soften(since start: Int, codes: Set<DiagnosticCode>, hint: String) {
        for index in diagnostics.indices.dropFirst(start)
        where diagnostics[index].severity == .error && codes.contains(diagnostics[index].code) {
            diagnostics[index].severity = .warning
            diagnostics[index].hint = diagnostics[index].hint.map { $0 + "; " + hint } ?? hint
        }
    }

    /// Appends every diagnostic of another collector.
    public mutating func append(contentsOf other: [Diagnostic]) {
        for diagnostic in other { emit(diagnostic) }
    }

    /// The diagnostics sorted by position (stable for equal positions), errors before
    /// warnings at the same place.
    public var sorted: [Diagnostic] { diagnostics.sortedBySource() }
}

extension Array where Element == Diagnostic {
    /// These diagnostics ordered by file, then position, keeping discovery order on ties.
    public func sortedBySource() -> [Diagnostic] {
        enumerated().sorted { lhs, rhs in
            let a = lhs.element
            let b = rhs.element
            if (a.file ?? "") != (b.file ?? "") { return (a.file ?? "") < (b.file ?? "") }
            let la = a.range?.start ?? SourceLocation(line: 0, column: 0)
            let lb = b.range?.start ?? SourceLocation(line: 0, column: 0)
            if la != lb { return la < lb }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }
}
