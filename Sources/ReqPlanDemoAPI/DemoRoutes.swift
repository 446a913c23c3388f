import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The demo API's routes. Every response is JSON unless stated otherwise, carries an
/// `X-Request-Id`, and errors look like `{"error": "…", "status": 404}`.
///
/// Application endpoints (the example plans in `plans/` use these):
///
/// | Endpoint | Answer |
/// |---|---|
/// | `GET /`, `GET /health` | an index of the endpoints; `{"ok": true}` |
/// | `POST /login` | `{"token", "token_type", "expires_in", "user"}` from a JSON or form body with `user` |
/// | `POST /logout` | ends the session named by `Authorization: Bearer` or `X-Session` |
/// | `GET /config` | `{"version", "maintenance", "features": [...], "limits", "session"}`; `?section=feature-flags` |
/// | `GET /users/{user}/preferences` | `{"user", "theme", "language", "timezone", "notifications"}` |
/// | `GET /home` | the home screen; `?theme=`, `?unread=`, `?mode=degraded`, `?banner=` |
/// | `GET /items` | `{"items": [...], "count", "total"}` filtered by `kind`, `unread`, `tag`, `limit` |
/// | `POST /items` | an object creates one item (201, with its numeric `id`); a list imports many (201, `{"ids"}`) |
/// | `GET`, `PUT`, `PATCH`, `DELETE /items/{id}` | read; replace or create (200/201); merge-patch; delete (204) |
/// | `POST /cart`, `GET /cart/{id}` | open a cart (201, `{"id"}`); read it |
/// | `PUT /cart/{id}` | add or update one line `{"item_id", "quantity"}` |
/// | `POST /cart/{id}/order` | place the order (201, `{"order_id", "status", "lines"}`), then `/items/{order_id}` |
/// | `POST /upload`, `GET /files/{id}/{name}` | multipart upload (201, `{"id", "url", "name", "size"}`); download |
/// | `GET /openapi.yaml` | this API's OpenAPI document (`plans/_openapi/demo-api.yaml`) |
/// | `GET /stock-report` | `{"products": [{"sku", "in_stock"}]}`, off-spec on purpose (`in_stock` as text) |
/// | `POST /jobs`, `GET /jobs/{id}`, `GET /jobs/{id}/result` | a long job: 202 with a status URL; `running` for a few polls, then `done` (with `result_url`) or `failed`; its result (`DemoRoutes+Jobs.swift`) |
///
/// Fault endpoints (tests and benchmarks) are documented in `DemoRoutes+Faults.swift`, header
/// endpoints in `DemoRoutes+Headers.swift`, the transport's wire endpoints in `DemoRoutes+Wire.swift`;
/// endpoints behind credentials, and HTML and XML pages, in `DemoRoutes+Auth.swift`.
/// `HEAD` is answered for every `GET` route, and unknown routes give a 404 JSON error.
struct DemoRoutes: Sendable {
    /// The data shared by all requests.
    let state: DemoState

    /// The largest request body read by JSON, form and echo endpoints.
    static let maximumBodySize = 16 << 20
    /// The largest upload accepted by `POST /upload`.
    static let maximumUploadSize = 32 << 20

    /// Adds the middleware and every route to `router`.
    func register(on router: Router<DemoContext>) {
        router.addMiddleware { CloseNextMiddleware(state: state) }
        router.addMiddleware { DemoMiddleware<DemoContext>(state: state) }
        registerSession(on: router)
        registerItems(on: router)
        registerCarts(on: router)
        registerFiles(on: router)
        registerJobs(on: router)
        registerFaults(on: router)
        registerHeaders(on: router)
        registerWire(on: router)
        registerAuth(on: router)
        registerDescription(on: router)
    }

    // MARK: Responses

    /// A JSON response.
    static func json(_ value: JSON, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: value.jsonText())))
    }

    /// A response with `Content-Type: application/json` and `text` as written (valid JSON or not).
    static func jsonText(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The JSON error response `{"error": message, "status": code}`.
    static func error(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) -> Response {
        json(["error": .string(message), "status": .int(status.code)], status: status, headers: headers)
    }

    // MARK: Requests

    /// The whole request body, refused with 413 beyond `limit` bytes.
    static func bodyBytes(of request: Request, limit: Int = maximumBodySize) async throws -> [UInt8] {
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch is NIOTooManyBytesError {
            throw HTTPError(.contentTooLarge, message: "the request body is larger than \(limit) bytes")
        }
    }

    /// The body as a value: JSON for JSON content types, an object of strings for
    /// `application/x-www-form-urlencoded` (a repeated name gives a list); `nil` when empty.
    /// Other content types are refused with 415, malformed JSON with 400.
    static func bodyValue(of request: Request) async throws -> JSON? {
        let bytes = try await bodyBytes(of: request)
        let type = mediaType(of: request)
        if bytes.isEmpty { return nil }
        switch type {
        case "application/json", nil:
            return try parseJSON(bytes)
        case let type? where type.hasSuffix("+json"):
            return try parseJSON(bytes)
        case "application/x-www-form-urlencoded":
            return formObject(decodePairs(String(decoding: bytes, as: UTF8.self)))
        case let type?:
            throw HTTPError(
                .unsupportedMediaType,
                message: "expected a JSON or form body, got Content-Type `\(type)`")
        }
    }

    /// Parses a JSON body, refusing malformed text with 400.
    static func parseJSON(_ bytes: [UInt8]) throws -> JSON {
        do {
            return try JSON.parseJSON(bytes: bytes)
        } catch {
            throw HTTPError(.badRequest, message: "the body is not valid JSON: \(error)")
        }
    }

    /// The media type of the request (lower case, without parameters), if it has a Content-Type.
    static func mediaType(of request: Request) -> String? {
        guard let value = request.headers[.contentType] else { return nil }
        let type = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? value
        return type.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// A request header by name (case-insensitive).
    static func header(_ request: Request, _ name: String) -> String? {
        HTTPField.Name(name).flatMap { request.headers[$0] }
    }

    /// The bearer token or `X-Session` of the request.
    static func sessionToken(of request: Request) -> String? {
        if let authorization = request.headers[.authorization],
            authorization.lowercased().hasPrefix("bearer ")
        {
            let token = authorization.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
            if !token.isEmpty { return token }
        }
        if let session = header(request, "X-Session"), !session.isEmpty { return session }
        return nil
    }

    /// The user of the request's session, when it names one that `POST /login` opened.
    func sessionUser(of request: Request) -> String? {
        guard let token = Self.sessionToken(of: request) else { return nil }
        return state.storage.withLock { $0.sessions[token] }
    }

    /// The decoded query parameters in order, repeated names kept (`+` is a space).
    static func query(of request: Request) -> [(name: String, value: String)] {
        decodePairs(request.uri.query ?? "")
    }

    /// The values of the query parameter `name`, in order.
    static func query(_ request: Request, _ name: String) -> [String] {
        query(of: request).filter { $0.name == name }.map(\.value)
    }

    /// The last value of the query parameter `name`.
    static func queryValue(_ request: Request, _ name: String) -> String? {
        query(request, name).last
    }

    /// An integer query parameter within `range`; 400 when it is not one.
    static func queryInteger(_ request: Request, _ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = queryValue(request, name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw HTTPError(
                .badRequest,
                message: "`\(name)` must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// The path parameter `name`, percent-decoded.
    static func parameter(_ context: DemoContext, _ name: String) throws -> String {
        let raw = try context.parameters.require(name)
        return raw.removingPercentEncoding ?? raw
    }

    /// `name=value&…` pairs as in `application/x-www-form-urlencoded`: `+` is a space, then
    /// percent-decoding; a malformed escape is kept as written.
    static func decodePairs(_ text: String) -> [(name: String, value: String)] {
        guard !text.isEmpty else { return [] }
        return text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decodeComponent(parts[0])
            let value = parts.count > 1 ? decodeComponent(parts[1]) : ""
            return (name, value)
        }
    }

    private static func decodeComponent(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// Form pairs as a JSON object: one string per name, a list of strings for a repeated name.
    static func formObject(_ pairs: [(name: String, value: String)]) -> JSON {
        var object = JSON.object([])
        for (name, value) in pairs {
            switch object[name] {
            case nil: object = object.setting(name, to: .string(value))
            case .list(let values)?: object = object.setting(name, to: .list(values + [.string(value)]))
            case let single?: object = object.setting(name, to: .list([single, .string(value)]))
            }
        }
        return object
    }

    /// RFC 3986 percent-encoding of a path segment.
    static func encodePathSegment(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// Numbers every response (`X-Request-Id`), turns thrown `HTTPError`s into JSON errors
/// (404 for unknown routes), and strips bodies from `HEAD` responses.
struct DemoMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Holds the request counter.
    let state: DemoState

    /// Handles one request.
    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let number = state.storage.withLock { store in
            store.requestCount += 1
            return store.requestCount
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPError {
            let message =
                error.body
                ?? (error.status == .notFound
                    ? "no route for \(request.method.rawValue) \(request.uri.path)" : error.status.reasonPhrase)
            response = DemoRoutes.error(error.status, message, headers: error.headers)
        }
        if let name = HTTPField.Name("X-Request-Id") {
            response.headers[name] = "req-\(number)"
        }
        if request.method == .head {
            response = response.createHeadResponse()
        }
        return response
    }
}

/// Answers a request by closing its connection when `GET /close-next` asked for it: the client
/// sees a kept-alive connection close just as it sends on it, without a byte of response.
struct CloseNextMiddleware: RouterMiddleware {
    let state: DemoState

    func handle(
        _ request: Request, context: DemoContext,
        next: (Request, DemoContext) async throws -> Response
    ) async throws -> Response {
        let id = ObjectIdentifier(context.connection)
        guard state.storage.withLock({ $0.closeNext.remove(id) }) != nil else {
            return try await next(request, context)
        }
        try? await context.connection.close()
        throw DemoFault.connectionReset
    }
}
