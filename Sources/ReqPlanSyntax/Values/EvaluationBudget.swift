import Synchronization

/// How much work one evaluation over data from outside may do: a `match()`, `xpath()` or `jsonpath()` on a
/// response body, an Arazzo criterion, a JSONPath `search()`. A server chooses the body, so no body may hold
/// a run: every evaluator counts its steps against a budget, and every so often checks the time and whether
/// its task was cancelled (a step's `timeout` of an enclosing step or of the plan, Ctrl-C, SIGTERM).
///
/// The limits in force are a task-local value (`EvaluationLimits.current`), set by the runtime around the
/// evaluations of each step, so the evaluators need no parameter for them: a library caller that sets none
/// gets the defaults, and cancellation is checked whatever the limits.
public struct EvaluationLimits: Sendable {
    /// The most steps one evaluation may take (default 50,000,000: a few seconds of work). A step is one node
    /// visited, one item compared, one value copied.
    public var maxSteps: Int
    /// The longest one evaluation may take (default 10 s), however few its steps (a regular expression
    /// backtracks inside ICU, where steps are not counted).
    public var maxDuration: Duration
    /// When every evaluation must have ended, if earlier than `maxDuration` from its start: the attempt's
    /// timeout.
    public var deadline: ContinuousClock.Instant?
    /// What `deadline` is, in messages (`the attempt's timeout of 5s`).
    public var deadlineName: String {
        get {
            switch name {
            case .text(let text): text
            case .attemptTimeout(let length):
                "the attempt's timeout of \(PlanDuration(milliseconds: Int(clamping: length.milliseconds)))"
            }
        }
        set { name = .text(newValue) }
    }
    /// `deadlineName`, worked out when a message needs it: every request attempt sets one, and few are read.
    private var name: DeadlineName
    private enum DeadlineName: Sendable {
        case text(String)
        case attemptTimeout(Duration)
    }
    /// Where the first evaluation stopped under these limits is recorded, for the runtime to tell a timeout
    /// or a cancellation from any other failure of the expression that holds it; nil: not recorded.
    public var stops: EvaluationStops?

    /// Limits with the defaults, and no deadline.
    public init(
        maxSteps: Int = 50_000_000, maxDuration: Duration = .seconds(10), deadline: ContinuousClock.Instant? = nil,
        deadlineName: String = "the deadline"
    ) {
        self.maxSteps = maxSteps
        self.maxDuration = maxDuration
        self.deadline = deadline
        self.name = .text(deadlineName)
    }

    /// The limits of the evaluations of the current task.
    @TaskLocal public static var current = EvaluationLimits()

    /// These limits with `deadline` moved to `end` if that is earlier (an enclosing step's timeout, then an
    /// attempt's), named `name` in messages.
    public func ending(by end: ContinuousClock.Instant, name: String) -> EvaluationLimits {
        ending(by: end, named: .text(name))
    }

    /// These limits with `deadline` moved to the end of an attempt that starts at `start` and may take
    /// `length`, if that is earlier, named in messages as the attempt's timeout.
    public func ending(attemptFrom start: ContinuousClock.Instant, after length: Duration) -> EvaluationLimits {
        ending(by: start.advanced(by: length), named: .attemptTimeout(length))
    }

    private func ending(by end: ContinuousClock.Instant, named name: DeadlineName) -> EvaluationLimits {
        var limits = self
        if deadline.map({ end < $0 }) ?? true {
            limits.deadline = end
            limits.name = name
        }
        return limits
    }
}

/// The first evaluation stopped under some limits, kept for whoever set them.
public final class EvaluationStops: Sendable {
    private let first = Mutex<EvaluationStopped?>(nil)

    public init() {}

    /// The first stop recorded, if any.
    public var stopped: EvaluationStopped? { first.withLock { $0 } }

    func record(_ stop: EvaluationStopped) {
        first.withLock { if $0 == nil { $0 = stop } }
    }
}

/// Why an evaluation stopped before its end.
public struct EvaluationStopped: Error, Sendable, Hashable, CustomStringConvertible {
    /// What stopped it.
    public enum Reason: Sendable, Hashable {
        /// Its task was cancelled: a timeout of an enclosing step or of the plan, or an interrupt.
        case cancelled
        /// The deadline passed (the attempt's timeout).
        case deadline
        /// It took more than `maxDuration` or `maxSteps`.
        case budget
    }

    public var reason: Reason
    /// What happened, for the step's failure: `it was cancelled`, `… ran out`.
    public var message: String

    public var description: String { message }
}

/// Counts the steps of one evaluation against `EvaluationLimits`, checking the clock and the task's
/// cancellation every 1,024 steps (a few microseconds of work), so an evaluation stops within a few
/// milliseconds of a deadline or a cancellation. One meter per evaluation, used from one thread.
public final class EvaluationMeter {
    private let limits: EvaluationLimits
    private let clock = ContinuousClock()
    private let end: ContinuousClock.Instant
    private let endIsDeadline: Bool
    private var remaining: Int
    private var untilCheck = EvaluationMeter.checkEvery

    /// How many steps pass between two checks of the clock and of cancellation.
    static let checkEvery = 1_024

    /// A meter for one evaluation that starts now, under `limits` (default: those of the current task).
    public init(_ limits: EvaluationLimits = EvaluationLimits.current) {
        self.limits = limits
        let budgetEnd = ContinuousClock.now.advanced(by: limits.maxDuration)
        if let deadline = limits.deadline, deadline < budgetEnd {
            end = deadline
            endIsDeadline = true
        } else {
            end = budgetEnd
            endIsDeadline = false
        }
        remaining = max(0, limits.maxSteps)
    }

    /// Counts `steps` steps of work.
    /// - Throws: `EvaluationStopped` when the steps run out, or (checked every 1,024 steps) the time, or the
    ///   task was cancelled.
    @inline(__always)
    public func spend(_ steps: Int = 1) throws(EvaluationStopped) {
        remaining -= steps
        untilCheck -= steps
        if remaining < 0 {
            throw stop(.budget, "it took more than \(limits.maxSteps) steps, the most one evaluation may take")
        }
        if untilCheck <= 0 {
            untilCheck = Self.checkEvery
            try check()
        }
    }

    /// Checks the time and the task's cancellation now.
    /// - Throws: `EvaluationStopped` when either says to stop.
    public func check() throws(EvaluationStopped) {
        if Task.isCancelled { throw stop(.cancelled, "it was cancelled") }
        guard clock.now >= end else { return }
        if endIsDeadline { throw stop(.deadline, "\(limits.deadlineName) ran out") }
        throw stop(.budget, "it took longer than \(limits.maxDuration), the longest one evaluation may take")
    }

    private func stop(_ reason: EvaluationStopped.Reason, _ message: String) -> EvaluationStopped {
        let stopped = EvaluationStopped(reason: reason, message: message)
        limits.stops?.record(stopped)
        return stopped
    }
}
