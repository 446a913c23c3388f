import ReqPlanTransport
import ReqPlanSyntax

/// How a step ended.
public enum StepState: String, Sendable, Hashable, CaseIterable {
    case succeeded, failed, skipped, cancelled
}

/// Why a step failed, was skipped or was cancelled.
public struct StepReason: Sendable, Hashable, CustomStringConvertible {
    /// Kinds of reason, stable for reports.
    public enum Kind: String, Sendable, Hashable {
        /// The connection could not be made or broke (refused, reset, DNS, TLS).
        case transport
        /// The request, group, for_each or plan ran out of time.
        case timeout
        /// The response did not meet `expect:`.
        case expectation
        /// The response did not fit its schema in the bound API description (`openapi:`).
        case schema
        /// An expression could not be evaluated, or a request could not be built.
        case evaluation
        /// A computed value that goes into a header line holds a control character (`HeaderLine`).
        case invalidHeader = "invalid_header"
        /// The response body was larger than the limit.
        case bodyTooLarge = "body_too_large"
        /// No credentials could be had: the OAuth 2.0 token endpoint failed or refused the grant.
        case authorization
        /// Some members failed (groups, sequences, for_each).
        case members
        /// `if:` was false.
        case condition
        /// A dependency did not succeed.
        case dependency
        /// A fail_fast scope, a timeout or the user cancelled the run.
        case cancelled
    }

    public var kind: Kind
    /// One sentence for people.
    public var message: String
    /// Where the plan writes what failed, when that is more precise than the step: the expectation a
    /// response did not meet (`expect.status`, a header or body matcher, a criterion).
    public var range: SourceRange?

    public init(_ kind: Kind, _ message: String, at range: SourceRange? = nil) {
        self.kind = kind
        self.message = message
        self.range = range
    }

    public var description: String { message }
}

/// One try of a request.
public struct AttemptRecord: Sendable, Hashable {
    /// 1 for the first try.
    public var number: Int
    /// When it started, since the run started.
    public var start: Duration
    /// How long it took.
    public var duration: Duration
    /// The response status, if a response came.
    public var status: Int?
    /// What went wrong, if anything.
    public var error: String?
    /// The delay before the next try, if one followed (a retry, or the next poll).
    public var retryDelay: Duration?
    /// The poll this try belongs to (1 for the first), for a step with `poll:`; nil otherwise.
    public var poll: Int? = nil
    /// The visit this try belongs to (1 for the first), for a member of a control flow that ran it more than
    /// once (`FlowControl`: a loop); nil otherwise.
    public var visit: Int? = nil
}

/// Everything known about how one step (or one for_each item) ended.
public struct StepResult: Sendable {
    /// The step id (for a for_each item, the for_each's id).
    public var id: String
    /// For a for_each item, its position in the list.
    public var itemIndex: Int?
    public var state: StepState
    /// Why it did not succeed.
    public var reason: StepReason?
    /// Skipped because, somewhere before it, something failed (drives the exit code and `failure()`).
    public var causedByFailure = false
    /// For a failure a control flow handled (an Arazzo `onFailure` action: `goto`, `end`), what handled it
    /// (`goto retry-login`): the step keeps its failure, and the run does not fail for it.
    public var handledBy: String?
    /// How many times a member of a control flow ran (a loop runs it again); nil for once.
    public var visits: Int?
    /// Final response status, for requests.
    public var status: Int?
    /// Response headers, kept only when a later expression reads them.
    public var headers: [(name: String, value: String)]?
    /// Response body, kept only when a later expression or output reads it.
    public var body: Value?
    /// Why the body, which the response says is JSON, could not be read as JSON (it is then kept as
    /// text); reading into it fails with this reason rather than finding nothing.
    public var bodyProblem: String?
    /// The cookies the response set (name → value, in the order set), kept only when a later
    /// expression or output reads them.
    public var cookies: [HeaderField]?
    /// Response size in bytes.
    public var responseSize: Int?
    /// The start of the body of the response a failed step got (about 200 bytes, on one line, secrets as
    /// `***`): what explains `expected status 2xx, got 500`. Nil when it succeeded or no response came.
    public var responseExcerpt: String?
    /// Each expectation of a request checked against the response its last try got, met or not (empty when
    /// no response came).
    public var checks: [ExpectationCheck] = []
    /// The request as sent (method and URL), for messages and reports.
    public var method: String?
    public var url: String?
    /// Every try of the request.
    public var attempts: [AttemptRecord] = []
    /// When the step became ready (its dependencies ended) and started, and when it ended, since the run started.
    public var ready: Duration?
    public var start: Duration?
    public var end: Duration?
    /// Members' or items' results in order (groups, sequences, for_each, the steps of a sub-plan).
    public var children: [StepResult]?
    /// A sub-plan's outputs, an object name → value (`steps.X.outputs`), once it has run.
    public var outputs: Value?

    public init(id: String, state: StepState, reason: StepReason? = nil) {
        self.id = id
        self.state = state
        self.reason = reason
    }

    /// How long the step ran, in milliseconds.
    public var durationMilliseconds: Int? {
        guard let start, let end else { return nil }
        return Int((end - start).milliseconds)
    }

    /// The error object expressions see (`steps.X.error`), or `null`.
    public var errorValue: Value {
        guard state != .succeeded, let reason else { return .null }
        var fields: [Value.Field] = [.init("step", .string(id))]
        if let itemIndex { fields.append(.init("item", .int(itemIndex))) }
        fields += [.init("kind", .string(reason.kind.rawValue)), .init("message", .string(reason.message))]
        if let status { fields.append(.init("status", .int(status))) }
        return .object(fields)
    }

    /// The errors of failed members or items, in order (`steps.X.errors`).
    public var errorsValue: Value {
        .list((children ?? []).filter { $0.state == .failed }.map(\.errorValue))
    }

    /// The cookies as expressions see them (`steps.X.cookies`): an object name → value; a later cookie of
    /// a name replaces an earlier one's value.
    public var cookiesValue: Value {
        var fields: [Value.Field] = []
        var positions: [String: Int] = [:]
        for cookie in cookies ?? [] {
            if let position = positions[cookie.name] {
                fields[position].value = .string(cookie.value)
            } else {
                positions[cookie.name] = fields.count
                fields.append(.init(cookie.name, .string(cookie.value)))
            }
        }
        return .object(fields)
    }

    /// The result as expressions see it (`steps.X`).
    public var value: Value {
        var fields: [Value.Field] = [
            .init("state", .string(state.rawValue)),
            .init("error", errorValue),
            .init("duration", durationMilliseconds.map(Value.int) ?? .null),
        ]
        if let children {
            fields.append(.init("results", .list(children.map(\.value))))
            fields.append(.init("errors", errorsValue))
            if let outputs { fields.append(.init("outputs", outputs)) }
        } else {
            fields.append(.init("status", status.map(Value.int) ?? .null))
            fields.append(.init("headers", ResponseHeaders(headers ?? []).value))
            fields.append(.init("body", body ?? .null))
            fields.append(.init("attempts", .int(attempts.count)))
            fields.append(.init("cookies", cookiesValue))
            fields.append(.init("url", url.map(Value.string) ?? .null))
        }
        return .object(fields)
    }
}
