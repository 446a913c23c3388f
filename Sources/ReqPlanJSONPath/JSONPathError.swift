import ReqPlanSyntax

/// Why a text is not a JSONPath query (RFC 9535): a syntax error, or a query that is not well-typed.
public struct JSONPathError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The position of the problem in the query, from 1, in characters (Unicode scalars).
    public var position: Int

    public var description: String { "\(message) at character \(position)" }
}

/// Why a compiled query could not be evaluated: its nodelist grew past `JSONPath.maximumNodes`, or its
/// evaluation was stopped (`EvaluationLimits`: a deadline, the longest evaluation, a cancellation).
public struct JSONPathEvaluationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// Why the evaluation was stopped, when it was.
    public var stopped: EvaluationStopped?

    public init(message: String, stopped: EvaluationStopped? = nil) {
        self.message = message
        self.stopped = stopped
    }

    public var description: String { message }
}
