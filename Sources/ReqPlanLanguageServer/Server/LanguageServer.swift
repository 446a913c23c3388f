import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import Synchronization

/// A Language Server Protocol 3.17 server for plan files: it reads the client's messages, keeps the open
/// documents, and publishes what `reqplan validate` finds in them as the user types.
///
/// Two tasks serve a session: one reads and frames the client's messages and hands them over in order;
/// the other answers them. A third checks documents a while after their last change (`CheckScheduler`),
/// with the validator `reqplan validate` uses (`PlanValidator`): no second checker.
///
/// Nothing a client sends ends the server but `exit`: a frame or a message that cannot be read is answered
/// with an error (or, for a notification, logged on standard error) and the next one is read.
public final class LanguageServer: Sendable {
    private enum Phase {
        /// Before `initialize`.
        case waiting
        case running
        /// After `shutdown`: only `exit` is left.
        case shutDown
    }

    /// What the session knows, shared by the reading and the answering tasks.
    private struct Session {
        var phase = Phase.waiting
        /// Whether the client shows diagnostics' related information.
        var relatedInformation = false
        /// Whether the client watches files for the server when asked (`client/registerCapability`).
        var watchesFiles = false
        /// Requests read but not answered yet.
        var queued: Set<RequestID> = []
        /// Those of them the client cancelled.
        var cancelled: Set<RequestID> = []
        /// How many changes to each document have been read so far.
        var changes: [DocumentURI: Int] = [:]
    }

    /// One message read, in the order read.
    private enum Incoming: Sendable {
        /// A message, with how many changes to the document it names had been read before it.
        case message(JSONRPCMessage, changesBefore: Int)
        /// A frame or a message that could not be read.
        case unreadable(ResponseError)
    }

    private let configuration: LanguageServerConfiguration
    private let send: @Sendable ([UInt8]) -> Void
    private let session = Mutex(Session())
    private let documents = DocumentStore()
    private let scheduler: CheckScheduler
    private let publisher: DiagnosticPublisher
    /// The steps of each open document at its last reading that gave a plan (its last check, mostly), for
    /// completion: a half-written document may not read now, and reading it for each completion would cost
    /// as much as checking it.
    private let knownSteps = Mutex<[DocumentURI: [Completion.StepSummary]]>([:])
    /// The inputs, vars and sub-plans of each open document at its last reading that gave a plan, for
    /// completion inside `${{ }}`.
    private let knownNames = Mutex<[DocumentURI: ExpressionNames]>([:])
    /// What the last check of each open document that gave a plan learnt of the API descriptions it binds,
    /// for completion, hover and definition (kept for the same reason as `knownSteps`).
    private let knownAPIs = Mutex<[DocumentURI: APIKnowledge]>([:])

    /// A server that writes each framed message it sends with `write`.
    /// - Parameters:
    ///   - configuration: how documents are checked.
    ///   - write: writes the bytes of one whole frame (header and content) to the client, called by one
    ///     thread at a time.
    public init(configuration: LanguageServerConfiguration, write: @escaping @Sendable ([UInt8]) -> Void) {
        self.configuration = configuration
        let send: @Sendable ([UInt8]) -> Void = { content in write(MessageFramer.frame(content)) }
        self.send = send
        self.scheduler = CheckScheduler(delay: configuration.checkDelay)
        self.publisher = DiagnosticPublisher(send: send)
    }

    /// Serves the client whose bytes come from `input`, until `exit` or the end of the input.
    /// - Returns: the exit status: 0 after `shutdown` then `exit`, 1 otherwise (LSP 3.17, `exit`).
    public func run<Input: AsyncSequence<[UInt8], Never> & Sendable>(input: Input) async -> Int32 {
        let (queue, enqueue) = AsyncStream.makeStream(of: Incoming.self)
        return await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.read(input, into: enqueue) }
            group.addTask { await self.scheduler.run { uri in self.check(uri) } }
            var status: Int32?
            for await incoming in queue {
                status = handle(incoming)
                if status != nil { break }
            }
            group.cancelAll()
            return status ?? (session.withLock { $0.phase == .shutDown } ? 0 : 1)
        }
    }

    // MARK: Reading

    /// Frames and parses what comes from `input`, in order, noting cancellations and changes as they come
    /// (before the messages ahead of them are answered).
    private func read<Input: AsyncSequence<[UInt8], Never>>(
        _ input: Input, into queue: AsyncStream<Incoming>.Continuation
    ) async {
        var framer = MessageFramer()
        for await bytes in input {
            framer.append(bytes)
            // Every message of one read is noted before any is handed over: a cancellation read with its
            // request always finds it unanswered.
            var read: [Incoming] = []
            while let frame = framer.next() {
                switch frame {
                case .malformed(let reason):
                    read.append(.unreadable(ResponseError(.parseError, "unreadable message: \(reason)")))
                case .message(let content):
                    do {
                        let message = try JSONRPCMessage.parse(content)
                        read.append(.message(message, changesBefore: note(message)))
                    } catch {
                        read.append(.unreadable(error))
                    }
                }
            }
            for incoming in read { queue.yield(incoming) }
        }
        queue.finish()
    }

    /// Notes a message as it is read: a request as queued, a cancellation of a queued request, a change.
    /// - Returns: how many changes to the document the message names were read before it.
    private func note(_ message: JSONRPCMessage) -> Int {
        session.withLock { session in
            switch message {
            case .request(let id, _, let params):
                session.queued.insert(id)
                return Self.documentURI(params).flatMap { session.changes[$0] } ?? 0
            case .notification("$/cancelRequest", let params):
                if let id = params["id"].flatMap(RequestID.init), session.queued.contains(id) {
                    session.cancelled.insert(id)
                }
            case .notification("textDocument/didChange", let params):
                if let uri = Self.documentURI(params) { session.changes[uri, default: 0] += 1 }
            default: break
            }
            return 0
        }
    }

    // MARK: Answering

    /// Answers one message.
    /// - Returns: the exit status, after `exit`.
    private func handle(_ incoming: Incoming) -> Int32? {
        switch incoming {
        case .unreadable(let error):
            send(JSONRPCMessage.response(to: error.requestID, error: error))
        case .message(.request(let id, let method, let params), let changesBefore):
            let answer: Result<Value, ResponseError>
            do {
                answer = .success(try respond(to: method, params, id: id, changesBefore: changesBefore))
            } catch {
                answer = .failure(error)
            }
            switch answer {
            case .success(let result): send(JSONRPCMessage.response(to: id, result: result))
            case .failure(let error): send(JSONRPCMessage.response(to: id, error: error))
            }
        case .message(.notification(let method, let params), _):
            if method == "exit" { return session.withLock { $0.phase == .shutDown } ? 0 : 1 }
            guard session.withLock({ $0.phase == .running }) else { return nil }
            do {
                try notice(method, params)
            } catch {
                log("\(method): \(error.message)")
            }
        case .message(.response, _):
            break
        }
        return nil
    }

    /// The result of a request.
    private func respond(to method: String, _ params: Value, id: RequestID, changesBefore: Int) throws(ResponseError)
        -> Value
    {
        let (phase, cancelled) = session.withLock { session in
            session.queued.remove(id)
            return (session.phase, session.cancelled.remove(id) != nil)
        }
        if cancelled { throw ResponseError(.requestCancelled, "the request was cancelled") }
        switch (phase, method) {
        case (.waiting, "initialize"):
            return initialize(params)
        case (.waiting, _):
            throw ResponseError(.serverNotInitialized, "the first request must be `initialize`")
        case (.shutDown, _):
            throw ResponseError(.invalidRequest, "the server is shut down: only `exit` is left")
        case (.running, "initialize"):
            throw ResponseError(.invalidRequest, "the server is initialized already")
        case (.running, "shutdown"):
            session.withLock { $0.phase = .shutDown }
            return .null
        case (.running, "textDocument/completion"):
            return try complete(params, changesBefore: changesBefore)
        case (.running, "textDocument/definition"):
            let (uri, document) = try requestedDocument(params, changesBefore: changesBefore)
            guard let position = TextPosition(params["position"]) else {
                throw ResponseError(.invalidParams, "`definition` needs a `position`")
            }
            if let (file, range) = OperationDefinition(knowledge: apiKnowledge(uri)).definition(
                at: position, in: document.text)
            {
                return .object([.init("uri", .string(file.text)), .init("range", range.value)])
            }
            return plan(of: uri, document).flatMap { PlanReferences(plan: $0).definition(at: position, uri: uri) }
                ?? .null
        case (.running, "textDocument/references"):
            let (uri, document) = try requestedDocument(params, changesBefore: changesBefore)
            guard let position = TextPosition(params["position"]) else {
                throw ResponseError(.invalidParams, "`references` needs a `position`")
            }
            let declaration = params["context"]?["includeDeclaration"] == .bool(true)
            return .list(
                plan(of: uri, document).map {
                    PlanReferences(plan: $0).referenceLocations(at: position, includeDeclaration: declaration, uri: uri)
                } ?? [])
        case (.running, "textDocument/hover"):
            let (uri, document) = try requestedDocument(params, changesBefore: changesBefore)
            guard let position = TextPosition(params["position"]) else {
                throw ResponseError(.invalidParams, "`hover` needs a `position`")
            }
            if let hover = APIHover(knowledge: apiKnowledge(uri)).hover(at: position, in: document.text) {
                return hover
            }
            return Hover(plan: plan(of: uri, document)).hover(at: position, in: document.text) ?? .null
        case (.running, "textDocument/codeAction"):
            let (_, document) = try requestedDocument(params, changesBefore: changesBefore)
            guard case .list(let diagnostics)? = params["context"]?["diagnostics"] else {
                throw ResponseError(.invalidParams, "`codeAction` needs `context.diagnostics`")
            }
            return .list(QuickFix.actions(for: diagnostics, in: document))
        case (.running, "textDocument/documentSymbol"):
            let (uri, document) = try requestedDocument(params, changesBefore: changesBefore)
            return .list(plan(of: uri, document).map { StepNavigation(plan: $0).symbols() } ?? [])
        default:
            throw ResponseError(.methodNotFound, "reqplan's language server does not implement `\(method)`")
        }
    }

    /// Answers `initialize` with the capabilities the server has (and only those).
    private func initialize(_ params: Value) -> Value {
        let related = params["capabilities"]?["textDocument"]?["publishDiagnostics"]?["relatedInformation"]
        let watches = params["capabilities"]?["workspace"]?["didChangeWatchedFiles"]?["dynamicRegistration"]
        session.withLock { session in
            session.phase = .running
            session.relatedInformation = related == .bool(true)
            session.watchesFiles = watches == .bool(true)
        }
        let sync: Value = .object([
            .init("openClose", .bool(true)),
            // Incremental: each change gives the range it replaces.
            .init("change", .int(2)),
            .init("save", .object([.init("includeText", .bool(false))])),
        ])
        let completion: Value = .object([
            .init("triggerCharacters", .list([".", "[", ","].map { Value.string($0) }))
        ])
        return .object([
            .init(
                "capabilities",
                .object([
                    .init("positionEncoding", .string("utf-16")), .init("textDocumentSync", sync),
                    .init("completionProvider", completion),
                    .init("hoverProvider", .bool(true)),
                    .init("definitionProvider", .bool(true)),
                    .init("referencesProvider", .bool(true)),
                    .init("documentSymbolProvider", .bool(true)),
                    .init(
                        "codeActionProvider",
                        .object([.init("codeActionKinds", .list([.string("quickfix")]))])),
                ])),
            .init(
                "serverInfo",
                .object([.init("name", .string("reqplan")), .init("version", .string(configuration.version))])),
        ])
    }

    /// The open document a request names, unless it changed since the request was made.
    private func requestedDocument(_ params: Value, changesBefore: Int) throws(ResponseError) -> (
        DocumentURI, TextDocument
    ) {
        guard let uri = Self.documentURI(params) else {
            throw ResponseError(.invalidParams, "the request needs a `textDocument.uri`")
        }
        if session.withLock({ ($0.changes[uri] ?? 0) > changesBefore }) {
            throw ResponseError(.contentModified, "the document changed after the request")
        }
        guard let document = documents[uri] else {
            throw ResponseError(.invalidParams, "`\(uri)` is not open")
        }
        return (uri, document)
    }

    /// The plan `document`'s text reads as now, if it reads; its steps are kept for completing it later.
    private func plan(of uri: DocumentURI, _ document: TextDocument) -> Plan? {
        let parsed = PlanParser.parse(
            SourceFile(path: uri.checkedPath(inFolder: configuration.workingFolder), text: document.text),
            limits: configuration.limits)
        if let plan = parsed.plan {
            knownSteps.withLock { $0[uri] = plan.allSteps.map(Completion.StepSummary.init) }
            // The sub-plans' texts of the last check are kept.
            knownNames.withLock {
                $0[uri] = ExpressionNames(plan: plan, sources: Array(($0[uri]?.sources ?? [:]).values))
            }
        }
        return parsed.plan
    }

    /// What the last check of `uri` learnt of the APIs its plan binds (nothing before its first check).
    private func apiKnowledge(_ uri: DocumentURI) -> APIKnowledge {
        knownAPIs.withLock { $0[uri] } ?? APIKnowledge()
    }

    /// Answers `textDocument/completion`, unless the document changed since the request was made.
    private func complete(_ params: Value, changesBefore: Int) throws(ResponseError) -> Value {
        let (uri, document) = try requestedDocument(params, changesBefore: changesBefore)
        guard let position = TextPosition(params["position"]) else {
            throw ResponseError(.invalidParams, "completion needs a `position`")
        }
        if let list = APICompletion(knowledge: apiKnowledge(uri)).list(at: position, in: document.text) {
            return .object([.init("isIncomplete", .bool(list.isIncomplete)), .init("items", .list(list.items))])
        }
        // The steps of the last check (a change since is checked a moment later: reading the plan again for
        // each completion would cost as much as the check); else of the plan as it reads now; else the ids
        // its text shows.
        let steps =
            knownSteps.withLock { $0[uri] }
            ?? plan(of: uri, document).map { $0.allSteps.map(Completion.StepSummary.init) }
            ?? CompletionContext.stepIDs(in: document.text).map { Completion.StepSummary(id: $0) }
        var completion = Completion(steps: steps)
        completion.names = knownNames.withLock { $0[uri] } ?? ExpressionNames()
        let list = completion.list(at: position, in: document.text)
        return .object([.init("isIncomplete", .bool(list.isIncomplete)), .init("items", .list(list.items))])
    }

    /// Acts on a notification of the client's.
    private func notice(_ method: String, _ params: Value) throws(ResponseError) {
        switch method {
        case "initialized":
            if session.withLock({ $0.watchesFiles }) { send(FileWatching.registration) }
        case "workspace/didChangeWatchedFiles":
            filesChanged(FileWatching.changedPaths(params))
        case "textDocument/didOpen":
            let item = params["textDocument"]
            guard case .string(let uriText)? = item?["uri"], case .string(let text)? = item?["text"] else {
                throw ResponseError(.invalidParams, "`textDocument` needs a `uri` and a `text`")
            }
            let uri = DocumentURI(uriText)
            var version = 0
            if case .int(let given)? = item?["version"] { version = given }
            documents.open(TextDocument(uri: uri, version: version, text: text))
            scheduler.schedule(uri)
            recheckIncluders(of: uri)
        case "textDocument/didChange":
            guard let uri = Self.documentURI(params), case .list(let changes)? = params["contentChanges"] else {
                throw ResponseError(.invalidParams, "`didChange` needs a `textDocument.uri` and `contentChanges`")
            }
            var version: Int?
            if case .int(let given)? = params["textDocument"]?["version"] { version = given }
            defer { scheduler.schedule(uri) }
            guard try documents.change(uri, version: version, changes: changes) else {
                throw ResponseError(.invalidParams, "`\(uri)` is not open")
            }
            // Plans that include it read its text from the editor: its unsaved edits are theirs.
            recheckIncluders(of: uri)
        case "textDocument/didClose":
            guard let uri = Self.documentURI(params) else {
                throw ResponseError(.invalidParams, "`didClose` needs a `textDocument.uri`")
            }
            scheduler.cancel(uri)
            documents.withDocuments { open in
                open[uri] = nil
                publisher.close(uri)
            }
            session.withLock { _ = $0.changes.removeValue(forKey: uri) }
            knownSteps.withLock { _ = $0.removeValue(forKey: uri) }
            knownNames.withLock { _ = $0.removeValue(forKey: uri) }
            knownAPIs.withLock { _ = $0.removeValue(forKey: uri) }
            recheckIncluders(of: uri)
        case "textDocument/didSave":
            guard let uri = Self.documentURI(params) else {
                throw ResponseError(.invalidParams, "`didSave` needs a `textDocument.uri`")
            }
            // A document that never read as a plan may be an API description the open plans bind: the
            // client may not watch files for the server, so its saving is news of a changed file.
            if knownSteps.withLock({ $0[uri] == nil }), let path = uri.filePath {
                filesChanged([path], from: uri)
            }
        default:
            // `$/cancelRequest` (noted when read), `$/setTrace` and the notifications the server does not
            // take: nothing to do.
            break
        }
    }

    /// Files changed on disk (`paths`): what is kept from them is dropped, and every open document but
    /// `changed` (whose text is the editor's) is checked again. Changes to open documents are left out: the
    /// editor's text is what the server checks.
    private func filesChanged(_ paths: [String], from changed: DocumentURI? = nil) {
        let open = documents.withDocuments { Set($0.keys) }
        let openPaths = Set(open.compactMap(\.filePath))
        let paths = paths.filter { !openPaths.contains($0) || $0 == changed?.filePath }
        guard !paths.isEmpty else { return }
        configuration.filesChanged(paths)
        for uri in open.sorted(by: { $0.text < $1.text }) where uri != changed {
            scheduler.schedule(uri)
        }
    }

    /// Schedules a check of the open documents that include `uri`'s file (a sub-plan that was opened,
    /// closed or saved: where its diagnostics go, or its text on disk, changed).
    private func recheckIncluders(of uri: DocumentURI) {
        guard let path = uri.filePath else { return }
        for including in publisher.documents(including: path) where including != uri {
            scheduler.schedule(including)
        }
    }

    // MARK: Checking

    /// Checks the open document `uri` with the validator and publishes what it finds, unless the document
    /// changed (or closed) meanwhile: a check of its newer text is then due.
    private func check(_ uri: DocumentURI) {
        guard let document = documents[uri] else { return }
        let path = uri.checkedPath(inFolder: configuration.workingFolder)
        // The open documents, as the files the library reads sub-plans from name them: this one too, as a
        // document's plans may run others of the same document (an Arazzo workflow runs another).
        let unsaved = documents.withDocuments { open in
            var texts: [String: String] = [:]
            for (other, document) in open {
                guard let file = other.filePath else { continue }
                texts[URL(fileURLWithPath: file).standardizedFileURL.resolvingSymlinksInPath().path] = document.text
            }
            return texts
        }
        let report = PlanValidator.validate(
            SourceFile(path: path, text: document.text), limits: configuration.limits,
            library: configuration.makeLibrary { unsaved[$0] })
        let related = session.withLock { $0.relatedInformation }
        documents.withDocuments { open in
            guard open[uri] == document else { return }
            if let plan = report.plan {
                knownSteps.withLock { $0[uri] = plan.allSteps.map(Completion.StepSummary.init) }
                knownNames.withLock { $0[uri] = ExpressionNames(plan: plan, sources: report.sources) }
                let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
                knownAPIs.withLock { $0[uri] = APIKnowledge(report, folder: folder) }
            }
            var byPath: [String: DocumentURI] = [:]
            for open in open.keys {
                if let file = open.filePath { byPath[file] = open }
            }
            var conversion = DiagnosticConversion(
                path: path, uri: uri, openDocuments: byPath, relatedInformation: related, sources: report.sources)
            publisher.publish(
                from: uri, conversion.convert(report.diagnostics), includes: Set(report.includedFiles),
                open: Set(open.keys))
        }
    }

    // MARK: Helpers

    /// `params.textDocument.uri`, if there is one.
    private static func documentURI(_ params: Value) -> DocumentURI? {
        guard case .string(let text)? = params["textDocument"]?["uri"] else { return nil }
        return DocumentURI(text)
    }

    /// Writes a line to standard error, which clients show as the server's log; a log that cannot be written
    /// (a full disk, a closed pipe) is dropped, as a frame to a client gone is (`writeAll`). What it quotes
    /// (a client's message, a file's text) shows its control characters (`VisibleText`).
    private func log(_ line: String) {
        Self.writeAll(Array(("reqplan lsp: " + VisibleText.line(line) + "\n").utf8), to: STDERR_FILENO)
    }
}
