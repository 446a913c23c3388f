import Foundation

/// The process's limit on open files (`ulimit -n`), by which connection pools are sized: every connection is
/// a file, and a run that opens more than the limit allows sees requests fail with "too many open files"
/// where they could have waited for a connection.
///
/// Read, never changed: the `reqplan` command raises its soft limit to the hard one when it starts (process
/// limits are the host program's, as signals are).
package enum OpenFiles {
    /// Files a run holds besides its connections: standard streams, the event loops' and libdispatch's
    /// descriptors (16 in a run of one connection, measured with `/proc/PID/fd`), and room for the files a
    /// run opens (reports, request bodies, the cookie jar, sub-plans).
    package static let reserved = 32

    /// `RLIMIT_NOFILE` as `getrlimit` and `setrlimit` take it here (Glibc imports it as an enum case).
    #if canImport(Glibc)
        package static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        package static let resource = RLIMIT_NOFILE
    #endif

    /// The soft limit now; nil when there is none (`RLIM_INFINITY`, all ones) or it cannot be read.
    package static var limit: Int? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// How many connections the limit leaves room for, at least one; nil when there is no limit.
    package static var connectionBudget: Int? {
        limit.map { max(1, $0 - reserved) }
    }
}
