/// How serious a diagnostic is.
public enum Severity: String, Sendable, Hashable, Comparable, CaseIterable {
    /// Makes the plan invalid.
    case error
    /// Worth fixing; fails validation only with `--strict`.
    case warning
    /// Extra information attached to another diagnostic.
    case note

    private var rank: Int {
        switch self {
        case .error: 0
        case .warning: 1
        case .note: 2
        }
    }

    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}

/// A problem found in a plan, or while running it: data, rendered later.
///
/// Diagnostics and run errors share this type and its renderer, so everything
/// a user reads looks alike: code, message, `--> file:line:col`, the source
/// line with a caret, notes and a hint.
public struct Diagnostic: Sendable, Hashable, Error {
    /// A secondary location that explains the main one ("first defined here"), possibly in another file
    /// (the sub-plan that declares an input, the plan that includes a sub-plan).
    public struct Note: Sendable, Hashable {
        /// What the note says.
        public var message: String
        /// Where it points, if anywhere.
        public var range: SourceRange?
        /// The file `range` is in, when it is not the diagnostic's own file.
        public var file: String?
        /// Whether the text form shows the source line under the note; an `included from FILE:LINE:COL`
        /// note says where it points in its message and is one line.
        public var showsSource: Bool

        /// Creates a note.
        public init(_ message: String, at range: SourceRange? = nil, in file: String? = nil, showsSource: Bool = true) {
            self.message = message
            self.range = range
            self.file = file
            self.showsSource = showsSource
        }

        /// `included from FILE:LINE:COL`: the place a sub-plan is included, one of a diagnostic's chain of them.
        public static func includedFrom(_ file: String, at range: SourceRange) -> Note {
            Note(
                "included from \(file):\(range.start.line):\(range.start.column)", at: range, in: file,
                showsSource: false)
        }
    }

    /// Error, warning or note.
    public var severity: Severity
    /// The stable code, such as `RP0101`.
    public var code: DiagnosticCode
    /// One sentence, lower case, no final period.
    public var message: String
    /// The file the problem is in (its display path), if any.
    public var file: String?
    /// The offending token, if known.
    public var range: SourceRange?
    /// Related locations.
    public var notes: [Note]
    /// A suggestion, such as "did you mean `needs`?".
    public var hint: String?
    /// The change that fixes the problem, when there is one to apply without a choice: new text for
    /// `range` (`Fix`).
    public var fix: Fix?

    /// Creates a diagnostic.
    public init(
        _ severity: Severity,
        _ code: DiagnosticCode,
        _ message: String,
        file: String? = nil,
        at range: SourceRange? = nil,
        notes: [Note] = [],
        hint: String? = nil,
        fix: Fix? = nil
    ) {
        self.severity = severity
        self.code = code
        self.message = message
        self.file = file
        self.range = range
        self.notes = notes
        self.hint = hint
        self.fix = fix
    }

    /// An error diagnostic.
    public static func error(
        _ code: DiagnosticCode, _ message: String, at range: SourceRange?,
        notes: [Note] = [], hint: String? = nil, fix: Fix? = nil
    ) -> Diagnostic {
        Diagnostic(.error, code, message, at: range, notes: notes, hint: hint, fix: fix)
    }

    /// A warning diagnostic.
    public static func warning(
        _ code: DiagnosticCode, _ message: String, at range: SourceRange?,
        notes: [Note] = [], hint: String? = nil, fix: Fix? = nil
    ) -> Diagnostic {
        Diagnostic(.warning, code, message, at: range, notes: notes, hint: hint, fix: fix)
    }
}
