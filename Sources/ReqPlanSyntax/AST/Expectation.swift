/// `expect:` — what a response must look like for the request to succeed.
/// A class, so the many steps without one cost only a pointer.
public final class Expectation: Sendable {
    /// `status:` — any of these; when absent, `2xx`.
    public let status: [Located<StatusPattern>]?
    /// `headers:` — header name → matcher.
    public let headers: [HeaderExpectation]?
    /// `body:` — JSON path → matcher.
    public let body: [BodyExpectation]?
    /// `max_duration:` — the response must arrive within this.
    public let maxDuration: Located<PlanDuration>?
    /// Where `expect:` was written.
    public let range: SourceRange
    /// Conditions on the response, read as `response` (as in `poll.until`), each of which must hold: what
    /// an Arazzo step's `successCriteria` become. Not written in plans.
    public let conditions: [ResponseCondition]

    /// Creates an expectation.
    public init(
        status: [Located<StatusPattern>]?, headers: [HeaderExpectation]?, body: [BodyExpectation]?,
        maxDuration: Located<PlanDuration>?, range: SourceRange, conditions: [ResponseCondition] = []
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.maxDuration = maxDuration
        self.range = range
        self.conditions = conditions
    }

    /// Field by field, `self` over `defaults`.
    public func merged(over defaults: Expectation?) -> Expectation {
        guard let defaults else { return self }
        return Expectation(
            status: status ?? defaults.status, headers: headers ?? defaults.headers, body: body ?? defaults.body,
            maxDuration: maxDuration ?? defaults.maxDuration, range: range,
            conditions: conditions.isEmpty ? defaults.conditions : conditions)
    }

    /// Every template inside the matchers.
    public var expressions: [Expression] {
        (headers ?? []).flatMap(\.matcher.expressions) + (body ?? []).flatMap(\.matcher.expressions)
    }
}

/// A condition a response must meet, read as `response`: an Arazzo criterion, with its text as written
/// so that a failure names it.
public struct ResponseCondition: Sendable, Hashable {
    /// The condition (`response.status == 200 && response.body.id != null`).
    public var expression: Expression
    /// The criterion as written in its document (`$statusCode == 200`), where it is written.
    public var written: Located<String>

    /// Creates a condition.
    public init(expression: Expression, written: Located<String>) {
        self.expression = expression
        self.written = written
    }
}

/// `headers: { Name: matcher }` inside `expect:`.
public struct HeaderExpectation: Sendable, Hashable {
    public var name: Located<String>
    public var matcher: Matcher
}

/// `body: { path: matcher }` inside `expect:`.
public struct BodyExpectation: Sendable, Hashable {
    /// The path into the JSON body (`$` is the whole body).
    public var path: Located<[PathComponent]>
    /// The path as written.
    public var pathText: String
    public var matcher: Matcher
}

/// A check on one value. A plain value means `equals`; a mapping combines the
/// checks it names, all of which must hold.
public struct Matcher: Sendable, Hashable {
    /// `equals:` — the value must equal this.
    public var equals: ValueTemplate?
    /// `exists:` — the value must (`true`) or must not (`false`) be present.
    public var exists: Located<Bool>?
    /// `matches:` — the value (as text) must match this regular expression.
    public var matches: Located<String>?
    /// `type:` — the value must have this type.
    public var type: Located<ValueType>?
    /// `contains:` — a string containing this text, or a list containing this value.
    public var contains: ValueTemplate?
    /// `length:` — a string, list or object of this length.
    public var length: Located<Int>?
    /// Where the matcher was written.
    public var range: SourceRange

    /// Every template inside.
    public var expressions: [Expression] {
        (equals?.expressions ?? []) + (contains?.expressions ?? [])
    }
}
