import Dispatch
import Foundation
import Synchronization

/// Turns SIGINT and SIGTERM into cancellation of the run.
///
/// `reqplan run` calls `monitor()` first thing, so a signal is never the default action (the
/// process dying mid-way): one that arrives while the plan is still being read makes the run
/// start cancelled (nothing is sent), one during the run cancels it, and one while the summary
/// and reports are written lets them finish. In every case the run ends with exit status 130.
public enum InterruptSignals {
    private struct State {
        var monitoring = false
        var interrupted = false
        /// Cancels the run in progress, if one is.
        var cancelRun: (@Sendable () -> Void)?
        /// Kept for the life of the process once monitoring starts.
        var sources: [any DispatchSourceSignal] = []
    }

    private static let state = Mutex(State())

    /// Whether SIGINT or SIGTERM has arrived since `monitor()`.
    public static var interrupted: Bool { state.withLock { $0.interrupted } }

    /// From now on SIGINT and SIGTERM are recorded (and cancel the run in progress) instead of
    /// ending the process. Call once, early, from the main task; later calls do nothing.
    public static func monitor() {
        state.withLock { state in
            guard !state.monitoring else { return }
            state.monitoring = true
            state.sources = [SIGINT, SIGTERM].map { number in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler(handler: signalArrived)
                source.resume()
                return source
            }
        }
    }

    private static func signalArrived() {
        let cancel = state.withLock { state -> (@Sendable () -> Void)? in
            state.interrupted = true
            return state.cancelRun
        }
        cancel?()
    }

    /// Runs `body`; if SIGINT or SIGTERM arrives first (or arrived before, while monitoring),
    /// cancels it and still returns its result. Without `monitor()`, it monitors for the
    /// duration of the call.
    public static func cancellingOnSignal<Result: Sendable>(_ body: @escaping @Sendable () async -> Result) async
        -> Result
    {
        monitor()
        // An unstructured task, because a signal handler must be able to cancel it from
        // outside; it is awaited below before returning, so nothing outlives this call,
        // and cancelling the caller cancels it too.
        let task = Task { await body() }
        let alreadyInterrupted = state.withLock { state -> Bool in
            state.cancelRun = { task.cancel() }
            return state.interrupted
        }
        if alreadyInterrupted { task.cancel() }
        defer { state.withLock { $0.cancelRun = nil } }
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
