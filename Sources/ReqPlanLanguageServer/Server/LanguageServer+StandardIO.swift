import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension LanguageServer {
    /// Serves the client on standard input and output (how editors start a language server), until `exit`
    /// or the end of standard input. Standard error is the server's log.
    /// - Returns: the exit status for the process (LSP 3.17: 0 after `shutdown`, 1 otherwise).
    public static func runOnStandardIO(configuration: LanguageServerConfiguration) async -> Int32 {
        let output = Mutex(())
        let server = LanguageServer(configuration: configuration) { frame in
            output.withLock { _ in writeAll(frame, to: STDOUT_FILENO) }
        }
        return await server.run(input: readChunks(of: STDIN_FILENO))
    }

    /// The bytes of `descriptor` as they come, read on a thread of their own: a blocking read never holds a
    /// thread of Swift's concurrency pool.
    static func readChunks(of descriptor: Int32) -> AsyncStream<[UInt8]> {
        let (chunks, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                continuation.yield(Array(buffer[0..<count]))
            }
            continuation.finish()
        }
        thread.start()
        return chunks
    }

    /// Writes all of `bytes` to `descriptor` (a short write is continued; an error drops the rest: the
    /// client is gone).
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, let base = raw.baseAddress {
                let written = write(descriptor, base + offset, raw.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
