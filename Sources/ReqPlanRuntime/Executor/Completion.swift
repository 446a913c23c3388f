import Synchronization

/// A one-shot event carrying a step's result: fired once when the step ends,
/// awaited by every step that depends on it. Waiters hold no thread and no
/// concurrency slot, and a cancelled waiter stops waiting at once.
final class Completion: Sendable {
    private struct State {
        /// Boxed, so the event is small and `takeResult()` frees the result's storage.
        var fired: ResultBox?
        /// The latest visit's result of a control flow's member, before the flow ends.
        var latest: ResultBox?
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

    /// The result a step reading this one sees: the fired one, else the latest visit of a member of a
    /// control flow still running (`FlowControl`), which may run it again.
    var current: StepResult? { state.withLock { $0.fired?.result ?? $0.latest?.result } }

    /// Sets the result of a visit of a member of a control flow, for the flow's other members to read
    /// before the event fires.
    func setLatest(_ result: StepResult) {
        state.withLock { $0.latest = ResultBox(result) }
    }

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
