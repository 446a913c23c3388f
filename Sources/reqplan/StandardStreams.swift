import Foundation
import ReqPlanRuntime
import ReqPlanSyntax
import Synchronization

/// Standard output and standard error, every write checked: everything reqplan prints goes through
/// `write(_:to:)`, or `writeBatched(_:to:)` for text that may wait a moment.
///
/// Batched text (the line per finished step of `--progress lines`) is held and written with the next
/// write to the same stream, at `flush(_:)` (the run's display calls it ten times a second), once 64 KiB
/// are held, or at `exit(_:)`. So what a stream shows stays in the order it was written, and a plan of
/// 2,000 steps makes a few dozen writes instead of 2,000: each write to a pipe wakes the program reading
/// it (a CI runner, `tee`), which cost a 2,000-step run a third of its time (BENCHMARKS.md, issue 20).
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

    /// Each stream's first failure (its `errno`) and the batched text it holds.
    private struct Streams {
        var failed: (output: Int32?, error: Int32?)
        var held: (output: [UInt8], error: [UInt8]) = ([], [])

        subscript(failure stream: Stream) -> Int32? {
            get { stream == .output ? failed.output : failed.error }
            set { if stream == .output { failed.output = newValue } else { failed.error = newValue } }
        }

        subscript(held stream: Stream) -> [UInt8] {
            get { stream == .output ? held.output : held.error }
            set { if stream == .output { held.output = newValue } else { held.error = newValue } }
        }

        /// Writes what `stream` holds and then `bytes`, in one write; after a failure the stream takes
        /// nothing more.
        mutating func write(_ bytes: some Collection<UInt8>, to stream: Stream) {
            var out = self[held: stream]
            self[held: stream] = []
            out.append(contentsOf: bytes)
            guard self[failure: stream] == nil, !out.isEmpty else { return }
            self[failure: stream] = OutputFile.writeAll(out, to: stream.descriptor)
        }
    }

    /// Most batched text a stream holds before it is written.
    private static let batchLimit = 64 << 10

    /// Held while writing, so lines written from several tasks do not interleave.
    private static let streams = Mutex(Streams(failed: (nil, nil)))

    /// From now on a closed pipe fails a write (EPIPE) instead of killing the process, until `exit`.
    static func monitor() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Writes what `stream` holds and then `text`, whole; after a failure the stream takes nothing more.
    /// Whatever `text` holds, only reqplan's own escape sequences reach the terminal or the log
    /// (`VisibleText.keepingOwnEscapes`).
    static func write(_ text: String, to stream: Stream) {
        let safe = VisibleText.keepingOwnEscapes(text)
        streams.withLock { $0.write(safe.utf8, to: stream) }
    }

    /// Holds `text` for `stream`, to be written with what follows (see the type).
    static func writeBatched(_ text: String, to stream: Stream) {
        let safe = VisibleText.keepingOwnEscapes(text)
        streams.withLock { streams in
            streams[held: stream].append(contentsOf: safe.utf8)
            if streams[held: stream].count >= batchLimit { streams.write(EmptyCollection(), to: stream) }
        }
    }

    /// Writes what `stream` holds.
    static func flush(_ stream: Stream) {
        streams.withLock { $0.write(EmptyCollection(), to: stream) }
    }

    /// Ends the process with `status`, settled with the streams' failures (see the type).
    static func exit(_ status: Int32) -> Never {
        let ended = streams.withLock { streams in
            streams.write(EmptyCollection(), to: .output)
            streams.write(EmptyCollection(), to: .error)
            return streams
        }
        var status = status
        for stream in [Stream.output, .error] {
            guard let code = ended[failure: stream], code != EPIPE else { continue }
            if status == 0 { status = outputFailed }
            if stream == .output {
                write("reqplan: cannot write to \(stream.name): \(OutputFile.words(for: code))\n", to: .error)
            }
        }
        if ended[failure: .output] == EPIPE || ended[failure: .error] == EPIPE {
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
        }
        Foundation.exit(status)
    }
}
