import CFuzzerDriver
import Foundation
import ReqPlanLanguageServer
import ReqPlanSyntax
import Synchronization

// libFuzzer entry point: the input is what an editor sends `reqplan lsp` on its standard input. The first
// byte says how the rest arrives (in reads of 1 to 127 bytes, or in one); the rest goes, as raw bytes, through
// the server's session (`LanguageServer.run`: `MessageFramer`, JSON-RPC, the documents, completion, hover,
// definition, references, symbols, code actions, and the checks, run without delay) until the input ends.
// The session must end, and everything the server sends must be a well-framed JSON message; no input may crash
// it or hang it. Documents are checked in an empty folder of their own (sub-plans they name are not found).

/// An empty folder: documents that are not files are checked there.
let folder: String = {
    let path = NSTemporaryDirectory() + "reqplan-fuzz-lsp-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()

/// The product's limits, but for the alias-expansion budget, as the `plan` target (FUZZING.md).
let configuration = LanguageServerConfiguration(
    version: "fuzz", checkDelay: .zero, limits: ParseLimits(maxNodes: 50_000), workingFolder: folder)

/// What the server sends: read back as a client would, each message checked to be JSON.
final class Sink: Sendable {
    private let framer = Mutex(MessageFramer())

    func receive(_ frame: [UInt8]) {
        framer.withLock { framer in
            framer.append(frame)
            while let next = framer.next() {
                switch next {
                case .malformed(let reason): fatalError("the server sent a frame a client cannot read: \(reason)")
                case .message(let content):
                    if (try? Value.parseJSON(bytes: content)) == nil {
                        fatalError(
                            "the server sent a message that is not JSON: \(String(decoding: content, as: UTF8.self))")
                    }
                }
            }
            if framer.pendingByteCount != 0 { fatalError("the server sent part of a frame") }
        }
    }
}

/// One input; libFuzzer calls it.
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    guard let control = input.first else { return 0 }
    let bytes = Array(input.dropFirst())
    let chunk = control & 0x7F == 0 ? max(bytes.count, 1) : Int(control & 0x7F)
    let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
    var index = 0
    while index < bytes.count {
        continuation.yield(Array(bytes[index..<min(index + chunk, bytes.count)]))
        index += chunk
    }
    continuation.finish()

    let sink = Sink()
    let server = LanguageServer(configuration: configuration) { sink.receive($0) }
    let ended = DispatchSemaphore(value: 0)
    // Unstructured: libFuzzer calls this function synchronously, and the session is async; the input's end
    // ends it, and the semaphore waits for that (a session that never ends is a hang libFuzzer reports).
    Task {
        _ = await server.run(input: stream)
        ended.signal()
    }
    ended.wait()
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzz($0, $1) })
