import ReqPlanSyntax

/// Why the `ReqPlan` library could not do what it was asked: a plan that does not load or is not valid,
/// inputs that do not fit the plan, an output that is missing or not of the type asked for.
///
/// A struct wrapping a private code, so new kinds of error can be added without breaking callers: compare
/// with the static members (`error == .invalidPlan`), which ignore the details. The plan's own problems
/// are in `diagnostics`, each with a stable code and, for a static error, its file, line and column.
public struct ReqPlanError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case invalidPlan
        case invalidInputs
        case planNotFound
        case runAlreadyStarted
        case outputMissing
        case outputNotDecodable
        case inputsNotEncodable
    }

    private let code: Code
    /// The plan's problems (for `invalidPlan`, `invalidInputs` and `planNotFound`), in source order.
    public let diagnostics: [Diagnostic]
    /// The sources the diagnostics point into, to render them.
    let sources: [SourceFile]
    /// A sentence for errors that are not about the plan text.
    private let message: String?

    private init(_ code: Code, diagnostics: [Diagnostic] = [], sources: [SourceFile] = [], message: String? = nil) {
        self.code = code
        self.diagnostics = diagnostics
        self.sources = sources
        self.message = message
    }

    /// The plan could not be read, or is not valid (its `diagnostics` say why).
    public static let invalidPlan = ReqPlanError(.invalidPlan)
    /// The inputs given do not fit the plan: undeclared, missing or of the wrong type (`diagnostics`).
    public static let invalidInputs = ReqPlanError(.invalidInputs)
    /// No plan of that name is in the bundle.
    public static let planNotFound = ReqPlanError(.planNotFound)
    /// `PlanExecution.start()` was called a second time: an execution runs once.
    public static let runAlreadyStarted = ReqPlanError(.runAlreadyStarted)
    /// The plan has no output of the name asked for.
    public static let outputMissing = ReqPlanError(.outputMissing)
    /// An output's value is not of the type asked for.
    public static let outputNotDecodable = ReqPlanError(.outputNotDecodable)
    /// The inputs could not be encoded as a JSON object of names to values.
    public static let inputsNotEncodable = ReqPlanError(.inputsNotEncodable)

    static func invalidPlan(_ diagnostics: [Diagnostic], sources: [SourceFile]) -> ReqPlanError {
        ReqPlanError(.invalidPlan, diagnostics: diagnostics, sources: sources)
    }

    static func invalidInputs(_ diagnostics: [Diagnostic], sources: [SourceFile]) -> ReqPlanError {
        ReqPlanError(.invalidInputs, diagnostics: diagnostics, sources: sources)
    }

    static func planNotFound(_ message: String) -> ReqPlanError { ReqPlanError(.planNotFound, message: message) }
    static func outputMissing(_ message: String) -> ReqPlanError { ReqPlanError(.outputMissing, message: message) }
    static func outputNotDecodable(_ message: String) -> ReqPlanError {
        ReqPlanError(.outputNotDecodable, message: message)
    }
    static func inputsNotEncodable(_ message: String) -> ReqPlanError {
        ReqPlanError(.inputsNotEncodable, message: message)
    }

    /// Whether two errors are of the same kind (their details are not compared).
    public static func == (lhs: ReqPlanError, rhs: ReqPlanError) -> Bool { lhs.code == rhs.code }

    /// The diagnostics rendered as `reqplan validate` prints them (without colours), or the sentence.
    public var description: String {
        if let message { return message }
        switch code {
        case .runAlreadyStarted: return "the plan execution has already been started"
        default: return DiagnosticRenderer(colors: false, files: sources).text(diagnostics)
        }
    }
}
