import Foundation
import ReqPlanLanguageServer
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Synchronization

/// A client of an in-process `LanguageServer`: sends it framed messages and keeps what it sends back.
final class TestClient: Sendable {
    /// The messages received, shared with the server's writer.
    private final class Inbox: Sendable {
        let messages = Mutex<[Value]>([])
        /// The server's exit status, once it has ended.
        let status = Mutex<Int32?>(nil)
    }

    private let inbox = Inbox()
    /// Where the server runs: a queue of its own, off the cooperative pool (`DedicatedExecutor`).
    private let executor = DedicatedExecutor(label: "language-server-under-test")
    private let input: AsyncStream<[UInt8]>.Continuation

    /// Starts a server checking documents `checkDelay` after their last change.
    /// - Parameter makeLibrary: a library for each check, given the open documents' text (default: one that
    ///   reads no API description).
    init(
        checkDelay: Duration = .milliseconds(20),
        makeLibrary: @escaping @Sendable (_ unsavedText: @escaping @Sendable (String) -> String?) -> PlanLibrary = {
            PlanLibrary(unsavedText: $0)
        }
    ) {
        let (stream, input) = AsyncStream.makeStream(of: [UInt8].self)
        self.input = input
        let framer = Mutex(MessageFramer())
        let inbox = self.inbox
        let configuration = LanguageServerConfiguration(
            version: "test", checkDelay: checkDelay, makeLibrary: makeLibrary)
        let server = LanguageServer(configuration: configuration) { frame in
            framer.withLock { framer in
                framer.append(frame)
                while case .message(let content)? = framer.next() {
                    if let value = try? Value.parseJSON(bytes: content) { inbox.messages.withLock { $0.append(value) } }
                }
            }
        }
        // Unstructured: the server runs for the whole test, beside it; `end()` and `exit()` wait for it. On a
        // queue of its own, so that it answers while other tests block the cooperative pool's threads.
        Task(executorPreference: executor) {
            let status = await server.run(input: stream)
            inbox.status.withLock { $0 = status }
        }
    }

    /// Sends bytes as they are (a frame, part of one, or several).
    func sendBytes(_ bytes: [UInt8]) { input.yield(bytes) }

    /// The frame of a message.
    static func frame(_ message: Value) -> [UInt8] { MessageFramer.frame(Array(message.jsonText().utf8)) }

    /// A request's JSON.
    static func request(_ id: Int, _ method: String, _ params: Value = .object([])) -> Value {
        .object([
            .init("jsonrpc", .string("2.0")), .init("id", .int(id)), .init("method", .string(method)),
            .init("params", params),
        ])
    }

    /// A notification's JSON.
    static func notification(_ method: String, _ params: Value = .object([])) -> Value {
        .object([.init("jsonrpc", .string("2.0")), .init("method", .string(method)), .init("params", params)])
    }

    /// Sends a request and waits for its response.
    func request(_ id: Int, _ method: String, _ params: Value = .object([])) async -> Value? {
        sendBytes(Self.frame(Self.request(id, method, params)))
        return await response(to: id)
    }

    /// Sends a notification.
    func notify(_ method: String, _ params: Value = .object([])) {
        sendBytes(Self.frame(Self.notification(method, params)))
    }

    /// Initializes the session, with or without related information for diagnostics, with or without
    /// watching files for the server, and with `trace` when given (`off`, `messages`, `verbose`).
    func initialize(relatedInformation: Bool = true, watchesFiles: Bool = false, trace: String? = nil) async
        -> Value?
    {
        let capabilities: Value = .object([
            .init(
                "textDocument",
                .object([
                    .init("publishDiagnostics", .object([.init("relatedInformation", .bool(relatedInformation))]))
                ])),
            .init(
                "workspace",
                .object([
                    .init("didChangeWatchedFiles", .object([.init("dynamicRegistration", .bool(watchesFiles))]))
                ])),
        ])
        let result = await request(
            0, "initialize",
            .object([.init("capabilities", capabilities)] + (trace.map { [.init("trace", .string($0))] } ?? [])))
        notify("initialized")
        return result
    }

    /// A client of a server it initialized, with `text` open as `uri` (version 1).
    static func opening(_ uri: String, _ text: String) async -> TestClient {
        let client = TestClient()
        _ = await client.initialize()
        client.notify("textDocument/didOpen", .document(uri, version: 1, text: text))
        return client
    }

    /// The response to request `id`.
    func response(to id: Int) async -> Value? {
        await first { $0["id"] == .int(id) && $0["method"] == nil }
    }

    /// The next diagnostics published for `uri` after the `skipping` first ones, when `accept` takes them.
    func diagnostics(of uri: String, where accept: @escaping ([Value]) -> Bool = { _ in true }) async -> [Value]? {
        let message = await first { message in
            guard message["method"] == .string("textDocument/publishDiagnostics"),
                message["params"]?["uri"] == .string(uri), case .list(let list)? = message["params"]?["diagnostics"]
            else { return false }
            return accept(list)
        }
        guard case .list(let list)? = message?["params"]?["diagnostics"] else { return nil }
        return list
    }

    /// The first message received that `matches`, looking 12,000 times 5 ms apart (a minute on a quiet machine).
    /// The patience is counted in looks, not wall time: on a busy machine a starved test task wakes late, and
    /// a wall-time deadline would pass while it slept, with the answer already in.
    func first(_ matches: @escaping (Value) -> Bool) async -> Value? {
        for _ in 0..<Self.looks {
            if let found = inbox.messages.withLock({ $0.first(where: matches) }) { return found }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return inbox.messages.withLock { $0.first(where: matches) }
    }

    /// How many times `first` and `status` look before giving up.
    private static let looks = 12_000

    /// Everything received so far.
    var messages: [Value] { inbox.messages.withLock { $0 } }

    /// Ends the input and returns the server's exit status (`nil` if it has not ended 60 s later).
    func end() async -> Int32? {
        input.finish()
        return await status()
    }

    /// The exit status after `exit` (the input left open; `nil` if the server has not ended 60 s later, when
    /// the input is ended so it stops).
    func exit() async -> Int32? {
        notify("exit")
        return await status()
    }

    /// The server's exit status once it has ended, looking as `first` does (a stuck server fails the test, not
    /// hangs it).
    private func status() async -> Int32? {
        for _ in 0..<Self.looks {
            if let status = inbox.status.withLock({ $0 }) { return status }
            try? await Task.sleep(for: .milliseconds(5))
        }
        if let status = inbox.status.withLock({ $0 }) { return status }
        input.finish()
        return nil
    }
}

extension Value {
    /// A `textDocument` parameter naming `uri`.
    static func document(_ uri: String, version: Int? = nil, text: String? = nil) -> Value {
        var fields: [Value.Field] = [.init("uri", .string(uri))]
        if let version { fields.append(.init("version", .int(version))) }
        if let text {
            fields.append(.init("languageId", .string("yaml")))
            fields.append(.init("text", .string(text)))
        }
        return .object([.init("textDocument", .object(fields))])
    }

    /// `textDocument/didChange`'s parameters: `uri` at `version` is now `text`, whole.
    static func change(_ uri: String, version: Int, text: String) -> Value {
        .object([
            .init("textDocument", .object([.init("uri", .string(uri)), .init("version", .int(version))])),
            .init("contentChanges", .list([.object([.init("text", .string(text))])])),
        ])
    }

    /// The text of a string, `""` for anything else.
    var text: String {
        if case .string(let text) = self { return text }
        return ""
    }
}
