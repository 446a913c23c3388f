import Synchronization
import ReqPlanTransport

/// One iteration's figures, gathered while it runs and added to the load's at its end, so the load's figures
/// are locked once per iteration, not once per step.
struct IterationSample: Sendable {
    /// How the iteration itself went, apart from its steps' runs.
    struct Outcome: Sendable {
        var latency: Duration
        var startDelay: Duration?
        var failed: Bool
        var interrupted: Bool
        var counted: Bool
        var reason: String?
    }

    /// A run of one step (or one item of a for_each).
    struct Step: Sendable {
        var id: String
        var latency: Duration
        var failed: Bool
        var requests: Int
        var bytes: Int
        var reason: String?
    }

    var outcome: Outcome
    var steps: [Step]

    init(
        latency: Duration, startDelay: Duration?, failed: Bool, interrupted: Bool, counted: Bool, reason: String?,
        steps: [Step]
    ) {
        outcome = Outcome(
            latency: latency, startDelay: startDelay, failed: failed, interrupted: interrupted, counted: counted,
            reason: reason)
        self.steps = steps
    }

    /// The iteration's reason when step `id` failed for `reason` (as `IterationRecorder.reasonText` keeps it).
    static func reason(step id: String, _ reason: String) -> String { "`\(id)` \(reason)" }
}

/// Gathers the runs of one iteration's steps (an `ExecutionObserver`): each request, group and sequence once,
/// a for_each once per item (its items are what it repeats). Skipped and cancelled steps are not runs.
final class IterationRecorder: ExecutionObserver {
    private let steps = Mutex<[IterationSample.Step]>([])
    /// The for_each steps, whose own end (all items) is not a run.
    private let loops: Set<String>
    /// The net for the reasons kept (secret inputs, and what the iteration learnt).
    private let redactor: Redactor

    init(loops: Set<String>, redactor: Redactor) {
        self.loops = loops
        self.redactor = redactor
    }

    func stepStarted(_ id: String, item: Int?, at time: Duration) {}
    func attemptFinished(_ id: String, item: Int?, attempt: AttemptRecord) {}

    func stepFinished(_ result: StepResult) {
        guard result.state == .succeeded || result.state == .failed, let start = result.start, let end = result.end
        else { return }
        if result.itemIndex == nil && loops.contains(result.id) { return }
        let failed = result.state == .failed
        let step = IterationSample.Step(
            id: result.id, latency: end - start, failed: failed, requests: result.attempts.count,
            bytes: result.responseSize ?? 0, reason: failed ? result.reason.map { reasonText($0) } : nil)
        steps.withLock { $0.append(step) }
    }

    /// A failure's reason as the figures keep it: its kind and message, secrets hidden, at most 200 characters.
    func reasonText(_ reason: StepReason) -> String {
        let text = "\(reason.kind.rawValue): \(redactor.redact(reason.message))"
        return text.count > 200 ? String(text.prefix(199)) + "…" : text
    }

    /// The runs gathered.
    func take() -> [IterationSample.Step] { steps.withLock { $0 } }
}

/// The figures of a whole load, added to as iterations end, read every second for the live display and once at
/// the end.
final class LoadRecorder: Sendable {
    private struct State {
        var result: LoadResult
        /// Steps' positions in `result.steps`.
        var stepIndex: [String: Int]
        /// The current second's iterations.
        var interval = LatencyHistogram()
        var intervalFailed: UInt64 = 0
        var intervalRequests: UInt64 = 0
        var second = 0
    }

    private let state: Mutex<State>
    /// Iterations started, started in the warm-up, and started late (`started`; `snapshot` adds them in).
    private let startedCount = Atomic<UInt64>(0)
    private let warmUpCount = Atomic<UInt64>(0)
    private let lateCount = Atomic<UInt64>(0)

    /// A recorder whose steps are listed in `order` (the plan's), whatever order they first end in.
    init(result: LoadResult, order: [String]) {
        var result = result
        var index: [String: Int] = [:]
        result.steps = []
        for id in order where index[id] == nil && result.steps.count < LoadResult.maxSteps {
            index[id] = result.steps.count
            result.steps.append(StepLoadFigures(id: id, figures: LoadFigures()))
        }
        state = Mutex(State(result: result, stepIndex: index))
    }

    /// An iteration started (counted apart from the figures: no lock for it).
    func started(warmUp: Bool, late: Bool) {
        startedCount.add(1, ordering: .relaxed)
        if warmUp { warmUpCount.add(1, ordering: .relaxed) }
        if late { lateCount.add(1, ordering: .relaxed) }
    }

    /// Adds an iteration's figures.
    func record(_ sample: IterationSample) {
        state.withLock { state in
            let index = state.stepIndex
            Self.add(sample.outcome, steps: sample.steps, to: &state) { index[$0.id] }
        }
    }

    /// The position of step `id` among the figures' steps (`record(_:lone:at:)`); nil past `LoadResult.maxSteps`.
    func position(of id: String) -> Int? { state.withLock { $0.stepIndex[id] } }

    /// Adds an iteration whose one run is `step`, at `position` among the steps (`position(of:)`): as
    /// `record(_:)` adds it, with no array of steps and no lookup of the step, once per request of a load of one
    /// request (`LoadRun.repeating`; BENCHMARKS.md, "Load").
    func record(_ iteration: IterationSample.Outcome, lone step: IterationSample.Step, at position: Int?) {
        state.withLock { state in Self.add(iteration, steps: CollectionOfOne(step), to: &state) { _ in position } }
    }

    private static func add(
        _ sample: IterationSample.Outcome, steps: some Collection<IterationSample.Step>, to state: inout State,
        position: (IterationSample.Step) -> Int?
    ) {
        if sample.interrupted { state.result.interrupted &+= 1 }
        guard sample.counted else { return }
        if let delay = sample.startDelay { state.result.startDelay.record(delay) }
        var requests: UInt64 = 0
        var bytes: UInt64 = 0
        for step in steps {
            requests &+= UInt64(step.requests)
            bytes &+= UInt64(step.bytes)
            // Steps beyond `LoadResult.maxSteps` count in the iteration's figures only.
            guard let position = position(step) else { continue }
            add(step, to: &state.result.steps[position].figures)
        }
        // An interrupted iteration's steps that ended count; the iteration itself does not.
        guard !sample.interrupted else { return }
        state.result.iteration.latency.record(sample.latency)
        state.result.iteration.requests &+= requests
        state.result.iteration.bytes &+= bytes
        if sample.failed {
            state.result.iteration.failed &+= 1
            state.result.iteration.countError(sample.reason ?? "the iteration failed")
            state.intervalFailed &+= 1
        } else {
            state.result.iteration.succeeded &+= 1
        }
        state.interval.record(sample.latency)
        state.intervalRequests &+= requests
    }

    private static func add(_ step: IterationSample.Step, to figures: inout LoadFigures) {
        figures.latency.record(step.latency)
        figures.requests &+= UInt64(step.requests)
        figures.bytes &+= UInt64(step.bytes)
        if step.failed {
            figures.failed &+= 1
            figures.countError(step.reason ?? "failed")
        } else {
            figures.succeeded &+= 1
        }
    }

    /// Iterations due that never started.
    func dropped(_ count: UInt64) { state.withLock { $0.result.dropped &+= count } }

    /// Closes the current second: its figures join the series. At the end (`partial`), only when the part of
    /// a second since the last tick saw an iteration end.
    func closeSecond(partial: Bool = false) {
        state.withLock { state in
            if partial && state.interval.count == 0 { return }
            let interval = state.interval
            state.result.series.append(
                LoadSecond(
                    second: state.second, iterations: interval.count, failed: state.intervalFailed,
                    requests: state.intervalRequests, p50: Self.micros(interval, 50), p90: Self.micros(interval, 90),
                    p99: Self.micros(interval, 99), max: LatencyHistogram.microseconds(interval.max)))
            state.second += 1
            state.interval = LatencyHistogram()
            state.intervalFailed = 0
            state.intervalRequests = 0
        }
    }

    private static func micros(_ histogram: LatencyHistogram, _ percentile: Double) -> UInt64 {
        histogram.count == 0 ? 0 : LatencyHistogram.microseconds(histogram.latency(atPercentile: percentile))
    }

    /// The figures so far, with the windows set for `elapsed` since the start.
    func snapshot(elapsed: Duration, warmUp: Duration) -> LoadResult {
        state.withLock { state in
            var result = state.result
            result.started &+= startedCount.load(ordering: .relaxed)
            result.warmUp &+= warmUpCount.load(ordering: .relaxed)
            result.late &+= lateCount.load(ordering: .relaxed)
            result.elapsed = elapsed
            result.measured = max(elapsed - warmUp, .zero)
            result.steps.removeAll { $0.figures.runs == 0 }
            return result
        }
    }

    /// Sets why the load stopped, unless a reason is set already.
    func stop(because reason: String) {
        state.withLock { state in
            if state.result.stopped == nil { state.result.stopped = reason }
        }
    }

    /// Why the load stopped early, if it did.
    var stopReason: String? { state.withLock { $0.result.stopped } }
}
