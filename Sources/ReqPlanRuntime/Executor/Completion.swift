import Synchronization

/// A one-shot event carrying a step's result: fired once when the step ends,
/// awaited by every step that depends on it. Waiters hold no thread and no
/// concurrency slot, and a cancelled waiter stops waiting at once.
final class Completion: Sendable {
    private struct State {
        /// Boxed, so the event is small and `takeResult()` frees the result's storage.
        var fired: ResultBox?
        var waiters: [Int: CheckedContinuation<StepResult?, Never>] = [:]
        var callbacks: [@Sendable (StepResult) -> Void] = []
        var nextID = 0
    }

    private let state = Mutex(State())

    /// Fires the event; later calls are ignored.
    func fire(_ result: StepResult) {
        let (waiters, callbacks) = state.withLock { state in
            guard state.fired == nil else {
                return ([CheckedContinuation<StepResult?, Never>](), [@Sendable (StepResult) -> Void]())
            }
            state.fired = ResultBox(result)
            let waiting = Array(state.waiters.values)
            let callbacks = state.callbacks
            state.waiters = [:]
            state.callbacks = []
            return (waiting, callbacks)
        }
        for waiter in waiters { waiter.resume(returning: result) }
        for callback in callbacks { callback(result) }
    }

    /// Calls `action` when the event fires (at once if it has fired already).
    func whenFired(_ action: @escaping @Sendable (StepResult) -> Void) {
        let fired = state.withLock { state -> StepResult? in
            if let fired = state.fired { return fired.result }
            state.callbacks.append(action)
            return nil
        }
        if let fired { action(fired) }
    }

    /// The result if the event has fired.
    var result: StepResult? { state.withLock { $0.fired?.result } }

    /// Moves the result out, once the run is over and nothing waits or reads any more (the
    /// event stays fired, with a shared placeholder result), so it is not held twice.
    func takeResult() -> StepResult? {
        state.withLock { state in
            guard let result = state.fired?.result else { return nil }
            state.fired = ResultBox.moved
            return result
        }
    }

    /// Waits for the event; returns `nil` if the waiting task is cancelled first.
    func wait() async -> StepResult? {
        if let result = state.withLock({ $0.fired?.result }) { return result }
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<StepResult?, Never>) in
                let immediate: StepResult?? = state.withLock { state in
                    if let fired = state.fired { return .some(fired.result) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }
}

/// A step's result on the heap.
final class ResultBox: Sendable {
    let result: StepResult
    init(_ result: StepResult) { self.result = result }

    /// What a completion holds once its result has been moved out.
    static let moved = ResultBox(
        StepResult(
            id: "", state: .cancelled, reason: StepReason(.cancelled, "the result was moved to the run's results")))
}

/// A counting semaphore for concurrency limits: FIFO, cancellation-aware.
final class AsyncLimiter: Sendable {
    private struct State {
        var available: Int
        var waiters: [(id: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID = 0
        var inFlight = 0
        var peak = 0
    }

    /// The limit.
    let limit: Int
    private let state: Mutex<State>

    init(limit: Int) {
        self.limit = limit
        self.state = Mutex(State(available: limit))
    }

    /// The most slots ever held at once.
    var peak: Int { state.withLock { $0.peak } }

    /// Takes a slot, waiting if none is free. Returns `false` if cancelled while waiting.
    func acquire() async -> Bool {
        let id: Int? = state.withLock { state in
            if state.available > 0 && state.waiters.isEmpty {
                state.available -= 1
                state.inFlight += 1
                state.peak = max(state.peak, state.inFlight)
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let cancelled = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    state.waiters.append((id, continuation))
                    return false
                }
                if cancelled { continuation.resume(returning: false) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: false)
        }
    }

    /// Gives a slot back, handing it to the longest waiter if any.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.inFlight -= 1
            if state.waiters.isEmpty {
                state.available += 1
                return nil
            }
            state.inFlight += 1
            state.peak = max(state.peak, state.inFlight)
            return state.waiters.removeFirst().continuation
        }
        next?.resume(returning: true)
    }
}

/// How many dependencies each member of a scope still waits for.
final class ReadinessCounters: Sendable {
    private let counts: Mutex<[Int]>

    init(_ counts: [Int]) {
        self.counts = Mutex(counts)
    }

    /// Counts one dependency of member `position` as ended; returns how many remain.
    func decrement(_ position: Int) -> Int {
        counts.withLock { counts in
            counts[position] -= 1
            return counts[position]
        }
    }
}

/// Why a scope was cancelled, set before its tasks are cancelled so that each
/// cancelled step can say why.
final class CancellationReason: Sendable {
    private let reason = Mutex<StepReason?>(nil)

    /// Records the first reason only.
    func set(_ value: StepReason) {
        reason.withLock { if $0 == nil { $0 = value } }
    }

    var value: StepReason? { reason.withLock { $0 } }
}

/// The bookkeeping of one run of a scope's members, shared by the scope's loop and its
/// member tasks: which members are ready, which have been claimed by a task, how many ended.
final class ScopeRun: Sendable {
    /// A FIFO queue of positions, popped from the front in O(1).
    private struct Queue {
        var items: [Int] = []
        var head = 0
        mutating func push(_ item: Int) { items.append(item) }
        mutating func pop(skipping claimed: [Bool]) -> Int? {
            while head < items.count {
                let item = items[head]
                head += 1
                if !claimed[item] { return item }
            }
            return nil
        }
        func hasAny(skipping claimed: [Bool]) -> Bool {
            items[head...].contains { !claimed[$0] }
        }
    }

    private struct State {
        var claimed: [Bool]
        var requests = Queue()
        var others = Queue()
        var finished = 0
        var activeRequestTasks = 0
    }

    private let state: Mutex<State>
    private let isRequest: [Bool]
    private let cap: Int

    init(isRequest: [Bool], cap: Int) {
        self.isRequest = isRequest
        self.cap = max(1, cap)
        self.state = Mutex(State(claimed: [Bool](repeating: false, count: isRequest.count)))
    }

    func markReady(_ position: Int) {
        state.withLock { state in
            if isRequest[position] { state.requests.push(position) } else { state.others.push(position) }
        }
    }

    /// Whether a ready member waits for a task (the loop may start one for it now).
    var hasReady: Bool {
        state.withLock { state in
            state.others.hasAny(skipping: state.claimed)
                || (state.activeRequestTasks < cap && state.requests.hasAny(skipping: state.claimed))
        }
    }

    /// A ready request for the calling member task to run next (never a group or loop).
    func claimInline() -> Int? {
        state.withLock { state in
            guard let position = state.requests.pop(skipping: state.claimed) else { return nil }
            state.claimed[position] = true
            return position
        }
    }

    /// A ready member to start a new task for, respecting the cap on request tasks.
    func claimForTask() -> Int? {
        state.withLock { state in
            if let position = state.others.pop(skipping: state.claimed) {
                state.claimed[position] = true
                return position
            }
            guard state.activeRequestTasks < cap, let position = state.requests.pop(skipping: state.claimed) else {
                return nil
            }
            state.claimed[position] = true
            state.activeRequestTasks += 1
            return position
        }
    }

    /// A member task ends; `runningRequest` says whether it counted against the cap.
    func endTask(runningRequest: Bool) {
        if runningRequest { state.withLock { $0.activeRequestTasks -= 1 } }
    }

    /// Counts one member as ended; returns whether all have.
    func finishOne() -> Bool {
        state.withLock { state in
            state.finished += 1
            return state.finished == state.claimed.count
        }
    }

    func wasClaimed(_ position: Int) -> Bool {
        state.withLock { $0.claimed[position] }
    }
}
