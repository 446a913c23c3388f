import NIOCore

/// A SwiftNIO event loop as a Swift task executor, for `reqplan load`: a task that prefers it
/// (`withTaskExecutorPreference`, `addTask(executorPreference:)`) runs on the loop's thread, and so do
/// its exchanges when their connections live on that loop (`ReqPlanClient` opens a connection on the
/// loop it is asked from, and leases an idle one from there first). A request then goes out, and its
/// response wakes the task, with no hop between threads: no `eventfd` write to wake the loop, no futex
/// to wake a pool thread, and the connection's buffers stay in one core's cache.
///
/// NIO's loops are serial executors already (`NIOSerialEventLoopExecutor`); a task executor is what lets
/// nonisolated code, the executor's and the client's, stay on one.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
