import Synchronization

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
