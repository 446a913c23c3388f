/// One step: a request, a group, a sequence or a for_each, plus what it needs.
///
/// A class, immutable once parsed, so the AST and the DAG share each step instead of
/// copying it (plans of 100,000 steps stay small).
public final class Step: Sendable {
    /// The step id (unique in the whole plan).
    public let id: Located<String>
    /// What the step does.
    public let kind: Kind
    /// `needs:` — steps that must end first.
    public let needs: [Located<String>]
    /// `if:` — when absent, `success()`.
    public let condition: Expression?
    /// `description:`.
    public let description: String?
    /// `timeout:` — for a request each attempt; for a group, sequence or for_each the whole step.
    public let timeout: Located<PlanDuration>?
    /// `retry:` — request steps and for_each over a request.
    public let retry: RetryPolicy?
    /// `expect:` — request steps and for_each over a request.
    public let expect: Expectation?
    /// `concurrency:` — groups, sequences and for_each.
    public let concurrency: Located<Int>?
    /// `on_failure:` — groups, sequences and for_each.
    public let onFailure: Located<FailurePolicy>?
    /// `cookies:` — whether the run's cookie jar applies to this step's requests (on a group, sequence or
    /// for_each, to every request inside; the innermost setting wins).
    public let cookies: Located<Bool>?
    /// `poll:` — request steps and for_each over a request: repeat the request until `until` holds.
    public let poll: PollPolicy?
    /// The whole step, from its id to its last line.
    public let range: SourceRange
    /// Why the step is skipped when its condition is not true, in the words of the document it was written
    /// in; nil for a plan's `if:` ("its `if` is false").
    public let skippedBecause: String?
    /// For a `sequence`: control between its members when it is not one after another (an Arazzo workflow's
    /// actions); nil for a plan's own sequences.
    public let flow: FlowControl?

    /// Creates a step.
    public init(
        id: Located<String>, kind: Kind, needs: [Located<String>], condition: Expression?, description: String?,
        timeout: Located<PlanDuration>?, retry: RetryPolicy?, expect: Expectation?, concurrency: Located<Int>?,
        onFailure: Located<FailurePolicy>?, range: SourceRange, cookies: Located<Bool>? = nil,
        poll: PollPolicy? = nil, skippedBecause: String? = nil, flow: FlowControl? = nil
    ) {
        self.id = id
        self.kind = kind
        self.needs = needs
        self.condition = condition
        self.description = description
        self.timeout = timeout
        self.retry = retry
        self.expect = expect
        self.concurrency = concurrency
        self.onFailure = onFailure
        self.cookies = cookies
        self.poll = poll
        self.range = range
        self.skippedBecause = skippedBecause
        self.flow = flow
        self.members =
            switch kind {
            case .request, .plan: []
            case .group(let members), .sequence(let members): members
            case .forEach(let loop):
                if case .group(let members) = loop.body { members } else { [] }
            }
    }

    /// The same step doing `kind` instead: every other field as it is (one place copies a step, so a field
    /// added later is not lost by a copy).
    public func with(kind: Kind) -> Step {
        Step(
            id: id, kind: kind, needs: needs, condition: condition, description: description, timeout: timeout,
            retry: retry, expect: expect, concurrency: concurrency, onFailure: onFailure, range: range,
            cookies: cookies, poll: poll, skippedBecause: skippedBecause, flow: flow)
    }

    /// What a step does.
    public enum Kind: Sendable {
        /// One HTTP request.
        case request(RequestSpec)
        /// Members that run concurrently; the group ends when all have ended.
        case group([Step])
        /// Members that run one after another in the order written.
        case sequence([Step])
        /// One request or group per item of a list; results keep the input order.
        case forEach(ForEach)
        /// Another plan file, run as one step with its inputs; its steps nest under this one.
        case plan(SubPlanCall)
    }

    /// The kind as written: `request`, `group`, `sequence`, `for_each` or `plan`.
    public var kindName: String {
        switch kind {
        case .request: "request"
        case .group: "group"
        case .sequence: "sequence"
        case .forEach: "for_each"
        case .plan: "plan"
        }
    }

    /// Direct members: of a group or sequence, or of a for_each's group body. (A sub-plan's steps are in
    /// its own file: the planner nests them under the step.)
    /// Kept beside `kind` (set from it once): the walks over every step read it for each step, and reading it
    /// from `kind` copied a request step's whole request to find none.
    public let members: [Step]

    /// The request, for a request step or a for_each over a request.
    public var request: RequestSpec? {
        switch kind {
        case .request(let request): request
        case .forEach(let loop):
            if case .request(let request) = loop.body { request } else { nil }
        default: nil
        }
    }

    /// The sub-plan call, for a `plan` step.
    public var subPlan: SubPlanCall? {
        if case .plan(let call) = kind { return call }
        return nil
    }

    /// Whether the step has `results` and `errors` (groups, sequences, for_each, sub-plans).
    public var isCollection: Bool {
        if case .request = kind { return false }
        return true
    }
}

/// `plan:` — runs another plan file as one step: `plan: { file: auth/login.yaml, inputs: { user: … } }`.
public struct SubPlanCall: Sendable {
    /// `file:` — the plan file, relative to the file this step is written in (a literal path).
    public var file: Located<String>
    /// `inputs:` — values for the sub-plan's inputs, in the order written.
    public var inputs: [SubPlanInput]
    /// The `plan` key of the step.
    public var key: Located<String>
    /// The `inputs` key, when written.
    public var inputsKey: Located<String>?
    /// Which plan of a document that holds several (an Arazzo workflow's id); `nil` for a plan file.
    public var entry: String?

    /// Creates a call.
    public init(
        file: Located<String>, inputs: [SubPlanInput], key: Located<String>, inputsKey: Located<String>?,
        entry: String? = nil
    ) {
        self.file = file
        self.inputs = inputs
        self.key = key
        self.inputsKey = inputsKey
        self.entry = entry
    }

    /// Every expression of the inputs given.
    public var expressions: [Expression] { inputs.flatMap(\.value.expressions) }
}

/// One input given to a sub-plan.
public struct SubPlanInput: Sendable {
    /// The input's name in the sub-plan.
    public var name: Located<String>
    /// The value: any YAML value, strings may hold `${{ }}` (evaluated in the calling plan).
    public var value: ValueTemplate

    /// Creates an input value.
    public init(name: Located<String>, value: ValueTemplate) {
        self.name = name
        self.value = value
    }
}

/// `for_each:` with its body.
public struct ForEach: Sendable {
    /// Where the items come from.
    public var source: Source
    /// `as:` — the item's name inside the body (default `item`).
    public var itemName: Located<String>
    /// What runs once per item.
    public var body: Body

    /// Creates a for_each.
    public init(source: Source, itemName: Located<String>, body: Body) {
        self.source = source
        self.itemName = itemName
        self.body = body
    }

    /// Where a for_each's items come from.
    public enum Source: Sendable {
        /// A list written in the plan (its elements may hold `${{ }}`), or exactly one `${{ }}` giving a list.
        case list(ValueTemplate)
        /// The rows of a data file: `for_each: { file: rows.csv }`.
        case file(ItemsFile)
    }

    /// What a for_each runs per item.
    public enum Body: Sendable {
        case request(RequestSpec)
        case group([Step])
    }

    /// The list written in the plan; nil for the rows of a file.
    public var items: ValueTemplate? {
        if case .list(let items) = source { return items }
        return nil
    }

    /// The data file whose rows are the items; nil for a list written in the plan.
    public var file: ItemsFile? {
        if case .file(let file) = source { return file }
        return nil
    }

    /// Where the items are written: the list, or the `file:` mapping.
    public var sourceRange: SourceRange {
        switch source {
        case .list(let items): items.range
        case .file(let file): file.range
        }
    }

    /// The expressions the items are computed from, evaluated once before the loop (none for a file).
    public var itemExpressions: [Expression] { items?.expressions ?? [] }
}

/// `for_each: { file: PATH, format: csv | jsonl }`: the rows of a data file are the items, in the file's order.
///
/// The path is literal, relative to the file the step is written in; the planner's library (`PlanLibrary`)
/// reads the file when it checks the plan, through `FileReader` as an input names it (inside the project), and
/// keeps the rows here (`rows`), so `validate` reports the file's own problems and types the item, and every
/// run (every iteration of a load) iterates over the same rows without reading the file again.
public struct ItemsFile: Sendable {
    /// `file:` — the data file, as written.
    public var path: Located<String>
    /// `format:` — when written; otherwise the file's extension says (`.csv`, `.jsonl`, `.ndjson`).
    public var format: Located<DataFile.Format>?
    /// The whole `for_each:` mapping.
    public var range: SourceRange
    /// The rows, once the file has been read; nil before (a plan parsed but not checked by a library).
    public var rows: DataFile.Items?

    /// Creates the source of a for_each's items.
    public init(
        path: Located<String>, format: Located<DataFile.Format>?, range: SourceRange, rows: DataFile.Items? = nil
    ) {
        self.path = path
        self.format = format
        self.range = range
        self.rows = rows
    }

    /// The format to read the file as: `format:`, else the one its name says; nil when neither says one.
    public var resolvedFormat: DataFile.Format? { format?.value ?? DataFile.Format(path: path.value) }
}

/// `retry:`. A class, so the many steps without one cost only a pointer.
public final class RetryPolicy: Sendable {
    /// `attempts:` — total tries including the first.
    public let attempts: Located<Int>?
    /// `backoff:` — the base delay before the second try.
    public let backoff: Located<PlanDuration>?
    /// `max_backoff:` — the largest delay.
    public let maxBackoff: Located<PlanDuration>?
    /// `on:` — which failures are retried.
    public let on: [Located<RetryCondition>]?
    /// `unsafe:` — allow retrying non-idempotent methods.
    public let unsafe: Located<Bool>?
    /// Where `retry:` was written.
    public let range: SourceRange

    /// Creates a retry policy.
    public init(
        attempts: Located<Int>?, backoff: Located<PlanDuration>?, maxBackoff: Located<PlanDuration>?,
        on: [Located<RetryCondition>]?, unsafe: Located<Bool>?, range: SourceRange
    ) {
        self.attempts = attempts
        self.backoff = backoff
        self.maxBackoff = maxBackoff
        self.on = on
        self.unsafe = unsafe
        self.range = range
    }

    /// Field by field, `self` over `defaults`.
    public func merged(over defaults: RetryPolicy?) -> RetryPolicy {
        guard let defaults else { return self }
        return RetryPolicy(
            attempts: attempts ?? defaults.attempts, backoff: backoff ?? defaults.backoff,
            maxBackoff: maxBackoff ?? defaults.maxBackoff, on: on ?? defaults.on, unsafe: unsafe ?? defaults.unsafe,
            range: range)
    }
}

/// A kind of failure `retry.on` can name.
public enum RetryCondition: String, Sendable, Hashable, CaseIterable {
    /// Any 5xx response.
    case serverError = "5xx"
    /// 429 Too Many Requests.
    case tooManyRequests = "429"
    /// The attempt timed out.
    case timeout
    /// The connection failed (refused, reset, DNS).
    case connect
}
