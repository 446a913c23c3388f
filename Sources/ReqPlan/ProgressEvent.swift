import ReqPlanRuntime

/// Something that happened while a plan ran, in the order the executor reported it: what an app shows as
/// progress (a step started, a request was tried, a job was polled, a step or an item of a batch ended).
///
/// A struct with a `kind`, so new kinds of event can be added without breaking callers: switch over
/// `kind` with a `default` case.
public struct ProgressEvent: Sendable {
    /// What kind of event it is.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A step (or a for_each item) starts: its dependencies ended and its `if` held.
        public static let stepStarted = Kind("step started")
        /// A request attempt ended (`attempt`): a response came, or it failed and may be retried.
        public static let attemptEnded = Kind("attempt ended")
        /// A poll of a step with `poll:` ended (`attempt`, whose `poll` counts the polls).
        public static let pollEnded = Kind("poll ended")
        /// A for_each evaluated its list and starts its `itemCount` items.
        public static let loopStarted = Kind("loop started")
        /// One item of a for_each ended (`outcome`, whose `itemIndex` is the item's position).
        public static let itemEnded = Kind("item ended")
        /// A step ended (`outcome`).
        public static let stepEnded = Kind("step ended")

        /// The kind's name, as in `step started`.
        public var description: String { name }
    }

    /// What kind of event it is.
    public var kind: Kind
    /// The step's id.
    public var step: String
    /// For an event of a for_each item, its position in the list.
    public var item: Int?
    /// When it happened, since the run started.
    public var time: Duration?
    /// The attempt, for `attemptEnded` and `pollEnded`.
    public var attempt: AttemptRecord?
    /// How the step or item ended, for `stepEnded` and `itemEnded`.
    public var outcome: StepOutcome?
    /// How many items the for_each has, for `loopStarted`.
    public var itemCount: Int?
}

extension ProgressEvent: CustomStringConvertible {
    /// One line for a log: the kind, the step (and item), and what ended.
    public var description: String {
        var line = "\(kind) \(step)" + (item.map { "[\($0)]" } ?? "")
        if let attempt {
            line += " attempt \(attempt.number)" + (attempt.poll.map { " (poll \($0))" } ?? "")
            if let status = attempt.status { line += " → \(status)" }
            if let error = attempt.error { line += ": \(error)" }
        }
        if let outcome { line += ": \(outcome.state.rawValue)" + (outcome.reason.map { " (\($0.message))" } ?? "") }
        if let itemCount { line += ": \(itemCount) items" }
        return line
    }
}

/// Turns the executor's observer calls into progress events on a stream.
struct ProgressEventObserver: ExecutionObserver {
    let continuation: AsyncStream<ProgressEvent>.Continuation

    func stepStarted(_ id: String, item: Int?, at time: Duration) {
        continuation.yield(ProgressEvent(kind: .stepStarted, step: id, item: item, time: time))
    }

    func attemptFinished(_ id: String, item: Int?, attempt: AttemptRecord) {
        continuation.yield(
            ProgressEvent(
                kind: attempt.poll == nil ? .attemptEnded : .pollEnded, step: id, item: item,
                time: attempt.start + attempt.duration, attempt: attempt))
    }

    func stepFinished(_ result: StepResult) {
        continuation.yield(
            ProgressEvent(
                kind: result.itemIndex == nil ? .stepEnded : .itemEnded, step: result.id,
                item: result.itemIndex, time: result.end, outcome: StepOutcome(result)))
    }

    func loopStarted(_ id: String, itemCount: Int) {
        continuation.yield(ProgressEvent(kind: .loopStarted, step: id, itemCount: itemCount))
    }
}
