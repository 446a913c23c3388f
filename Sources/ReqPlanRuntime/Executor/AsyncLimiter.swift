import Synchronization

/// A counting semaphore for concurrency limits: FIFO, cancellation-aware.
final class AsyncLimiter: Sendable {
    private struct State {
        var available: Int
        var waiters: [(id: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID = 0
        var inFlight = 0
        var peak = 0

        /// Takes a slot when one is free and nobody waits for it.
        mutating func takeFree() -> Bool {
            guard available > 0 && waiters.isEmpty else { return false }
            available -= 1
            inFlight += 1
            peak = max(peak, inFlight)
            return true
        }
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

    /// Takes a slot if one is free and nobody waits for it, without waiting.
    func tryAcquire() -> Bool { state.withLock { $0.takeFree() } }

    /// Takes a slot, waiting if none is free. Returns `false` if cancelled while waiting.
    func acquire() async -> Bool {
        let id: Int? = state.withLock { state in
            if state.takeFree() { return nil }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer = state.withLock { state -> Bool? in
                    if Task.isCancelled { return false }
                    // A slot given back since the check above found no waiter to hand it to: taken
                    // here, or this task would wait for a release that may never come.
                    if state.takeFree() { return true }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: false)
        }
    }

    /// Takes a slot, waiting until `deadline` at most (none: as `acquire()`). Returns `false` if the deadline
    /// came first or the task was cancelled.
    func acquire(by deadline: ContinuousClock.Instant?) async -> Bool {
        guard let deadline else { return await acquire() }
        return await withTaskGroup(of: Bool?.self) { group in
            group.addTask { await self.acquire() }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            if let first { return first }
            // The deadline came first: the wait is cancelled, and a slot it got meanwhile is given back.
            if await group.next() == true { release() }
            return false
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
