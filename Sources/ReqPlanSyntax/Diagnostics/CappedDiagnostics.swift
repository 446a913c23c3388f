/// Diagnostics of a problem that may repeat without end (a data file of a million rows, each wrong): the first
/// `limit` are kept, the others only counted, and the last one kept says how many more there were.
public struct CappedDiagnostics: Sendable {
    /// The most diagnostics kept.
    public let limit: Int
    /// The diagnostics kept, in the order they were found.
    public private(set) var kept: [Diagnostic] = []
    /// How many were found past `limit`.
    public private(set) var dropped = 0

    /// Creates an empty list that keeps at most `limit` diagnostics (at least one).
    public init(limit: Int = 20) {
        self.limit = max(1, limit)
    }

    /// Whether any error (not warning) was found, kept or not.
    public var hasErrors: Bool { dropped > 0 || kept.contains { $0.severity == .error } }

    /// Whether nothing was found.
    public var isEmpty: Bool { kept.isEmpty && dropped == 0 }

    /// Whether the next diagnostic will only be counted: a caller may skip working out its words.
    public var isFull: Bool { kept.count >= limit }

    /// Keeps `diagnostic`, or counts it once `limit` are kept.
    public mutating func append(_ diagnostic: Diagnostic) {
        if isFull { dropped += 1 } else { kept.append(diagnostic) }
    }

    /// Counts a diagnostic past the limit without making it (`isFull` is true).
    public mutating func countDropped(_ count: Int = 1) {
        dropped += count
    }

    /// Appends every diagnostic of `other`, kept or counted.
    public mutating func append(contentsOf other: CappedDiagnostics) {
        for diagnostic in other.kept { append(diagnostic) }
        dropped += other.dropped
    }

    /// The diagnostics kept, the last one with a note saying how many more were found (`and 1234 more
    /// problems not shown`), when some were.
    public var diagnostics: [Diagnostic] {
        guard dropped > 0, var last = kept.last else { return kept }
        var all = kept
        last.notes.append(Diagnostic.Note("and \(dropped) more \(dropped == 1 ? "problem" : "problems") not shown"))
        all[all.count - 1] = last
        return all
    }
}
