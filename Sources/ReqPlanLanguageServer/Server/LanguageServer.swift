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
        /// What the client wants traced (`initialize`'s `trace`, then `$/setTrace`).
        var trace = TraceValue.off
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
                return TextDocumentIdentifier(params).flatMap { session.changes[$0.uri] } ?? 0
            case .notification(CancelRequestNotification.method, let params):
                if let cancel = try? CancelRequestNotification(params: params), session.queued.contains(cancel.id) {
                    session.cancelled.insert(cancel.id)
                }
            case .notification(DidChangeTextDocumentNotification.method, let params):
                if let document = TextDocumentIdentifier(params) { session.changes[document.uri, default: 0] += 1 }
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
            if method == ExitNotification.method { return session.withLock { $0.phase == .shutDown } ? 0 : 1 }
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

    /// The result of a request: its params decoded into the request's type, its handler called, and its result
    /// encoded (`Messages.swift`).
    private func respond(to method: String, _ params: Value, id: RequestID, changesBefore: Int) throws(ResponseError)
        -> Value
    {
        let (phase, cancelled) = session.withLock { session in
            session.queued.remove(id)
            return (session.phase, session.cancelled.remove(id) != nil)
        }
        if cancelled { throw ResponseError(.requestCancelled, "the request was cancelled") }
        switch (phase, method) {
        case (.waiting, InitializeRequest.method):
            return initialize(InitializeRequest(params: params)).value
        case (.waiting, _):
            throw ResponseError(.serverNotInitialized, "the first request must be `initialize`")
        case (.shutDown, _):
            throw ResponseError(.invalidRequest, "the server is shut down: only `exit` is left")
        case (.running, InitializeRequest.method):
            throw ResponseError(.invalidRequest, "the server is initialized already")
        case (.running, ShutdownRequest.method):
            return shutdown(ShutdownRequest(params: params)).value
        case (.running, CompletionRequest.method):
            return try completion(CompletionRequest(params: params), changesBefore: changesBefore).value
        case (.running, DefinitionRequest.method):
            return try definition(DefinitionRequest(params: params), changesBefore: changesBefore).value
        case (.running, ReferencesRequest.method):
            return try references(ReferencesRequest(params: params), changesBefore: changesBefore).value
        case (.running, RenameRequest.method):
            return try rename(RenameRequest(params: params), changesBefore: changesBefore).value
        case (.running, PrepareRenameRequest.method):
            return try prepareRename(PrepareRenameRequest(params: params), changesBefore: changesBefore).value
        case (.running, HoverRequest.method):
            return try hover(HoverRequest(params: params), changesBefore: changesBefore).value
        case (.running, CodeActionRequest.method):
            return try codeActions(CodeActionRequest(params: params), changesBefore: changesBefore).value
        case (.running, DocumentSymbolRequest.method):
            return try documentSymbols(DocumentSymbolRequest(params: params), changesBefore: changesBefore).value
        default:
            throw ResponseError(.methodNotFound, "reqplan's language server does not implement `\(method)`")
        }
    }

    // MARK: Request handlers
    //
    // Each takes its request's typed form, calls the analysis and gives the typed result.

    /// `initialize`: notes what of the client's capabilities the server uses, and gives the server's.
    private func initialize(_ request: InitializeRequest) -> InitializeResult {
        session.withLock { session in
            session.phase = .running
            session.relatedInformation = request.relatedInformation
            session.watchesFiles = request.watchesFiles
            session.trace = request.trace
        }
        return InitializeResult(version: configuration.version)
    }

    /// `shutdown`: only `exit` is left.
    private func shutdown(_ request: ShutdownRequest) -> ShutdownRequest.Result {
        session.withLock { $0.phase = .shutDown }
        return .null
    }

    /// `textDocument/definition`: an operation's place in its API description, else what the plan names there.
    private func definition(_ request: DefinitionRequest, changesBefore: Int) throws(ResponseError)
        -> DefinitionRequest.Result
    {
        let (uri, document) = try requestedDocument(request, changesBefore: changesBefore)
        let operations = OperationDefinition(knowledge: apiKnowledge(uri))
        guard let plan = plan(of: uri, document) else {
            // A document being edited may not read: its `operation:` lines still name operations.
            return operations.definition(at: request.position, in: document.text)
        }
        if let location = operations.definition(at: request.position, in: plan) { return location }
        return PlanReferences(plan: plan).definition(at: request.position, uri: uri)
    }

    /// `textDocument/references`.
    private func references(_ request: ReferencesRequest, changesBefore: Int) throws(ResponseError)
        -> ReferencesRequest.Result
    {
        let (uri, document) = try requestedDocument(request, changesBefore: changesBefore)
        return plan(of: uri, document).map {
            PlanReferences(plan: $0).referenceLocations(
                at: request.position, includeDeclaration: request.includeDeclaration, uri: uri)
        } ?? []
    }

    /// `textDocument/rename`: every place the document names the step, input or var at the position (its id,
    /// `needs:`, `slo:`, expressions), as one `WorkspaceEdit`; `null` where nothing is named.
    private func rename(_ request: RenameRequest, changesBefore: Int) throws(ResponseError) -> RenameRequest.Result {
        let (uri, document) = try requestedDocument(request, changesBefore: changesBefore)
        guard let plan = plan(of: uri, document) else { return .null }
        let ranges: [TextRange]
        do {
            ranges = try PlanReferences(plan: plan).renaming(at: request.position, to: request.newName)
        } catch {
            throw ResponseError(.requestFailed, error.message)
        }
        guard !ranges.isEmpty else { return .null }
        let edits = ranges.map { Value.object([.init("range", $0.value), .init("newText", .string(request.newName))]) }
        return .object([.init("changes", .object([.init(uri.text, .list(edits))]))])
    }

    /// `textDocument/prepareRename`: the range of the name at the position, when it is a step's, an input's or
    /// a var's.
    private func prepareRename(_ request: PrepareRenameRequest, changesBefore: Int) throws(ResponseError)
        -> PrepareRenameRequest.Result
    {
        let (uri, document) = try requestedDocument(request, changesBefore: changesBefore)
        return plan(of: uri, document).flatMap {
            PlanReferences(plan: $0).occurrence(at: request.position)?.range.value
        }
            ?? .null
    }

    /// `textDocument/hover`: an API's part, else the plan's.
    private func hover(_ request: HoverRequest, changesBefore: Int) throws(ResponseError) -> HoverRequest.Result {
        let (uri, document) = try requestedDocument(request, changesBefore: changesBefore)
        if let hover = APIHover(knowledge: apiKnowledge(uri)).hover(at: request.position, in: document.text) {
            return hover
        }
        return Hover(plan: plan(of: uri, document)).hover(at: request.position, in: document.text)
    }

    /// `textDocument/codeAction`: the quick fixes the diagnostics carry.
    private func codeActions(_ request: CodeActionRequest, changesBefore: Int) throws(ResponseError)
        -> CodeActionRequest.Result
    {
        let (_, document) = try requestedDocument(request, changesBefore: changesBefore)
        return QuickFix.actions(for: request.diagnostics, in: document)
    }

    /// `textDocument/documentSymbol`: the plan's steps.
    private func documentSymbols(_ request: DocumentSymbolRequest, changesBefore: Int) throws(ResponseError)
        -> DocumentSymbolRequest.Result
    {
        let (uri, document) = try requestedDocument(request, changesBefore: changesBefore)
        return plan(of: uri, document).map { StepNavigation(plan: $0).symbols() } ?? []
    }

    /// `textDocument/completion`: an API's operations and fields, else steps and names.
    private func completion(_ request: CompletionRequest, changesBefore: Int) throws(ResponseError) -> CompletionList {
        let (uri, document) = try requestedDocument(request, changesBefore: changesBefore)
        if let list = APICompletion(knowledge: apiKnowledge(uri)).list(at: request.position, in: document.text) {
            return CompletionList(isIncomplete: list.isIncomplete, items: list.items)
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
        let list = completion.list(at: request.position, in: document.text)
        return CompletionList(isIncomplete: list.isIncomplete, items: list.items)
    }

    /// The open document a request names, unless it changed since the request was made.
    private func requestedDocument(_ request: some DocumentRequest, changesBefore: Int) throws(ResponseError) -> (
        DocumentURI, TextDocument
    ) {
        let uri = request.textDocument.uri
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

    /// Acts on a notification of the client's: its params decoded into its type, and its handler called.
    private func notice(_ method: String, _ params: Value) throws(ResponseError) {
        switch method {
        case InitializedNotification.method:
            initialized(InitializedNotification(params: params))
        case DidChangeWatchedFilesNotification.method:
            didChangeWatchedFiles(DidChangeWatchedFilesNotification(params: params))
        case DidOpenTextDocumentNotification.method:
            didOpen(try DidOpenTextDocumentNotification(params: params))
        case DidChangeTextDocumentNotification.method:
            try didChange(DidChangeTextDocumentNotification(params: params))
        case DidCloseTextDocumentNotification.method:
            didClose(try DidCloseTextDocumentNotification(params: params))
        case DidSaveTextDocumentNotification.method:
            didSave(try DidSaveTextDocumentNotification(params: params))
        case SetTraceNotification.method:
            let value = SetTraceNotification(params: params).value
            session.withLock { $0.trace = value }
        default:
            // `$/cancelRequest` (noted when read) and the notifications the server does not take: nothing to do.
            break
        }
    }

    // MARK: Notification handlers

    /// `initialized`: the server asks the client to watch files, if it can.
    private func initialized(_ notification: InitializedNotification) {
        if session.withLock({ $0.watchesFiles }) { send(FileWatching.registration) }
    }

    /// `workspace/didChangeWatchedFiles`.
    private func didChangeWatchedFiles(_ notification: DidChangeWatchedFilesNotification) {
        filesChanged(notification.changes.compactMap { $0.filePath })
    }

    /// `textDocument/didOpen`.
    private func didOpen(_ notification: DidOpenTextDocumentNotification) {
        let uri = notification.document.uri
        documents.open(notification.document)
        scheduler.schedule(uri)
        recheckIncluders(of: uri)
    }

    /// `textDocument/didChange`: the changes that can be read are applied, in order.
    private func didChange(_ notification: DidChangeTextDocumentNotification) throws(ResponseError) {
        let uri = notification.textDocument.uri
        defer { scheduler.schedule(uri) }
        guard documents.change(uri, version: notification.version, changes: notification.contentChanges) else {
            throw ResponseError(.invalidParams, "`\(uri)` is not open")
        }
        if let error = notification.unreadableChange { throw error }
        // Plans that include it read its text from the editor: its unsaved edits are theirs.
        recheckIncluders(of: uri)
    }

    /// `textDocument/didClose`: what is kept of the document is dropped, and its diagnostics cleared.
    private func didClose(_ notification: DidCloseTextDocumentNotification) {
        let uri = notification.textDocument.uri
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
    }

    /// `textDocument/didSave`.
    private func didSave(_ notification: DidSaveTextDocumentNotification) {
        let uri = notification.textDocument.uri
        // A document that never read as a plan may be an API description the open plans bind: the
        // client may not watch files for the server, so its saving is news of a changed file.
        if knownSteps.withLock({ $0[uri] == nil }), let path = uri.filePath {
            filesChanged([path], from: uri)
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
        let started = ContinuousClock.now
        let report = PlanValidator.validate(
            SourceFile(path: path, text: document.text), limits: configuration.limits,
            library: configuration.makeLibrary { unsaved[$0] })
        let (related, trace) = session.withLock { ($0.relatedInformation, $0.trace) }
        if trace != .off { traceCheck(of: path, report, took: ContinuousClock.now - started, trace) }
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

    /// `$/logTrace` of a check: the file, how long it took, and how many steps' API checks it kept from the
    /// check before (`APICheckCache`), which tells a user why an edit is checked slowly; with `verbose`, how
    /// many errors and warnings it found.
    private func traceCheck(of path: String, _ report: ValidationReport, took: Duration, _ trace: TraceValue) {
        var message = "checked \(path) in \(took.milliseconds) ms"
        if let steps = report.apiStepChecks {
            message +=
                ": API checks of \(steps.checked) step\(steps.checked == 1 ? "" : "s") done again, "
                + "\(steps.kept) kept"
        }
        func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
        let verbose =
            trace == .verbose
            ? counted(report.errorCount, "error") + ", " + counted(report.warningCount, "warning") : nil
        send(LogTraceNotification(message: message, verbose: verbose).content)
    }

    // MARK: Helpers

    /// Writes a line to standard error, which clients show as the server's log; a log that cannot be written
    /// (a full disk, a closed pipe) is dropped, as a frame to a client gone is (`writeAll`). What it quotes
    /// (a client's message, a file's text) shows its control characters (`VisibleText`).
    private func log(_ line: String) {
        Self.writeAll(Array(("reqplan lsp: " + VisibleText.line(line) + "\n").utf8), to: STDERR_FILENO)
    }
}
