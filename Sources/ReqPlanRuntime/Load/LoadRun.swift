import Foundation
import Synchronization
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTransport

/// Runs a plan as a load (`reqplan load`): many *iterations*, each one run of the plan's DAG with its own
/// inputs and data flow, started as the profile's workload model says, their figures gathered in HDR
/// histograms (`LoadRecorder`).
///
/// Everything runs as child tasks of `run`: the iterations, the open model's scheduler or the closed model's
/// users, and the clock that shows progress every second, checks the abort condition and ends the grace
/// given to iterations still running when the schedule ends. Cancelling the calling task (Ctrl-C) cancels
/// the iterations; what was gathered is returned.
public struct LoadRun: Sendable {
    /// The plan.
    let graph: PlanGraph
    /// How iterations start and how long the load lasts.
    let profile: LoadProfile
    /// The inputs of iteration `n` (from 0); `nil` when the data ran out, which ends the load.
    let inputs: @Sendable (UInt64) -> RunInputs?
    /// The transport of each iteration, given the secrets store of its run settings (its own cookie jar
    /// over the shared connections, unless shared).
    let transport: @Sendable (SecretStore) -> any Transport
    /// The run settings of iteration `n`: its own secrets store, and its own tokens unless shared.
    let configuration: @Sendable (UInt64) -> RunConfiguration
    /// Connections the transport opened so far, if it counts them.
    let connections: (@Sendable () -> UInt64)?
    /// The plan file, the model and what was asked, as the report names them.
    let description: (plan: String, target: String)
    /// The for_each steps of the plan, whose own end (all items) is not a run (`IterationRecorder`).
    let loops: Set<String>
    /// Where iterations run, in turn (none: the global executor). The transport's event loops, so an
    /// iteration sends and hears on one thread, with its connections (`HTTPClientTransport.taskExecutors`).
    let executors: [any TaskExecutor]
    /// The plan as every iteration runs it, worked out once (the files are those of every iteration's
    /// settings, the first one's).
    let layout: Executor.Layout
    /// Whether iterations may get different inputs (rows of a data file): if not, a plan of one request is
    /// built once for them all (`Executor.buildLone`).
    let inputsVary: Bool
    /// The plan's one request, built once, when it is one (set as the load starts).
    private var lone: Executor.LoneRequest?
    /// The executor that built `lone`, which judges its responses as they come (`repeatingUser`).
    private var judge: Executor?

    /// A load of `graph`.
    public init(
        graph: PlanGraph, profile: LoadProfile, target: String, inputs: @escaping @Sendable (UInt64) -> RunInputs?,
        transport: @escaping @Sendable (SecretStore) -> any Transport,
        configuration: @escaping @Sendable (UInt64) -> RunConfiguration,
        connections: (@Sendable () -> UInt64)? = nil, executors: [any TaskExecutor] = [], inputsVary: Bool = true
    ) {
        self.graph = graph
        self.profile = profile
        self.inputs = inputs
        self.transport = transport
        self.configuration = configuration
        self.connections = connections
        self.executors = executors
        self.inputsVary = inputsVary
        self.layout = Executor.Layout(graph: graph, files: configuration(0).files)
        self.description = (graph.plan.source.path, target)
        self.loops = Set(graph.nodes.filter { $0.kind == .forEachRequest || $0.kind == .forEachGroup }.map(\.id))
    }

    /// What the load shows every second: the figures so far and the iterations in flight.
    public struct Progress: Sendable {
        /// The figures so far (the last second is `result.series.last`).
        public var result: LoadResult
        /// Iterations running now.
        public var inFlight: Int
        /// Time since the start.
        public var elapsed: Duration
        /// Whether the load has ended (the last call).
        public var final = false
    }

    /// Runs the load to its end, or until cancelled, or until `abort` gives a reason to stop.
    /// - Parameters:
    ///   - progress: called every second with the figures so far, and once at the end.
    ///   - abort: called every second after the warm-up with the figures so far; a reason it returns stops the
    ///     load at once, cancelling the iterations in flight.
    public func run(
        progress: (@Sendable (Progress) -> Void)? = nil, abort: (@Sendable (LoadResult) -> String?)? = nil
    ) async -> LoadResult {
        let clock = ContinuousClock()
        let start = clock.now
        let modelName: String
        switch profile.model {
        case .open: modelName = "open"
        case .closed: modelName = "closed"
        }
        let recorder = LoadRecorder(
            result: LoadResult(
                plan: description.plan, model: modelName, target: description.target, startedAt: Date()),
            order: graph.nodes.map(\.id))
        let state = LoadState()
        enum Event: Sendable {
            case tick
            case finished
        }
        let warmUp = profile.warmUp
        let grace = profile.grace
        var load = self
        if !inputsVary, layout.loneRequest != nil, let inputs = inputs(0) {
            let settings = configuration(0)
            let builder = Executor(
                layout: layout, transport: transport(settings.secrets), inputs: inputs, configuration: settings)
            load.lone = await builder.buildLone()
            load.judge = builder
        }
        await withTaskGroup(of: Event.self) { [load] group in
            group.addTask {
                await load.drive(recorder: recorder, state: state, start: start)
                return .finished
            }
            var next = start + .seconds(1)
            group.addTask { [next] in
                try? await Task.sleep(until: next, clock: .continuous)
                return .tick
            }
            while let event = await group.next() {
                if event == .finished {
                    group.cancelAll()
                    break
                }
                recorder.closeSecond()
                let elapsed = clock.now - start
                let snapshot = recorder.snapshot(elapsed: elapsed, warmUp: warmUp)
                progress?(Progress(result: snapshot, inFlight: state.inFlight, elapsed: elapsed))
                if let abort, elapsed >= warmUp, let reason = abort(snapshot) {
                    recorder.stop(because: "aborted: \(reason)")
                    state.stop()
                    group.cancelAll()
                    continue
                }
                if let ended = state.scheduleEnded, clock.now - ended >= grace, state.inFlight > 0 {
                    recorder.stop(
                        because:
                            "iterations still running \(PlanDuration(milliseconds: Int(grace.seconds * 1000)).description) after the end were cancelled"
                    )
                    group.cancelAll()
                    continue
                }
                guard !Task.isCancelled else { continue }
                next = next + .seconds(1)
                group.addTask { [next] in
                    try? await Task.sleep(until: next, clock: .continuous)
                    return .tick
                }
            }
        }
        if Task.isCancelled { recorder.stop(because: "interrupted") }
        recorder.closeSecond(partial: true)
        let elapsed = clock.now - start
        var result = recorder.snapshot(elapsed: elapsed, warmUp: warmUp)
        result.connections = connections?()
        progress?(Progress(result: result, inFlight: 0, elapsed: elapsed, final: true))
        return result
    }

    // MARK: The models

    private func drive(recorder: LoadRecorder, state: LoadState, start: ContinuousClock.Instant) async {
        switch profile.model {
        case .open(let schedule):
            await driveOpen(schedule, recorder: recorder, state: state, start: start)
        case .closed(let users, let think):
            await driveClosed(users, think: think, recorder: recorder, state: state, start: start)
        }
    }

    /// The open model: iteration `n` starts when the schedule says, in a task of its own, whatever the ones
    /// before it are doing; only the cap on iterations in flight holds one back, and it is then counted late.
    private func driveOpen(
        _ schedule: ArrivalSchedule, recorder: LoadRecorder, state: LoadState, start: ContinuousClock.Instant
    ) async {
        let limiter = AsyncLimiter(limit: profile.maxInFlight)
        let clock = ContinuousClock()
        var n: UInt64 = 0
        // A plan of one request that can be sent again and again goes on lanes: connections that each carry one
        // iteration at a time, with no task per iteration (`lane`).
        let lanes = repeater().map(OpenLanes.init)
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled, !state.stopped {
                if let cap = profile.iterations, n >= cap { break }
                guard let due = schedule.offset(of: n) else { break }
                let when = start + due
                if clock.now < when {
                    // No tolerance: without one, the sleep may end up to a millisecond late (Dispatch's least leeway),
                    // and every iteration's latency, measured from when it was due, would carry that lag.
                    try? await Task.sleep(until: when, tolerance: .zero, clock: .continuous)
                    continue
                }
                var late = false
                if !limiter.tryAcquire() {
                    late = true
                    // Waiting for a slot ends with the schedule: a server that never answers must not hold the load
                    // past its duration and grace (the iterations due meanwhile count as dropped).
                    guard await limiter.acquire(by: schedule.duration.map { start + $0 }) else { break }
                    if let end = schedule.duration, clock.now - start >= end {
                        limiter.release()
                        break
                    }
                }
                guard let inputs = inputs(n) else {
                    limiter.release()
                    recorder.stop(because: "the data ran out")
                    break
                }
                let index = n
                let counted = due >= profile.warmUp
                recorder.started(warmUp: !counted, late: late)
                state.began()
                // Once the server answered in HTTP/2, a task per iteration: its requests share the streams of one
                // connection, which lanes of their own would only wait for one at a time.
                if let lanes, lanes.repeater.repeats {
                    if lanes.offer(OpenLanes.Due(ticket: index, due: when, counted: counted)) {
                        group.addTask(executorPreference: executor(index)) {
                            await self.lane(lanes, limiter: limiter, recorder: recorder, state: state)
                        }
                    }
                } else {
                    group.addTask(executorPreference: executor(index)) {
                        await self.iterate(
                            index, inputs: inputs, due: when, open: true, counted: counted, recorder: recorder)
                        state.ended()
                        limiter.release()
                    }
                }
                n += 1
            }
            lanes?.close()
            // Iterations due by now (or by the schedule's end) that never started.
            if recorder.stopReason == nil, !Task.isCancelled {
                let window = min(clock.now - start, schedule.duration ?? clock.now - start)
                var due = schedule.count(within: window)
                if let cap = profile.iterations { due = min(due, cap) }
                if due > n { recorder.dropped(due - n) }
            }
            // No iteration starts from here: the grace for those running begins (the group waits for them).
            state.endSchedule()
        }
        // Iterations due that no lane took before the load was cancelled.
        for due in lanes?.untaken() ?? [] {
            recorder.record(
                IterationSample(
                    latency: clock.now - due.due, startDelay: nil, failed: false, interrupted: true,
                    counted: due.counted, reason: nil, steps: []))
            state.ended()
        }
    }

    /// The closed model: each user runs one iteration after another, `think` between them; users are added
    /// and removed as the schedule's count moves (checked every 100 ms), a user leaving after its iteration.
    private func driveClosed(
        _ users: UserSchedule, think: Duration, recorder: LoadRecorder, state: LoadState,
        start: ContinuousClock.Instant
    ) async {
        let clock = ContinuousClock()
        let pool = UserPool()
        let cap = profile.iterations
        @Sendable func user(_ slot: Int) async {
            defer { pool.leave(slot) }
            if think == .zero, let repeater = repeater() {
                return await repeatingUser(
                    slot, repeater, pool: pool, recorder: recorder, state: state, start: start)
            }
            while !Task.isCancelled, !pool.ending, !state.stopped, slot < pool.wanted {
                let ticket = pool.takeTicket()
                if let cap, ticket >= cap {
                    pool.end()
                    return
                }
                guard let inputs = inputs(ticket) else {
                    // No count here: users take tickets and rows in different orders, so the ticket that found no
                    // row is not how many took one (the summary's iterations line says that).
                    recorder.stop(because: "the data ran out")
                    pool.end()
                    return
                }
                let began = clock.now
                let counted = began - start >= profile.warmUp
                recorder.started(warmUp: !counted, late: false)
                state.began()
                await iterate(ticket, inputs: inputs, due: began, open: false, counted: counted, recorder: recorder)
                state.ended()
                if think > .zero, !pool.ending { try? await Task.sleep(for: think) }
            }
        }
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled, !state.stopped, !pool.ending {
                let elapsed = clock.now - start
                if let end = users.duration, elapsed >= end { break }
                let want = users.users(at: elapsed)
                pool.want(want)
                for slot in 0..<want where pool.join(slot) {
                    group.addTask(executorPreference: executor(UInt64(slot))) { await user(slot) }
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
            pool.end()
            // No iteration starts from here: the grace for those running begins (the group waits for them).
            state.endSchedule()
        }
    }

    /// A repeater of the plan's one request, when the load may send it again and again on a connection of a
    /// user's own (`Executor.LoneRequest.repeatable`), with no cookie jar shared between iterations, over a
    /// transport that can (`RepeatingTransport`).
    private func repeater() -> (any RequestRepeater)? {
        guard let lone, lone.repeatable, !profile.sharesCookies,
            let repeating = transport(SecretStore()) as? any RepeatingTransport
        else { return nil }
        return repeating.repeating(lone.built.run.prepared, timeout: lone.built.run.timeout)
    }

    /// A user of the closed model whose iterations are the plan's one request sent again and again on a
    /// connection of its own (`repeating`).
    private func repeatingUser(
        _ slot: Int, _ repeater: any RequestRepeater, pool: UserPool, recorder: LoadRecorder, state: LoadState,
        start: ContinuousClock.Instant
    ) async {
        let clock = ContinuousClock()
        let cap = profile.iterations
        let warmUp = profile.warmUp
        await repeating(repeater, open: false, recorder: recorder, connected: {}) { _ in
            guard !pool.ending, !state.stopped, slot < pool.wanted else { return .stop }
            let ticket = pool.takeTicket()
            if let cap, ticket >= cap {
                pool.end()
                return .stop
            }
            let began = clock.now
            let counted = began - start >= warmUp
            recorder.started(warmUp: !counted, late: false)
            state.began()
            return .run(RepeatedIteration(ticket: ticket, due: began, began: began, counted: counted))
        } ended: {
            state.ended()
        } goesOn: {
            false
        }
    }

    /// A lane of the open model: a connection of its own that carries the iterations due (`OpenLanes`), one at a
    /// time, waiting between them (`repeating`).
    private func lane(_ lanes: OpenLanes, limiter: AsyncLimiter, recorder: LoadRecorder, state: LoadState) async {
        let clock = ContinuousClock()
        // Counted among the lanes without a connection (`OpenLanes.offer`) until its first one is made.
        let connecting = Atomic<Bool>(true)
        // Once: when the connection is made, or when the lane ends without one.
        let release: @Sendable () -> Void = { if connecting.exchange(false, ordering: .relaxed) { lanes.connected() } }
        defer { release() }
        await repeating(lanes.repeater, open: true, recorder: recorder, connected: release) { waker in
            switch lanes.take(waker) {
            case .due(let due):
                return .run(
                    RepeatedIteration(ticket: due.ticket, due: due.due, began: clock.now, counted: due.counted))
            case .wait: return .wait
            case .stop: return .stop
            }
        } ended: {
            state.ended()
            limiter.release()
        } goesOn: {
            lanes.hasDue
        }
    }

    /// An iteration of a repeated request: its ticket, when it was due (the open model's intended start; the closed
    /// model's start), when it began, and whether it counts (after the warm-up).
    private struct RepeatedIteration: Sendable {
        var ticket: UInt64
        var due: ContinuousClock.Instant
        var began: ContinuousClock.Instant
        var counted: Bool
    }

    /// What a repeated request does next (`repeating`).
    private enum RepeatNext: Sendable {
        case run(RepeatedIteration)
        case wait
        case stop
    }

    /// Sends the plan's one request again and again with `repeater`, for the iterations `next` gives (waiting for
    /// its waker when it says to), until it says to stop, or the task is cancelled. Each response is judged as it
    /// comes, on the connection's thread, as `Executor.runLone` judges it (`Executor.judgeLone`), and recorded as
    /// `iterate` records it: the iteration's latency from when it was due, the step's from when it began. A
    /// response or failure that needs more (a redirect, a cookie, a body to read) goes on in `iterate` with what
    /// came, so no request is sent twice. `connected` is called as a run of the repeater gets its connection,
    /// `ended` as each iteration ends, and `goesOn`, when `next` said to stop, says whether to ask again (on a new
    /// connection).
    private func repeating(
        _ repeater: any RequestRepeater, open: Bool, recorder: LoadRecorder,
        connected: @escaping @Sendable () -> Void,
        next: @escaping @Sendable (any RepeatWaker) -> RepeatNext, ended: @escaping @Sendable () -> Void,
        goesOn: @Sendable () -> Bool
    ) async {
        guard let lone, let judge else { return }
        let clock = ContinuousClock()
        let current = Mutex<RepeatedIteration?>(nil)
        let id = lone.built.run.node.id
        let position = recorder.position(of: id)
        let words = IterationRecorder(loops: [], redactor: judge.secretNet)
        while !Task.isCancelled {
            let end = await repeater.run { waker in
                switch next(waker) {
                case .run(let iteration):
                    current.withLock { $0 = iteration }
                    return .send
                case .wait: return .wait
                case .stop: return .stop
                }
            } connected: {
                connected()
            } finished: { response in
                guard let now = current.withLock({ $0 }) else { return .handOff }
                let end = clock.now
                let took = end - now.began
                guard let verdict = judge.judgeLone(lone, response: response, duration: took) else {
                    return .handOff
                }
                var reason: String?
                if case .failed(let why) = verdict { reason = words.reasonText(why) }
                recorder.record(
                    IterationSample.Outcome(
                        latency: end - now.due, startDelay: open ? now.began - now.due : nil, failed: reason != nil,
                        interrupted: false, counted: now.counted,
                        reason: reason.map { IterationSample.reason(step: id, $0) }),
                    lone: IterationSample.Step(
                        id: id, latency: took, failed: reason != nil, requests: 1, bytes: response.size,
                        reason: reason),
                    at: position)
                current.withLock { $0 = nil }
                ended()
                return .again
            }
            let first: Result<TransportResponse, TransportError>?
            switch end {
            case .stopped:
                guard goesOn() else { return }
                continue
            case .connectionEnded:
                continue
            case .handOff(let response):
                first = .success(response)
            case .failed(let failure):
                first = .failure(failure)
            case .unsent:
                first = nil
            case .cancelled:
                guard let now = current.withLock({ $0 }) else { return }
                recorder.record(
                    IterationSample(
                        latency: clock.now - now.due, startDelay: open ? now.began - now.due : nil, failed: false,
                        interrupted: true, counted: now.counted, reason: nil, steps: []))
                ended()
                return
            }
            guard let now = current.withLock({ $0 }), let inputs = inputs(now.ticket) else { return }
            current.withLock { $0 = nil }
            await iterate(
                now.ticket, inputs: inputs, due: now.due, began: first == nil ? nil : now.began, open: open,
                counted: now.counted, recorder: recorder, first: first)
            ended()
        }
    }

    /// The executor the `n`th iteration (open model) or user (closed) prefers, in turn; nil without any.
    private func executor(_ n: UInt64) -> (any TaskExecutor)? {
        executors.isEmpty ? nil : executors[Int(n % UInt64(executors.count))]
    }

    // MARK: One iteration

    /// Runs iteration `index` and records it. Its latency is measured from `due` (the open model's intended
    /// start) or from its start (closed).
    /// - Parameters:
    ///   - began: when the iteration began, if before now (`repeating`: its request went out then).
    ///   - first: the first hop's response or failure, when a repeater got it already (`repeating`): the
    ///     iteration goes on from it.
    private func iterate(
        _ index: UInt64, inputs: RunInputs, due: ContinuousClock.Instant, began: ContinuousClock.Instant? = nil,
        open: Bool, counted: Bool, recorder: LoadRecorder, first: Result<TransportResponse, TransportError>?? = nil
    ) async {
        let clock = ContinuousClock()
        let began = began ?? clock.now
        var settings = configuration(index)
        if let lone { settings.secrets = SecretStore(copying: lone.secrets) }
        let observer = IterationRecorder(
            loops: loops, redactor: Redactor(secrets: inputs.secrets, store: settings.secrets))
        var transport = transport(settings.secrets)
        if case .some(.some(let first)) = first, let repeating = transport as? any RepeatingTransport {
            transport = repeating.continuing(after: first, sent: began)
        }
        let executor = Executor(
            layout: layout, transport: transport, inputs: inputs, configuration: settings, observer: observer)
        let started = clock.now
        let result = if let lone { await executor.runLone(lone) } else { await executor.run() }
        let end = clock.now
        let failedStep = result.order.lazy.compactMap { result.results[$0] }.first { $0.state == .failed }
        var steps = observer.take()
        // Going on from a hop a repeater sent at `began` (a response to check further, a redirect, a failure), the
        // executor's step began only when that hop had ended: the step's latency starts when its request went out,
        // as the repeater's own steps' does, not after the network's part of it.
        if case .some(.some) = first, let lone {
            let id = lone.built.run.node.id
            for index in steps.indices where steps[index].id == id {
                steps[index].latency += started - began
            }
        }
        recorder.record(
            IterationSample(
                latency: end - (open ? due : began), startDelay: open ? began - due : nil,
                failed: result.verdict == .failed, interrupted: result.interrupted, counted: counted,
                reason: failedStep.map { step in
                    IterationSample.reason(step: step.id, step.reason.map { observer.reasonText($0) } ?? "failed")
                } ?? (result.timedOut ? "timeout: the plan timed out" : nil),
                steps: steps))
    }
}

/// The open model's lanes (`LoadRun.lane`): the iterations due that no lane has taken yet, in order, and the lanes
/// waiting for one. An iteration that comes due wakes a waiting lane, or, with none, starts a new one (at most
/// `maxConnecting` opening their connection at once).
final class OpenLanes: Sendable {
    /// An iteration due.
    struct Due: Sendable {
        var ticket: UInt64
        var due: ContinuousClock.Instant
        var counted: Bool
    }

    /// What a lane does next.
    enum Take {
        case due(Due)
        case wait
        case stop
    }

    private struct State {
        var queue: [Due] = []
        /// Where `queue` starts (taken ones are dropped in batches).
        var head = 0
        var waiting: [any RepeatWaker] = []
        var closed = false
        /// Lanes started that have no connection yet.
        var connecting = 0
    }

    /// The most lanes opening their first connection at once. Over TLS each opening is a handshake: a schedule
    /// that outran them would otherwise open a lane, and so a handshake, for every iteration due meanwhile, until
    /// the machine could finish none of them (BENCHMARKS.md, "Over TLS"). The iterations due meanwhile wait in the
    /// queue, and their latency is still measured from when they were due.
    static let maxConnecting = 64

    /// The repeater every lane runs.
    let repeater: any RequestRepeater
    private let state = Mutex(State())

    init(_ repeater: any RequestRepeater) { self.repeater = repeater }

    /// Whether an iteration is due that no lane has taken.
    var hasDue: Bool { state.withLock { $0.head < $0.queue.count } }

    /// The next iteration due for a lane; else the lane waits for `waker`, or stops once no more come.
    func take(_ waker: any RepeatWaker) -> Take {
        state.withLock { state in
            if state.head < state.queue.count {
                let due = state.queue[state.head]
                state.head += 1
                if state.head == state.queue.count {
                    state.queue.removeAll(keepingCapacity: true)
                    state.head = 0
                }
                return .due(due)
            }
            if state.closed { return .stop }
            state.waiting.append(waker)
            return .wait
        }
    }

    /// Queues `due` and wakes a waiting lane. - Returns: whether a new lane must be started: none was waiting,
    /// and fewer than `maxConnecting` are opening their connection (each takes what is due once it has it, and
    /// calls `connected` then, or when it ends without one).
    func offer(_ due: Due) -> Bool {
        state.withLock { $0.queue.append(due) }
        while let waker = state.withLock({ $0.waiting.popLast() }) {
            if waker.wake() { return false }
        }
        return state.withLock { state in
            guard state.connecting < Self.maxConnecting else { return false }
            state.connecting += 1
            return true
        }
    }

    /// A lane `offer` started has its connection, or ended without one.
    func connected() {
        state.withLock { $0.connecting -= 1 }
    }

    /// No more iterations come: the waiting lanes take what is due, then stop, as the others do.
    func close() {
        let waiting = state.withLock { state in
            state.closed = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for waker in waiting { _ = waker.wake() }
    }

    /// The iterations due that no lane took: none once the lanes ended, unless they were cancelled.
    func untaken() -> [Due] {
        state.withLock { Array($0.queue[$0.head...]) }
    }
}

/// The state the parts of a load share: iterations in flight, whether it was stopped, when the schedule
/// ended.
private final class LoadState: Sendable {
    private let running = Atomic<Int>(0)
    private let stopFlag = Atomic<Bool>(false)
    private let end = Mutex<ContinuousClock.Instant?>(nil)

    var inFlight: Int { running.load(ordering: .relaxed) }
    var stopped: Bool { stopFlag.load(ordering: .relaxed) }
    var scheduleEnded: ContinuousClock.Instant? { end.withLock { $0 } }

    func began() { running.add(1, ordering: .relaxed) }
    func ended() { running.subtract(1, ordering: .relaxed) }
    func stop() { stopFlag.store(true, ordering: .relaxed) }
    func endSchedule() { end.withLock { $0 = ContinuousClock.now } }
}

/// The closed model's users: the iteration tickets they take, how many are wanted, which are running, and
/// whether the load is ending.
private final class UserPool: Sendable {
    private let tickets = Atomic<UInt64>(0)
    private let wantedCount = Atomic<Int>(0)
    private let running = Mutex<Set<Int>>([])
    private let endFlag = Atomic<Bool>(false)

    var wanted: Int { wantedCount.load(ordering: .relaxed) }
    var ending: Bool { endFlag.load(ordering: .relaxed) }

    func takeTicket() -> UInt64 { tickets.add(1, ordering: .relaxed).oldValue }
    func want(_ count: Int) { wantedCount.store(count, ordering: .relaxed) }
    func end() { endFlag.store(true, ordering: .relaxed) }
    /// Marks user `slot` running; `false` if it already is.
    func join(_ slot: Int) -> Bool { running.withLock { $0.insert(slot).inserted } }
    func leave(_ slot: Int) { _ = running.withLock { $0.remove(slot) } }
}
