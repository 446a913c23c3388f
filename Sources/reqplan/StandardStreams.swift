import Foundation
import ReqPlanRuntime
import ReqPlanSyntax
import Synchronization

/// Standard output and standard error, every write checked: everything reqplan prints goes through
/// `write(_:to:)`.
///
/// A write that fails (a full disk, a closed pipe, a terminal gone) never ends the process on the
/// spot: the stream is marked failed, what follows for it is dropped, and the command goes on to
/// write its other outputs (the reports, the cookie jar). `exit(_:)` then settles the ending:
/// - a closed pipe ends reqplan as it ends `cat` or `grep`, killed by SIGPIPE, saying nothing
///   (`reqplan validate … | head -1`; a shell's status 141). SIGPIPE is ignored until then
///   (`monitor()`), so the pipe's closing is a failed write like any other;
/// - any other failure prints one line, `reqplan: cannot write to standard output: no space left on
///   the device`, on standard error (when that still works) and makes the exit status
///   `StandardStreams.outputFailed` (74) unless the command ends with another non-zero one.
enum StandardStreams {
    /// The exit status of a command that could not write an output (standard output or error, a
    /// report, the cookie jar), unless it already ends with another non-zero status: `EX_IOERR`
    /// of sysexits.h, as the command-line errors are its `EX_USAGE` (64).
    static let outputFailed: Int32 = 74

    /// One of the two streams.
    enum Stream: Sendable {
        case output, error

        var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }
        var name: String { self == .output ? "standard output" : "standard error" }
    }

    /// The first failure of each stream: its `errno`.
    private struct Failures {
        var output: Int32?
        var error: Int32?

        subscript(stream: Stream) -> Int32? {
            get { stream == .output ? output : error }
            set { if stream == .output { output = newValue } else { error = newValue } }
        }
    }

    /// Held while writing, so lines written from several tasks do not interleave.
    private static let failures = Mutex(Failures())

    /// From now on a closed pipe fails a write (EPIPE) instead of killing the process, until `exit`.
    static func monitor() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Writes `text` to `stream` whole; after a failure the stream takes nothing more.
    static func write(_ text: String, to stream: Stream) {
        failures.withLock { failures in
            guard failures[stream] == nil else { return }
            failures[stream] = writeAll(Array(text.utf8), to: stream.descriptor)
        }
    }

    /// Whether a write to `stream` has failed.
    static func hasFailed(_ stream: Stream) -> Bool {
        failures.withLock { $0[stream] != nil }
    }

    /// Ends the process with `status`, settled with the streams' failures (see the type).
    static func exit(_ status: Int32) -> Never {
        let failed = failures.withLock { $0 }
        var status = status
        for stream in [Stream.output, .error] {
            guard let code = failed[stream], code != EPIPE else { continue }
            if status == 0 { status = outputFailed }
            if stream == .output {
                write("reqplan: cannot write to \(stream.name): \(OutputFile.words(for: code))\n", to: .error)
            }
        }
        if failed.output == EPIPE || failed.error == EPIPE {
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
        }
        Foundation.exit(status)
    }

    /// Writes every byte to `descriptor`, going on after short writes, interruptions and a full
    /// non-blocking pipe.
    /// - Returns: nil, or the `errno` of the write that failed.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if count >= 0 {
                written += count
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN:
                // A stream another program left non-blocking: wait until it takes more.
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, -1)
            case let code: return code
            }
        }
        return nil
    }
}

#if canImport(Glibc)
    private let systemWrite = Glibc.write
#elseif canImport(Darwin)
    private let systemWrite = Darwin.write
#endif
