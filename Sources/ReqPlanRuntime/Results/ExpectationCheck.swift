import ReqPlanSyntax

/// One expectation of a request checked against the response its last try got: the status, each header and
/// body matcher, each condition, the time limit, and the fit to the bound API description's schema. Reports
/// list them all, met or not.
///
/// It keeps what the plan wrote, not text: reports word it when they show it, so checking costs a run of
/// many requests no string it did not already build.
public struct ExpectationCheck: Sendable, Hashable {
    /// What is checked.
    public enum Subject: Sendable, Hashable {
        /// The status, one of these (`2xx` when the plan writes none).
        case status([StatusPattern])
        /// A header matcher.
        case header(HeaderExpectation)
        /// A body matcher.
        case body(BodyExpectation)
        /// A condition on the response (an Arazzo criterion).
        case condition(ResponseCondition)
        /// `max_duration`.
        case maxDuration(PlanDuration)
        /// The fit of the body to the schema of the bound operation (its label: `petstore.getPet`).
        case schema(String)
    }

    /// What is checked.
    public var subject: Subject
    /// Where the plan writes it (the key; nil for what no plan writes: the default `2xx`, the schema).
    public var range: SourceRange?
    /// Why the response did not meet it, as the failure's reason says; empty when it did.
    public var problems: [String]

    /// Whether the response met it.
    public var passed: Bool { problems.isEmpty }

    public init(_ subject: Subject, at range: SourceRange?, problems: [String]) {
        self.subject = subject
        self.range = range
        self.problems = problems
    }
}
