import Dispatch
import Foundation
import ReqPlanPresentation
import ReqPlanRuntime
import ReqPlanSyntax
import Synchronization

/// Turns SIGINT and SIGTERM into cancellation of the run.
///
/// `reqplan run` calls `monitor()` first thing, so from then on a signal is never the default action
/// (the process dying mid-way): one that arrives while the plan is still being read makes the run
/// start cancelled (nothing is sent), or ends the wait when a file the user named is a pipe or a FIFO
/// whose writer has not finished (`FileReader.endWaits(when:)`); one during the run cancels it, and one
/// while the summary and reports are written lets them finish. In every case the run ends with exit
/// status 130.
///
/// Signal handling is the command line's: the runtime and the `ReqPlan` library never change how the
/// host process handles a signal.
enum InterruptSignals {
    private struct State {
        var monitoring = false
        var interrupted = false
        /// Cancels the run in progress, if one is.
        var cancelRun: (@Sendable () -> Void)?
        /// Kept for the life of the process once monitoring starts.
        var sources: [any DispatchSourceSignal] = []
        /// Told of the first signal, once it is recorded (the CLI prints a notice).
        var onFirstSignal: (@Sendable (Int32) -> Void)?
    }

    private static let state = Mutex(State())

    /// Whether SIGINT or SIGTERM has arrived since `monitor()`.
    static var interrupted: Bool { state.withLock { $0.interrupted } }

    /// The exit status of a command whose plan could not be prepared: 130 when a signal came first (it may
    /// have ended the wait for a pipe the user named, which the diagnostics then report), 2 otherwise.
    static var unpreparedExitCode: Int32 {
        interrupted ? RunVerdict.interrupted.exitCode : RunVerdict.invalid.exitCode
    }

    /// From now on SIGINT and SIGTERM are recorded (and cancel the run in progress) instead of
    /// ending the process. Call once, early, from the main task; later calls do nothing.
    ///
    /// Returns once both signal sources are registered, so a signal sent after it returns is
    /// never lost. On Linux, libdispatch registers a signal source asynchronously on its manager
    /// thread, installing its own handler only then (its `signalfd` needs the signal blocked or
    /// re-raised); a signal that came between a `SIG_IGN` set here and that registration was
    /// discarded, so an interrupt while the plan was read could be missed and the run went on
    /// (`RunCommandTests.signalBeforeTheRunStartsSendsNothingAndExits130` under load). So Linux
    /// keeps the default action until the registration replaces it: a signal in the first
    /// moments ends the process, as in any program that has not started yet. Darwin's kqueue
    /// sees a signal whatever its action, and needs `SIG_IGN` for the default not to apply.
    /// - Parameter onFirstSignal: called with the first signal's number once it is recorded
    ///   (`interrupted` is then true), e.g. to tell the user the run is stopping.
    static func monitor(onFirstSignal: (@Sendable (Int32) -> Void)? = nil) async {
        let sources = state.withLock { state -> [any DispatchSourceSignal] in
            guard !state.monitoring else { return [] }
            state.monitoring = true
            // A signal no longer ends the process, so it ends a wait for a pipe or a FIFO the user named
            // (`reqplan run <(slow command)`, a FIFO whose writer never comes): the reader gives up within 0.1 s.
            FileReader.endWaits { interrupted }
            state.onFirstSignal = onFirstSignal
            state.sources = [SIGINT, SIGTERM].map { number in
                #if canImport(Darwin)
                    signal(number, SIG_IGN)
                #endif
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { signalArrived(number) }
                return source
            }
            return state.sources
        }
        for source in sources {
            await withCheckedContinuation { (registered: CheckedContinuation<Void, Never>) in
                source.setRegistrationHandler { registered.resume() }
                source.resume()
            }
        }
    }

    private static func signalArrived(_ number: Int32) {
        let (cancel, notify) = state.withLock { state in
            let first = !state.interrupted
            state.interrupted = true
            return (state.cancelRun, first ? state.onFirstSignal : nil)
        }
        cancel?()
        notify?(number)
    }

    /// Runs `body`; if SIGINT or SIGTERM arrives first (or arrived before, while monitoring),
    /// cancels it and still returns its result. Without `monitor()`, it monitors for the
    /// duration of the call.
    /// - Parameter evenIfInterrupted: a signal that came before does not cancel `body`, only one that comes
    ///   while it runs: what a command still does once its run was stopped (`load`'s push of the figures it
    ///   has) goes ahead, and ends at the next signal.
    static func cancellingOnSignal<Result: Sendable>(
        evenIfInterrupted: Bool = false, _ body: @escaping @Sendable () async -> Result
    ) async -> Result {
        await monitor()
        // An unstructured task, because a signal handler must be able to cancel it from
        // outside; it is awaited below before returning, so nothing outlives this call,
        // and cancelling the caller cancels it too.
        let task = Task {
            // A signal that came before the run: the body starts cancelled, so nothing is sent
            // (cancelling the task from outside, below, could come after its first requests).
            if interrupted, !evenIfInterrupted { withUnsafeCurrentTask { $0?.cancel() } }
            return await body()
        }
        let alreadyInterrupted = state.withLock { state -> Bool in
            state.cancelRun = { task.cancel() }
            return state.interrupted && !evenIfInterrupted
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

/// The command line's supervisor of a run: SIGINT and SIGTERM cancel it (`InterruptSignals`).
struct SignalSupervisor: RunSupervisor {
    func supervise<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) async -> Value {
        await InterruptSignals.cancellingOnSignal(body)
    }
}
