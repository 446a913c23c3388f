import ReqPlanSyntax

/// What an expression can see when it is evaluated: inputs, declared environment
/// variables, vars, the results of finished steps, for_each items, and (in `if:`) how
/// the step's dependencies ended.
public struct EvaluationContext: Sendable {
    /// Input values by name.
    public var inputs: [String: Value]
    /// Environment variables declared by inputs, by name.
    public var environment: [String: String]
    /// Looks up a finished step's result as a value (`nil` when unknown or not finished).
    public var step: @Sendable (String) -> Value?
    /// Why a finished step's body could not be read as the JSON its response announced, if so
    /// (`StepResult.bodyProblem`): a path into that body fails with it.
    public var stepBodyProblem: @Sendable (String) -> String? = { _ in nil }
    /// The value of a var (`vars.NAME`), computed once per run of its plan; `nil` for an unknown name.
    public var variable: @Sendable (String) -> Result<Value, EvaluationError>? = { _ in nil }
    /// for_each item values in scope, by item name.
    public var items: [String: Value]
    /// `success()`: every dependency succeeded.
    public var dependenciesSucceeded: Bool
    /// `failure()`: some dependency failed (or was skipped because of a failure).
    public var dependencyFailed: Bool
    /// Which names carry secrets here, so that what is shown of a value built from them says `***`.
    public var secretFlow = SecretFlow()
    /// The textual net for the values of the other expressions, which may repeat what a server sent.
    public var secretNet = Redactor(secrets: [])

    /// Creates a context.
    public init(
        inputs: [String: Value], environment: [String: String], step: @escaping @Sendable (String) -> Value?,
        items: [String: Value] = [:], dependenciesSucceeded: Bool = true, dependencyFailed: Bool = false
    ) {
        self.inputs = inputs
        self.environment = environment
        self.step = step
        self.items = items
        self.dependenciesSucceeded = dependenciesSucceeded
        self.dependencyFailed = dependencyFailed
    }
}

/// Why an expression could not be evaluated at run time.
public struct EvaluationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// The expression, or the part of it, that failed.
    public var range: SourceRange?
    /// What kind of failure it makes of a step: `.evaluation`, or `.invalidHeader` for a computed value
    /// that cannot go into a header line.
    public var kind: StepReason.Kind

    public init(_ message: String, at range: SourceRange?, kind: StepReason.Kind = .evaluation) {
        self.message = message
        self.range = range
        self.kind = kind
    }

    public var description: String { message }
}
