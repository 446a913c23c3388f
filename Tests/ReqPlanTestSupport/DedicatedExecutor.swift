import Dispatch

/// A task executor on a serial dispatch queue of its own, off Swift concurrency's cooperative pool: an
/// in-process server a test talks to (the language server) runs on it, so that it answers however long other
/// tests block the pool's threads (as many as cores: two on CI) with synchronous work. Without it, a busy run
/// of the whole suite once left the language server unanswered for a minute (`initialize` timed out).
public final class DedicatedExecutor: TaskExecutor, @unchecked Sendable {
    // `@unchecked`: the queue is the only state, and dispatch queues are thread-safe.
    private let queue: DispatchQueue

    /// An executor on a new serial queue named `label`.
    public init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
