import ReqPlanSyntax

/// The id of a JSON-RPC request: a number or a string.
public enum RequestID: Sendable, Hashable, CustomStringConvertible {
    case number(Int)
    case string(String)

    /// The id as JSON.
    public var value: Value {
        switch self {
        case .number(let number): .int(number)
        case .string(let string): .string(string)
        }
    }

    /// The id a JSON value holds, if it is one (a number or a string).
    public init?(_ value: Value) {
        switch value {
        case .int(let number): self = .number(number)
        case .string(let string): self = .string(string)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .number(let number): String(number)
        case .string(let string): "\"\(string)\""
        }
    }
}

/// A JSON-RPC 2.0 message as the language server reads it: a request (answered), a notification (not
/// answered) or a response (to a request of the server's; this server sends none, and ignores them).
public enum JSONRPCMessage: Sendable, Equatable {
    case request(id: RequestID, method: String, params: Value)
    case notification(method: String, params: Value)
    case response(id: RequestID?)

    /// Reads a message from its JSON text.
    /// - Throws: `ResponseError` with `parseError` for text that is not JSON, `invalidRequest` for JSON
    ///   that is not a message (its `id`, when it has one, is in `requestID` so the reply can name it).
    public static func parse(_ content: [UInt8]) throws(ResponseError) -> JSONRPCMessage {
        let value: Value
        do {
            value = try Value.parseJSON(bytes: content)
        } catch {
            throw ResponseError(.parseError, "the message is not JSON: \(error)")
        }
        guard case .object = value else {
            throw ResponseError(.invalidRequest, "a message is a JSON object (batches are not part of LSP)")
        }
        let id = value["id"].flatMap(RequestID.init)
        guard value["jsonrpc"] == .string("2.0") else {
            throw ResponseError(.invalidRequest, "the message has no `\"jsonrpc\": \"2.0\"`", requestID: id)
        }
        let params = value["params"] ?? .null
        switch params {
        case .object, .list, .null: break
        default: throw ResponseError(.invalidRequest, "`params` is an object or an array", requestID: id)
        }
        guard let methodValue = value["method"] else {
            guard value["result"] != nil || value["error"] != nil else {
                throw ResponseError(.invalidRequest, "the message has neither `method` nor `result`", requestID: id)
            }
            return .response(id: id)
        }
        guard case .string(let method) = methodValue else {
            throw ResponseError(.invalidRequest, "`method` is a string", requestID: id)
        }
        if value["id"] != nil {
            guard let id else { throw ResponseError(.invalidRequest, "`id` is a number or a string") }
            return .request(id: id, method: method, params: params)
        }
        return .notification(method: method, params: params)
    }

    /// The JSON text of a successful response.
    public static func response(to id: RequestID, result: Value) -> [UInt8] {
        Array(
            Value.object([.init("jsonrpc", .string("2.0")), .init("id", id.value), .init("result", result)])
                .jsonText().utf8)
    }

    /// The JSON text of an error response (`id` is `null` when the request's id could not be read).
    public static func response(to id: RequestID?, error: ResponseError) -> [UInt8] {
        Array(
            Value.object([
                .init("jsonrpc", .string("2.0")), .init("id", id?.value ?? .null), .init("error", error.value),
            ])
            .jsonText().utf8)
    }

    /// The JSON text of a request the server sends to the client.
    public static func request(id: RequestID, _ method: String, params: Value) -> [UInt8] {
        Array(
            Value.object([
                .init("jsonrpc", .string("2.0")), .init("id", id.value), .init("method", .string(method)),
                .init("params", params),
            ])
            .jsonText().utf8)
    }

    /// The JSON text of a notification the server sends.
    public static func notification(_ method: String, params: Value) -> [UInt8] {
        Array(
            Value.object([.init("jsonrpc", .string("2.0")), .init("method", .string(method)), .init("params", params)])
                .jsonText().utf8)
    }
}
