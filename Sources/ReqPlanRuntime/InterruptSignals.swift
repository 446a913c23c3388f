import Dispatch
import Foundation

/// Turns SIGINT and SIGTERM into cancellation of a running task.
public enum InterruptSignals {
    /// Runs `body`; if SIGINT or SIGTERM arrives first, cancels it and still returns its result.
    public static func cancellingOnSignal<Result: Sendable>(_ body: @escaping @Sendable () async -> Result) async
        -> Result
    {
        // An unstructured task, because a signal handler must be able to cancel it from
        // outside; it is awaited below before returning, so nothing outlives this call,
        // and cancelling the caller cancels it too.
        let task = Task { await body() }
        let sources = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { task.cancel() }
            source.resume()
            return source
        }
        defer {
            for source in sources { source.cancel() }
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
