import ReqPlanSyntax

// The typed form of every message the server reads or sends, one type per method, as sourcekit-lsp's
// `LanguageServerProtocol` module has them. The server's JSON goes through reqplan's `Value` (its parser reads
// the client's bytes; its writer gives the bytes the tests and clients see), so a message is decoded from
// the `params` `Value` and a result encoded back to one, rather than through `Codable`: a `params` that is not
// what the method takes is an `invalidParams` error that says what is missing, never a crash.
//
// Items a feature builds (a completion item, a hover, a symbol, a code action, a diagnostic) stay the `Value`
// the feature gives: the features are the LSP side of the analysis and speak its JSON already.

/// A message the client sends, decoded from its `params`.
protocol IncomingMessage: Sendable {
    /// The method it is sent with.
    static var method: String { get }
    /// Decodes the message's `params`.
    /// - Throws: `ResponseError` with `invalidParams` when they are not what the method takes.
    init(params: Value) throws(ResponseError)
}

/// A request of the client's: a message it waits an answer to, of type `Result`.
protocol Request: IncomingMessage {
    associatedtype Result: EncodableResult
}

/// A notification of the client's: a message it does not wait an answer to.
protocol Notification: IncomingMessage {}

/// What a request is answered with, or what a notification of the server's carries.
protocol EncodableResult: Sendable {
    /// The value as JSON.
    var value: Value { get }
}

extension Value: EncodableResult {
    var value: Value { self }
}

extension Optional: EncodableResult where Wrapped: EncodableResult {
    var value: Value { self?.value ?? .null }
}

extension Array: EncodableResult where Element: EncodableResult {
    var value: Value { .list(map(\.value)) }
}

// MARK: Shared parts

/// `params.textDocument.uri`, which every document request and notification has.
struct TextDocumentIdentifier: Sendable, Equatable {
    var uri: DocumentURI

    /// The identifier of `params.textDocument`, if it has a `uri`.
    init?(_ params: Value) {
        guard case .string(let text)? = params["textDocument"]?["uri"] else { return nil }
        uri = DocumentURI(text)
    }

    /// The identifier, or `invalidParams` with `message`.
    static func required(_ params: Value, _ message: String) throws(ResponseError) -> TextDocumentIdentifier {
        guard let document = TextDocumentIdentifier(params) else { throw ResponseError(.invalidParams, message) }
        return document
    }
}

/// A document and a place in it (LSP `TextDocumentPositionParams`).
struct TextDocumentPosition: Sendable, Equatable {
    var textDocument: TextDocumentIdentifier
    var position: TextPosition

    /// Decodes them; `name` is the request's, for the message of a missing position.
    init(params: Value, name: String) throws(ResponseError) {
        textDocument = try .required(params, "the request needs a `textDocument.uri`")
        guard let position = TextPosition(params["position"]) else {
            throw ResponseError(.invalidParams, "\(name) needs a `position`")
        }
        self.position = position
    }
}

/// A document request: the document it names, for the server to look up.
protocol DocumentRequest: Request {
    var textDocument: TextDocumentIdentifier { get }
}

/// A request about a place in a document.
protocol PositionRequest: DocumentRequest {
    /// How a message names the request.
    static var name: String { get }
    var place: TextDocumentPosition { get }
}

extension PositionRequest {
    /// `` `hover` `` for `textDocument/hover`.
    static var name: String { "`" + (method.split(separator: "/").last.map(String.init) ?? method) + "`" }

    var textDocument: TextDocumentIdentifier { place.textDocument }
    var position: TextPosition { place.position }
}

/// A request about a place in a document, with nothing else in its params.
protocol PlaceRequest: PositionRequest {
    init(place: TextDocumentPosition)
}

extension PlaceRequest {
    init(params: Value) throws(ResponseError) {
        self.init(place: try TextDocumentPosition(params: params, name: Self.name))
    }
}

// MARK: Lifecycle

/// `initialize`: what of the client's capabilities the server uses.
struct InitializeRequest: Request {
    static let method = "initialize"
    typealias Result = InitializeResult

    /// Whether the client shows diagnostics' related information.
    var relatedInformation: Bool
    /// Whether the client watches files for the server when asked (`client/registerCapability`).
    var watchesFiles: Bool
    /// What the client wants traced (`trace`): off unless it says.
    var trace: TraceValue

    /// Anything is read: a capability the client does not state is one it does not have.
    init(params: Value) {
        let capabilities = params["capabilities"]
        relatedInformation =
            capabilities?["textDocument"]?["publishDiagnostics"]?["relatedInformation"] == .bool(true)
        watchesFiles = capabilities?["workspace"]?["didChangeWatchedFiles"]?["dynamicRegistration"] == .bool(true)
        trace = TraceValue(params["trace"])
    }
}

/// How much the server traces (`$/logTrace`): `off`, `messages` (a line per check) or `verbose` (with what
/// the check found).
enum TraceValue: String, Sendable {
    case off, messages, verbose

    /// The value `value` names; `off` for anything else.
    init(_ value: Value?) {
        guard case .string(let text)? = value, let known = TraceValue(rawValue: text) else {
            self = .off
            return
        }
        self = known
    }
}

/// `$/setTrace`: the client changes what it wants traced.
struct SetTraceNotification: Notification {
    static let method = "$/setTrace"

    var value: TraceValue

    init(params: Value) {
        value = TraceValue(params["value"])
    }
}

/// `$/logTrace`, which the server sends when tracing: one line, and more with `verbose`.
struct LogTraceNotification: EncodableResult {
    static let method = "$/logTrace"

    var message: String
    var verbose: String?

    var value: Value {
        .object([.init("message", .string(message))] + (verbose.map { [.init("verbose", .string($0))] } ?? []))
    }

    /// The framed content of the notification.
    var content: [UInt8] { JSONRPCMessage.notification(Self.method, params: value) }
}

/// The answer to `initialize`: the capabilities the server has (and only those), and its name and version.
struct InitializeResult: EncodableResult {
    /// The server's version.
    var version: String
    /// The characters after which clients ask for completion.
    static let triggerCharacters = [".", "[", ","]

    var value: Value {
        let sync: Value = .object([
            .init("openClose", .bool(true)),
            // Incremental: each change gives the range it replaces.
            .init("change", .int(2)),
            .init("save", .object([.init("includeText", .bool(false))])),
        ])
        let completion: Value = .object([
            .init("triggerCharacters", .list(Self.triggerCharacters.map { Value.string($0) }))
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
                    .init("renameProvider", .object([.init("prepareProvider", .bool(true))])),
                    .init("documentSymbolProvider", .bool(true)),
                    .init(
                        "codeActionProvider",
                        .object([.init("codeActionKinds", .list([.string("quickfix")]))])),
                ])),
            .init("serverInfo", .object([.init("name", .string("reqplan")), .init("version", .string(version))])),
        ])
    }
}

/// `shutdown`: answered with `null`.
struct ShutdownRequest: Request {
    static let method = "shutdown"
    typealias Result = Value

    init(params: Value) {}
}

/// `initialized`.
struct InitializedNotification: Notification {
    static let method = "initialized"

    init(params: Value) {}
}

/// `exit`.
struct ExitNotification: Notification {
    static let method = "exit"

    init(params: Value) {}
}

/// `$/cancelRequest`: the id of a request the client no longer waits for.
struct CancelRequestNotification: Notification {
    static let method = "$/cancelRequest"

    var id: RequestID

    init(params: Value) throws(ResponseError) {
        guard let id = params["id"].flatMap(RequestID.init) else {
            throw ResponseError(.invalidParams, "`$/cancelRequest` needs an `id`")
        }
        self.id = id
    }
}

// MARK: Documents

/// `textDocument/didOpen`.
struct DidOpenTextDocumentNotification: Notification {
    static let method = "textDocument/didOpen"

    var document: TextDocument

    init(params: Value) throws(ResponseError) {
        let item = params["textDocument"]
        guard case .string(let uri)? = item?["uri"], case .string(let text)? = item?["text"] else {
            throw ResponseError(.invalidParams, "`textDocument` needs a `uri` and a `text`")
        }
        var version = 0
        if case .int(let given)? = item?["version"] { version = given }
        document = TextDocument(uri: DocumentURI(uri), version: version, text: text)
    }
}

/// `textDocument/didChange`: the changes, in order, each of a range or of the whole text.
struct DidChangeTextDocumentNotification: Notification {
    static let method = "textDocument/didChange"

    var textDocument: TextDocumentIdentifier
    /// The version the document has after the changes, when the client gives it.
    var version: Int?
    /// The changes up to the first that cannot be read.
    var contentChanges: [TextDocument.ContentChange]
    /// Why the change after `contentChanges` cannot be read, if one cannot: the changes before it are
    /// applied all the same, as the client sent them in order (`TextDocument.apply`).
    var unreadableChange: ResponseError?

    init(params: Value) throws(ResponseError) {
        guard let textDocument = TextDocumentIdentifier(params), case .list(let changes)? = params["contentChanges"]
        else {
            throw ResponseError(.invalidParams, "`didChange` needs a `textDocument.uri` and `contentChanges`")
        }
        self.textDocument = textDocument
        if case .int(let given)? = params["textDocument"]?["version"] { version = given }
        var decoded: [TextDocument.ContentChange] = []
        for change in changes {
            do {
                decoded.append(try TextDocument.ContentChange(change))
            } catch {
                unreadableChange = error
                break
            }
        }
        contentChanges = decoded
    }
}

/// `textDocument/didClose`.
struct DidCloseTextDocumentNotification: Notification {
    static let method = "textDocument/didClose"

    var textDocument: TextDocumentIdentifier

    init(params: Value) throws(ResponseError) {
        textDocument = try .required(params, "`didClose` needs a `textDocument.uri`")
    }
}

/// `textDocument/didSave`.
struct DidSaveTextDocumentNotification: Notification {
    static let method = "textDocument/didSave"

    var textDocument: TextDocumentIdentifier

    init(params: Value) throws(ResponseError) {
        textDocument = try .required(params, "`didSave` needs a `textDocument.uri`")
    }
}

/// `workspace/didChangeWatchedFiles`: the files another program changed.
struct DidChangeWatchedFilesNotification: Notification {
    static let method = "workspace/didChangeWatchedFiles"

    /// The URIs of the changed files (those that are not strings are left out).
    var changes: [DocumentURI]

    init(params: Value) {
        guard case .list(let list)? = params["changes"] else {
            changes = []
            return
        }
        changes = list.compactMap { change in
            guard case .string(let uri)? = change["uri"] else { return nil }
            return DocumentURI(uri)
        }
    }
}

/// `textDocument/publishDiagnostics`, which the server sends.
struct PublishDiagnosticsNotification: EncodableResult {
    static let method = "textDocument/publishDiagnostics"

    var uri: DocumentURI
    /// The diagnostics, as `DiagnosticConversion` gives them.
    var diagnostics: [Value]

    var value: Value {
        .object([.init("uri", .string(uri.text)), .init("diagnostics", .list(diagnostics))])
    }

    /// The framed content of the notification.
    var message: [UInt8] { JSONRPCMessage.notification(Self.method, params: value) }
}

/// `client/registerCapability`, which the server sends: one registration of files to watch.
struct RegisterCapabilityRequest: EncodableResult {
    static let method = "client/registerCapability"

    /// The request's id.
    var id: RequestID
    /// The registration's id.
    var registrationID: String
    /// The method registered.
    var method: String
    /// The files watched.
    var globPattern: String

    var value: Value {
        let watcher: Value = .object([.init("globPattern", .string(globPattern))])
        let registration: Value = .object([
            .init("id", .string(registrationID)),
            .init("method", .string(method)),
            .init("registerOptions", .object([.init("watchers", .list([watcher]))])),
        ])
        return .object([.init("registrations", .list([registration]))])
    }

    /// The framed content of the request.
    var message: [UInt8] { JSONRPCMessage.request(id: id, Self.method, params: value) }
}

// MARK: Language features

/// `textDocument/completion`.
struct CompletionRequest: PlaceRequest {
    static let method = "textDocument/completion"
    typealias Result = CompletionList
    static let name = "completion"

    var place: TextDocumentPosition
}

/// The answer to `textDocument/completion`.
struct CompletionList: EncodableResult {
    /// Whether typing more may give other items (the list was cut).
    var isIncomplete: Bool
    var items: [Value]

    var value: Value {
        .object([.init("isIncomplete", .bool(isIncomplete)), .init("items", .list(items))])
    }
}

/// `textDocument/definition`.
struct DefinitionRequest: PlaceRequest {
    static let method = "textDocument/definition"
    /// A `Location`, or `null`.
    typealias Result = Location?

    var place: TextDocumentPosition
}

/// An LSP `Location`: a range of a document.
public struct Location: Sendable, Hashable, EncodableResult {
    /// The document.
    public var uri: DocumentURI
    /// The range in it.
    public var range: TextRange

    /// The location as LSP's JSON.
    public var value: Value { .object([.init("uri", .string(uri.text)), .init("range", range.value)]) }
}

/// `textDocument/references`.
struct ReferencesRequest: PositionRequest {
    static let method = "textDocument/references"
    typealias Result = [Location]

    var place: TextDocumentPosition
    /// Whether the declaration is one of the references (`context.includeDeclaration`).
    var includeDeclaration: Bool

    init(params: Value) throws(ResponseError) {
        place = try TextDocumentPosition(params: params, name: Self.name)
        includeDeclaration = params["context"]?["includeDeclaration"] == .bool(true)
    }
}

/// `textDocument/rename`: the step, input or var at a place renamed wherever the document names it.
struct RenameRequest: PositionRequest {
    static let method = "textDocument/rename"
    /// A `WorkspaceEdit`, or `null` where nothing is named.
    typealias Result = Value

    var place: TextDocumentPosition
    /// The name to give it.
    var newName: String

    init(params: Value) throws(ResponseError) {
        place = try TextDocumentPosition(params: params, name: Self.name)
        guard case .string(let name)? = params["newName"] else {
            throw ResponseError(.invalidParams, "`rename` needs `newName`, a string")
        }
        newName = name
    }
}

/// `textDocument/prepareRename`: whether a step, input or var is named at a place, and its range.
struct PrepareRenameRequest: PlaceRequest {
    static let method = "textDocument/prepareRename"
    /// The `Range` of the name, or `null`.
    typealias Result = Value

    var place: TextDocumentPosition
}

/// `textDocument/hover`.
struct HoverRequest: PlaceRequest {
    static let method = "textDocument/hover"
    /// A `Hover`, or `null`.
    typealias Result = Value?

    var place: TextDocumentPosition
}

/// `textDocument/codeAction`: the diagnostics of the range, as the client has them.
struct CodeActionRequest: DocumentRequest {
    static let method = "textDocument/codeAction"
    /// The `CodeAction`s.
    typealias Result = [Value]

    var textDocument: TextDocumentIdentifier
    /// `context.diagnostics`, as the server published them (their `data` carries the fixes).
    var diagnostics: [Value]

    init(params: Value) throws(ResponseError) {
        textDocument = try .required(params, "the request needs a `textDocument.uri`")
        guard case .list(let diagnostics)? = params["context"]?["diagnostics"] else {
            throw ResponseError(.invalidParams, "`codeAction` needs `context.diagnostics`")
        }
        self.diagnostics = diagnostics
    }
}

/// `textDocument/documentSymbol`.
struct DocumentSymbolRequest: DocumentRequest {
    static let method = "textDocument/documentSymbol"
    /// The `DocumentSymbol`s.
    typealias Result = [Value]

    var textDocument: TextDocumentIdentifier

    init(params: Value) throws(ResponseError) {
        textDocument = try .required(params, "the request needs a `textDocument.uri`")
    }
}
