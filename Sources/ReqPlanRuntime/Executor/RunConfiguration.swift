import Foundation
import Logging
import ReqPlanHTTP
import ReqPlanPlanner
import ReqPlanSyntax

/// Settings of one run, given once to the executor.
public struct RunConfiguration: Sendable {
    /// Overrides the plan's `concurrency` (`--concurrency`).
    public var concurrency: Int?
    /// Where request files are read from.
    public var files: FileAccess
    /// Delays before retries are multiplied by this (tests use a small factor).
    public var backoffScale: Double = 1
    /// The most a `Retry-After` header may delay a retry.
    public var maxRetryAfter: Duration = .seconds(60)
    /// Where the executor logs for tool developers (`--log-level`); silent by default.
    /// User-facing output never goes through it.
    public var logger = Logger(label: "reqplan.executor", factory: { _ in SwiftLogNoOpLogHandler() })
    /// Without a concurrency limit, the most requests of one scope started at once (a memory
    /// guard; the transport's connection pool is the real limit long before this).
    public var maxActiveRequests = 1024
    /// Secrets learnt during the run (credentials, cookie values), shared with the transport so every
    /// output hides them; they end up in `RunResult.secrets`.
    public var secrets = SecretStore()
    /// Whether each response of a request bound to an API description (`openapi:`) is checked against
    /// the schema of its status and content type (`--no-response-schema-check` turns it off).
    public var checksResponseSchemas = true

    public init(concurrency: Int? = nil, files: FileAccess) {
        self.concurrency = concurrency
        self.files = files
    }
}

/// The values a run starts from: inputs and the environment variables the plan declares.
public struct RunInputs: Sendable {
    public var values: [String: Value]
    public var environment: [String: String]
    /// Names of secret inputs and their values, to redact.
    public var secrets: [String]

    public init(values: [String: Value], environment: [String: String], secrets: [String] = []) {
        self.values = values
        self.environment = environment
        self.secrets = secrets
    }
}

/// Receives events while a plan runs (live progress, traces). Calls come from many tasks at once.
public protocol ExecutionObserver: Sendable {
    /// A step is about to run (its dependencies have ended and its condition held).
    func stepStarted(_ id: String, item: Int?, at time: Duration)
    /// A request attempt ended.
    func attemptFinished(_ id: String, item: Int?, attempt: AttemptRecord)
    /// A step (or a for_each item) ended.
    func stepFinished(_ result: StepResult)
    /// A for_each has evaluated its list and starts its items.
    func loopStarted(_ id: String, itemCount: Int)
    /// A request attempt is about to be sent.
    func requestSent(_ id: String, item: Int?, request: PreparedRequest)
    /// A response arrived (before expectations are checked).
    func responseReceived(_ id: String, item: Int?, response: TransportResponse)
}

extension ExecutionObserver {
    /// Observers that do not show loop progress ignore it.
    public func loopStarted(_ id: String, itemCount: Int) {}
    /// Observers that do not show requests ignore them.
    public func requestSent(_ id: String, item: Int?, request: PreparedRequest) {}
    /// Observers that do not show responses ignore them.
    public func responseReceived(_ id: String, item: Int?, response: TransportResponse) {}
}

/// Several observers as one, called in order.
public struct ObserverGroup: ExecutionObserver {
    public let observers: [any ExecutionObserver]
    public init(_ observers: [any ExecutionObserver]) { self.observers = observers }
    public func stepStarted(_ id: String, item: Int?, at time: Duration) {
        for observer in observers { observer.stepStarted(id, item: item, at: time) }
    }
    public func attemptFinished(_ id: String, item: Int?, attempt: AttemptRecord) {
        for observer in observers { observer.attemptFinished(id, item: item, attempt: attempt) }
    }
    public func stepFinished(_ result: StepResult) {
        for observer in observers { observer.stepFinished(result) }
    }
    public func loopStarted(_ id: String, itemCount: Int) {
        for observer in observers { observer.loopStarted(id, itemCount: itemCount) }
    }
    public func requestSent(_ id: String, item: Int?, request: PreparedRequest) {
        for observer in observers { observer.requestSent(id, item: item, request: request) }
    }
    public func responseReceived(_ id: String, item: Int?, response: TransportResponse) {
        for observer in observers { observer.responseReceived(id, item: item, response: response) }
    }
}

/// An observer that ignores every event.
public struct NoObserver: ExecutionObserver {
    public init() {}
    public func stepStarted(_ id: String, item: Int?, at time: Duration) {}
    public func attemptFinished(_ id: String, item: Int?, attempt: AttemptRecord) {}
    public func stepFinished(_ result: StepResult) {}
}

/// How a run ended.
public struct RunResult: Sendable {
    /// Results of every step outside for_each bodies, by id (for_each items are in their step's `children`).
    public var results: [String: StepResult]
    /// Step ids in document order.
    public var order: [String]
    /// The plan's outputs, in order, with the values they could be given.
    public var outputs: [(name: String, value: Value)]
    /// The outputs as every output of reqplan shows them: `***` for a secret output, and wherever a
    /// secret went into a value (`SecretFlow`); in order.
    public var shownOutputs: [(name: String, value: Value)] = []
    /// Problems evaluating outputs.
    public var outputErrors: [String]
    /// Whether the user interrupted the run (SIGINT, SIGTERM).
    public var interrupted: Bool
    /// Whether the plan's `timeout` ran out.
    public var timedOut: Bool
    /// How long the run took.
    public var duration: Duration
    /// The wall-clock time the run started: the instant every `Duration` "since the run started" counts from.
    public var startedAt: Date
    /// Secret values learnt during the run (credentials, cookie values, secret outputs of the plan and of
    /// its sub-plans): every output hides them, as it hides secret inputs.
    public var secrets: [String] = []
    /// The names of the plan's outputs declared `secret: true`: `***` in the summary and reports, whole
    /// in `outputsJSON(redactedBy:)`.
    public var secretOutputs: Set<String> = []

    /// `0` all succeeded or were skipped by their own `if`; `1` something failed; `130` interrupted.
    public var exitCode: Int32 {
        if interrupted { return 130 }
        if timedOut { return 1 }
        let bad = results.values.contains { result in
            switch result.state {
            case .failed, .cancelled: true
            case .skipped: result.causedByFailure
            case .succeeded: false
            }
        }
        return bad || !outputErrors.isEmpty ? 1 : 0
    }

    /// How many steps ended in each state.
    public var counts: [StepState: Int] {
        var counts: [StepState: Int] = [:]
        for result in results.values { counts[result.state, default: 0] += 1 }
        return counts
    }
}
