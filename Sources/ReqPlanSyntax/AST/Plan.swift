/// A parsed plan: the AST, with the source range of every part.
///
/// Produced by `PlanParser`; the planner resolves names and builds the DAG from it.
public struct Plan: Sendable {
    /// The text the plan was read from.
    public var source: SourceFile
    /// `reqplan:` — the format version.
    public var version: Located<Int>
    /// `name:`.
    public var name: Located<String>?
    /// `description:`.
    public var description: Located<String>?
    /// `inputs:`, in declaration order.
    public var inputs: [InputDeclaration]
    /// `defaults:`.
    public var defaults: RequestDefaults
    /// `concurrency:` — most requests in flight at once, plan-wide.
    public var concurrency: Located<Int>?
    /// `on_failure:`.
    public var onFailure: Located<FailurePolicy>?
    /// `timeout:` — for the whole run.
    public var timeout: Located<PlanDuration>?
    /// `redact_headers:` — more header names to redact in every output.
    public var redactHeaders: [Located<String>]
    /// `cookies:` — whether the run's cookie jar applies (default true); a step's own `cookies` wins.
    public var cookies: Located<Bool>?
    /// `steps:`, in the order written.
    public var steps: [Step]
    /// `outputs:`, in the order written.
    public var outputs: [Output]
    /// `vars:` — named values computed once, read as `vars.NAME`, in the order written.
    public var vars: [Variable] = []
    /// `openapi:` — the API descriptions the plan's requests are checked against, in the order written.
    public var apis: [APIBinding] = []
    /// `slo:` — the limits a load run (`reqplan load`) holds steps and iterations to, in the order written.
    public var slo: [ServiceLevelObjective] = []
    /// Step ids that are declared but whose step had errors (so later stages do not report them as unknown).
    public var unreadStepIDs: Set<String> = []
    /// Input names that are declared but whose declaration had errors.
    public var unreadInputNames: Set<String> = []
    /// Var names that are declared but whose value had errors.
    public var unreadVarNames: Set<String> = []
    /// Whether some `${{ }}` did not parse, so what the plan reads is not fully known.
    public var hasMalformedExpressions = false
    /// The plan's text with the lines of its top-level steps left empty, when it was read step by step
    /// (`PlanReadCache`): what a step's checks read of the plan around it (`APICheckCache`).
    public var textAroundSteps: String?
    /// Inputs named by a `${{ }}` written where none is evaluated (an input's default; an error, RP0210):
    /// not reported as unused on top of that error.
    public var inputsReadWhereNotEvaluated: Set<String> = []
    /// How hints say what to write: a plan file's keys, or those of the document a reader translated.
    public var notation: any PlanNotation = PlanFileNotation()

    /// Creates a plan: what `PlanParser` reads from a plan file, or a reader of another kind of document
    /// (`PlanDocumentReader`) builds.
    public init(
        source: SourceFile, version: Located<Int>, name: Located<String>?, description: Located<String>?,
        inputs: [InputDeclaration], defaults: RequestDefaults, concurrency: Located<Int>?,
        onFailure: Located<FailurePolicy>?, timeout: Located<PlanDuration>?, redactHeaders: [Located<String>],
        cookies: Located<Bool>?, steps: [Step], outputs: [Output]
    ) {
        self.source = source
        self.version = version
        self.name = name
        self.description = description
        self.inputs = inputs
        self.defaults = defaults
        self.concurrency = concurrency
        self.onFailure = onFailure
        self.timeout = timeout
        self.redactHeaders = redactHeaders
        self.cookies = cookies
        self.steps = steps
        self.outputs = outputs
    }

    /// Every step in the plan, members included, in document order (depth first).
    public var allSteps: [Step] {
        var result: [Step] = []
        result.reserveCapacity(steps.count)
        forEachStep { result.append($0) }
        return result
    }

    /// How many steps `allSteps` lists, counted without listing them.
    public var stepCount: Int {
        var count = 0
        forEachStep { _ in count += 1 }
        return count
    }

    /// Visits every step, members included, in document order (depth first), keeping each level's list and
    /// the index of its next step.
    private func forEachStep(_ visit: (Step) -> Void) {
        var levels: [(steps: [Step], next: Int)] = [(steps, 0)]
        while let (list, next) = levels.last {
            guard next < list.count else {
                levels.removeLast()
                continue
            }
            levels[levels.count - 1].next = next + 1
            let step = list[next]
            visit(step)
            if !step.members.isEmpty { levels.append((step.members, 0)) }
        }
    }
}

/// `on_failure:` — what a failure does to the rest of its scope.
public enum FailurePolicy: String, Sendable, Hashable, CaseIterable {
    /// Independent work goes on (the default).
    case `continue` = "continue"
    /// Running siblings are cancelled at once; what never started ends `cancelled`.
    case failFast = "fail_fast"
}

/// One entry of `inputs:`.
public struct InputDeclaration: Sendable {
    /// The input's name (the key).
    public var name: Located<String>
    /// `type:`; when absent, taken from the default, else `string`.
    public var type: Located<ValueType>?
    /// `default:`.
    public var defaultValue: Located<Value>?
    /// `env:` — the environment variable the value comes from.
    public var env: Located<String>?
    /// `secret:` — redacted in every output.
    public var secret: Bool
    /// `description:`.
    public var description: String?
    /// The whole declaration.
    public var range: SourceRange
    /// `required:` — `true`: a run must be given a value (`--input`, `--inputs-file`, or a non-empty
    /// environment variable); `false`: without one it is the default, else null.
    public var required: Located<Bool>? = nil
    /// Whether any value is taken (an Arazzo input whose JSON Schema names no single `type`, or one an open
    /// schema does not list): no type is checked, and a command-line value is read as JSON when it is JSON,
    /// else as a string.
    public var acceptsAnyType = false

    /// Creates a declaration.
    public init(
        name: Located<String>, type: Located<ValueType>?, defaultValue: Located<Value>?, env: Located<String>?,
        secret: Bool, description: String?, range: SourceRange, required: Located<Bool>? = nil
    ) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.env = env
        self.secret = secret
        self.description = description
        self.range = range
        self.required = required
    }

    /// The declared type, else the default's type, else `string`.
    public var effectiveType: ValueType {
        if let type { return type.value }
        if let value = defaultValue?.value, value != .null { return value.type }
        return .string
    }

    /// The type every value must have, or nil when any value is taken (``acceptsAnyType``).
    public var knownType: ValueType? { acceptsAnyType ? nil : effectiveType }

    /// Whether a run must be given a value: `required:` when written, else when it has no default and
    /// no environment variable.
    public var isRequired: Bool { required?.value ?? (defaultValue == nil && env == nil) }
}

/// One entry of `outputs:`.
public struct Output: Sendable {
    /// The output's name.
    public var name: Located<String>
    /// Its value.
    public var value: ValueTemplate
    /// `secret: true` (in the `{ value, secret }` form): `***` in the summary, JUnit and reports, still
    /// given whole to a plan that runs this one as a sub-plan, and to `--output json`.
    public var secret: Located<Bool>? = nil
    /// `description:` (in the `{ value, description }` form).
    public var description: String? = nil

    /// Creates an output.
    public init(name: Located<String>, value: ValueTemplate, secret: Located<Bool>? = nil, description: String? = nil) {
        self.name = name
        self.value = value
        self.secret = secret
        self.description = description
    }

    /// Whether the output is secret.
    public var isSecret: Bool { secret?.value == true }
}

/// One entry of `vars:`: a named value computed once, read as `vars.NAME`.
public struct Variable: Sendable {
    /// The var's name.
    public var name: Located<String>
    /// Its value: any YAML value whose strings may hold `${{ }}` over `inputs`, `env`, `steps` and other vars.
    public var value: ValueTemplate

    /// Creates a var.
    public init(name: Located<String>, value: ValueTemplate) {
        self.name = name
        self.value = value
    }
}

/// `defaults:` — applied to every request unless the step overrides.
public struct RequestDefaults: Sendable {
    /// `base_url:` — relative request URLs are joined to it.
    public var baseURL: Template?
    /// `headers:` — merged with each request's headers (the request wins).
    public var headers: [Header]
    /// `query:` — merged with each request's query (the request wins).
    public var query: [QueryParameter]
    /// `timeout:` — per request.
    public var timeout: Located<PlanDuration>?
    /// `retry:`.
    public var retry: RetryPolicy?
    /// `expect:`.
    public var expect: Expectation?
    /// `auth:` — credentials of every request that has neither its own `auth` nor an `Authorization` header.
    public var auth: Located<RequestAuth>?
    /// `follow_redirects:` — for every request that does not say.
    public var followRedirects: Located<Bool>?

    /// No defaults.
    public static let none = RequestDefaults(
        baseURL: nil, headers: [], query: [], timeout: nil, retry: nil,
        expect: nil)

    /// Every template of the defaults (they may read `inputs` and `env` only).
    public var expressions: [Expression] {
        var result = baseURL?.expressions ?? []
        result += headers.flatMap(\.value.expressions)
        result += query.flatMap(\.value.expressions)
        result += expect?.expressions ?? []
        result += auth?.value.expressions ?? []
        return result
    }
}
