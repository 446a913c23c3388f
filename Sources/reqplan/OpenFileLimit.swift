import ArgumentParser
import Foundation
import ReqPlanPresentation
import ReqPlanRuntime
import ReqPlanTransport

/// Raises the process's soft limit on open files to its hard limit, as Go programs and nginx's
/// `worker_rlimit_nofile` do: every connection a run holds is a file, and the soft limit is often far
/// below what a plan's concurrency asks for (1,024 on most Linux systems, 256 on macOS), while the hard
/// limit usually is not. Left as it was, a `for_each` of 300 requests at concurrency 100 under a soft
/// limit of 64 saw 201 of them fail with "too many open files", though nothing stopped reqplan from
/// having the files.
///
/// Process limits are the command line's, as signals are (`InterruptSignals`): the runtime and the `ReqPlan`
/// library never change the host process's limits. reqplan starts no programs, so none inherits the higher
/// limit. When the hard limit is the bound, a connection that cannot be opened says so and names the limit
/// (`TransportError.tooManyOpenFiles`).
enum OpenFileLimit {
    /// Raises the soft limit to the hard limit (on Darwin at most `OPEN_MAX`, 10,240, above which it refuses a
    /// soft limit even where the hard limit is unlimited); never lowers it. A failure leaves the limit as it
    /// was (the run then meets it as before).
    static func raise() {
        var limit = rlimit()
        guard getrlimit(OpenFiles.resource, &limit) == 0 else { return }
        #if canImport(Darwin)
            let wanted = min(limit.rlim_max, rlim_t(OPEN_MAX))
        #else
            let wanted = limit.rlim_max
        #endif
        guard limit.rlim_cur < wanted else { return }
        limit.rlim_cur = wanted
        _ = setrlimit(OpenFiles.resource, &limit)
    }

    /// Ends a command that connects (`run`, `demo`) with exit status 2, saying why, when even the hard limit
    /// leaves no room for a connection beside the files a run holds (`OpenFiles.reserved`): the event loops
    /// would otherwise stop the process when they cannot open their own descriptors.
    static func requireRoomForConnections() throws {
        guard let limit = OpenFiles.limit, limit <= OpenFiles.reserved else { return }
        writeError(
            "error: reqplan may open only \(limit) files (the limit `ulimit -n` shows) and needs more than "
                + "\(OpenFiles.reserved) to make a connection: raise the limit\n")
        throw ExitCode(RunVerdict.invalid.exitCode)
    }
}
