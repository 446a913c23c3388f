import Synchronization

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
