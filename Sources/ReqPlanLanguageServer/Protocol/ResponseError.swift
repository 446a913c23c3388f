import ReqPlanSyntax

/// A JSON-RPC error, as a response carries it: a code of JSON-RPC's or LSP's, and a message.
public struct ResponseError: Error, Sendable, Equatable {
    /// The error codes this server answers with (JSON-RPC 2.0 and LSP 3.17, "ErrorCodes" and
    /// "LSPErrorCodes").
    public enum Code: Int, Sendable {
        /// The text of a message is not JSON (or its frame could not be read).
        case parseError = -32700
        /// The JSON is not a valid request.
        case invalidRequest = -32600
        /// The server does not implement the method.
        case methodNotFound = -32601
        /// The parameters are not what the method takes.
        case invalidParams = -32602
        /// A request other than `initialize` came before it.
        case serverNotInitialized = -32002
        /// The client cancelled the request (`$/cancelRequest`) before it was answered.
        case requestCancelled = -32800
        /// The document changed after the request was made, so its answer would be stale.
        case contentModified = -32801
        /// The request was understood but cannot be done (a rename to a name that is not one, or is taken).
        case requestFailed = -32803
    }

    /// The code.
    public var code: Code
    /// What went wrong, for a person.
    public var message: String
    /// The id of the request it answers, when it is known where the error was found.
    public var requestID: RequestID?

    /// Creates an error.
    public init(_ code: Code, _ message: String, requestID: RequestID? = nil) {
        self.code = code
        self.message = message
        self.requestID = requestID
    }

    /// The error as the `error` member of a response.
    public var value: Value {
        .object([.init("code", .int(code.rawValue)), .init("message", .string(message))])
    }
}
