/// Why a text is not a JSONPath query (RFC 9535): a syntax error, or a query that is not well-typed.
public struct JSONPathError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The position of the problem in the query, from 1, in characters (Unicode scalars).
    public var position: Int

    public var description: String { "\(message) at character \(position)" }
}

/// Why a compiled query could not be evaluated: its nodelist grew past `JSONPath.maximumNodes`.
public struct JSONPathEvaluationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public var message: String

    public var description: String { message }
}
