import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Thrown from a response body to drop the connection on purpose.
enum DemoFault: Error {
    /// `GET /reset`: the connection is closed in the middle of the response.
    case connectionReset
}

extension DemoRoutes {
    /// `{"compressed":true,"text":"reqplan reqplan …"}` (64 times), gzip-compressed.
    static let gzipBody: [UInt8] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xab, 0x56, 0x4a, 0xce, 0xcf, 0x2d, 0x28, 0x4a,
        0x2d, 0x2e, 0x4e, 0x4d, 0x51, 0xb2, 0x2a, 0x29, 0x2a, 0x4d, 0xd5, 0x51, 0x2a, 0x49, 0xad, 0x28, 0x51, 0xb2,
        0x52, 0x2a, 0x4a, 0x2d, 0x2c, 0xc8, 0x49, 0xcc, 0x53, 0x18, 0xa5, 0x47, 0x26, 0xad, 0x54, 0x0b, 0x00, 0x18,
        0x5f, 0x23, 0x4b, 0x1d, 0x02, 0x00, 0x00,
    ]

    /// Methods accepted by the endpoints that answer "any method".
    static let anyMethod: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]

    /// Waits the `{ms}` of the path (0–60000; 400 for another value) and returns it. Benchmarks
    /// measure against this delay, so it is an event-loop timer (epoll, exact to microseconds)
    /// rather than `Task.sleep`, which overshoots by a few hundred microseconds.
    static func wait(_ context: DemoContext) async throws -> Int {
        let text = try context.parameters.require("ms")
        guard let milliseconds = Int(text), (0...60_000).contains(milliseconds) else {
            throw HTTPError(.badRequest, message: "the delay must be a whole number of milliseconds from 0 to 60000")
        }
        if milliseconds > 0 {
            let timer = context.eventLoop.scheduleTask(in: .milliseconds(Int64(milliseconds))) {}
            try await withTaskCancellationHandler {
                try await timer.futureResult.get()
            } onCancel: {
                timer.cancel()
            }
        }
        return milliseconds
    }

    /// `127.0.0.1:54321`, `[::1]:54321`.
    static func describe(_ address: SocketAddress) -> String {
        guard let ip = address.ipAddress, let port = address.port else { return "\(address)" }
        return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }

    /// Fault endpoints for tests and benchmarks: slow, failing, flaky, broken and huge responses,
    /// and an echo of the request.
    func registerFaults(on router: Router<DemoContext>) {
        /// `GET|POST /delay/{ms}` — waits `ms` milliseconds (0–60000), then 200 `{"delayed_ms": ms}`.
        /// Query parameters are ignored. 400 for another value.
        let delay: @Sendable (Request, DemoContext) async throws -> Response = { _, context in
            let milliseconds = try await Self.wait(context)
            return Self.json(["delayed_ms": .int(milliseconds)])
        }
        router.get("/delay/{ms}", use: delay)
        router.post("/delay/{ms}", use: delay)

        /// `GET /connection/{ms}` — waits like `/delay/{ms}`, then 200 `{"peer": "127.0.0.1:54321"}`: the
        /// client's address and port, which tell its connections apart (pooling, keep-alive).
        router.get("/connection/{ms}") { _, context -> Response in
            _ = try await Self.wait(context)
            return Self.json(["peer": .string(context.connection.remoteAddress.map(Self.describe) ?? "unknown")])
        }

        /// `GET /close-next` — 200 `{"peer": …}` as `/connection/0`, kept alive; the next request on the same connection
        /// is answered by closing the connection, before a byte of response (a server closing an idle
        /// keep-alive connection just as the client reuses it).
        router.get("/close-next") { _, context -> Response in
            _ = state.storage.withLock { $0.closeNext.insert(ObjectIdentifier(context.connection)) }
            return Self.json(["peer": .string(context.connection.remoteAddress.map(Self.describe) ?? "unknown")])
        }

        /// `GET /gzip` — a JSON body sent gzip-compressed (`Content-Encoding: gzip`), 541 bytes once decompressed.
        router.get("/gzip") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/json", .contentEncoding: "gzip"],
                body: .init(byteBuffer: ByteBuffer(bytes: Self.gzipBody)))
        }

        /// `GET /redirect/{n}` — redirects (302) to `/redirect/{n-1}` until `n` is 0, which answers
        /// 200 `{"redirected": true}`; `n` is 0–50.
        router.get("/redirect/{n}") { _, context -> Response in
            let text = try context.parameters.require("n")
            guard let count = Int(text), (0...50).contains(count) else {
                throw HTTPError(.badRequest, message: "the redirect count must be a number from 0 to 50")
            }
            if count == 0 { return Self.json(["redirected": .bool(true)]) }
            return Response(status: .found, headers: [.location: "/redirect/\(count - 1)"])
        }

        /// `ANY /redirect-to?url=U&status=S` — redirects to `U` (absolute or relative) with status `S`
        /// (301, 302, 303, 307 or 308; 302 by default), without a body.
        let redirectTo: @Sendable (Request, DemoContext) async throws -> Response = { request, _ in
            guard let target = Self.queryValue(request, "url"), !target.isEmpty else {
                throw HTTPError(.badRequest, message: "`url` is required")
            }
            let code = try Self.queryInteger(request, "status", in: 301...308) ?? 302
            guard [301, 302, 303, 307, 308].contains(code) else {
                throw HTTPError(.badRequest, message: "`status` must be 301, 302, 303, 307 or 308")
            }
            var response = Response(status: HTTPResponse.Status(code: code), headers: [.location: target])
            response.headers[.contentLength] = "0"
            return response
        }
        for method in Self.anyMethod { router.on("/redirect-to", method: method, use: redirectTo) }

        /// `GET /redirect-loop` — redirects (302) to itself, forever.
        router.get("/redirect-loop") { _, _ -> Response in
            var response = Response(status: .found, headers: [.location: "/redirect-loop"])
            response.headers[.contentLength] = "0"
            return response
        }

        /// `ANY /status/{code}` — responds with that status (100–599; 400 otherwise) and
        /// `{"status": code, "reason": "…"}` (no body for 1xx, 204, 205 and 304). `?retry_after=N`
        /// adds `Retry-After: N`. A 1xx code is sent as is: HTTP/1.1 clients read it as an interim
        /// response and keep waiting for a final one that never comes (until their timeout).
        let status: @Sendable (Request, DemoContext) async throws -> Response = { request, context in
            let text = try context.parameters.require("code")
            guard text.count == 3, let code = Int(text), (100...599).contains(code) else {
                throw HTTPError(.badRequest, message: "the status must be a number from 100 to 599, not `\(text)`")
            }
            let headers = try Self.retryAfterHeader(request)
            let reason = Self.reasonPhrases[code] ?? ""
            let status = HTTPResponse.Status(code: code, reasonPhrase: reason)
            if code < 200 || code == 204 || code == 205 || code == 304 {
                var response = Response(status: status, headers: headers)
                response.headers[.contentLength] = nil
                return response
            }
            return Self.json(["status": .int(code), "reason": .string(reason)], status: status, headers: headers)
        }
        for method in Self.anyMethod { router.on("/status/{code}", method: method, use: status) }

        /// `ANY /flaky/{id}?fail=N` — counts requests per `id`: the first `N` (default 1, at most 1000)
        /// get 503 `{"id", "attempt", "error", "failures_left"}` (with `Retry-After` when
        /// `?retry_after=` is given), later ones 200 `{"id", "attempt"}`. Use a fresh id per run.
        let flaky: @Sendable (Request, DemoContext) async throws -> Response = { request, context in
            let id = try Self.parameter(context, "id")
            let failures = try Self.queryInteger(request, "fail", in: 0...1000) ?? 1
            let headers = try Self.retryAfterHeader(request)
            let attempt = state.storage.withLock { store in
                let attempt = (store.flakyCounts[id] ?? 0) + 1
                store.flakyCounts[id] = attempt
                return attempt
            }
            if attempt <= failures {
                return Self.json(
                    [
                        "id": .string(id), "attempt": .int(attempt), "error": "temporarily unavailable",
                        "failures_left": .int(failures - attempt),
                    ], status: .serviceUnavailable, headers: headers)
            }
            return Self.json(["id": .string(id), "attempt": .int(attempt)])
        }
        for method in Self.anyMethod where method != .head && method != .options {
            router.on("/flaky/{id}", method: method, use: flaky)
        }

        /// `GET /reset` — sends the head (announcing a 1 KiB JSON body) and a few bytes, then closes
        /// the connection: the client sees it closed before the response ended.
        router.get("/reset") { _, _ in
            let partial = #"{"items": [{"id": 1, "name": "T-sh"#
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(contentLength: 1024) { writer in
                    try await writer.write(ByteBuffer(string: partial))
                    try await Task.sleep(for: .milliseconds(50))  // let the partial body reach the client
                    throw DemoFault.connectionReset
                })
        }

        /// `GET /slow-body` — a text body that never ends: `tick N` every 200 ms until the client goes
        /// away (the write fails) or the server stops (the task is cancelled).
        router.get("/slow-body") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                body: ResponseBody { writer in
                    var tick = 0
                    while true {
                        tick += 1
                        try await writer.write(ByteBuffer(string: "tick \(tick)\n"))
                        try await Task.sleep(for: .milliseconds(200))
                    }
                })
        }

        /// `GET /huge?mb=N` — N MiB (default 128, at most 16384) of `application/octet-stream`, streamed
        /// in 64 KiB chunks (one buffer reused, nothing held in memory), with its Content-Length.
        router.get("/huge") { request, _ in
            let megabytes = try Self.queryInteger(request, "mb", in: 0...16_384) ?? 128
            let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 << 10)
            return Response(
                status: .ok, headers: [.contentType: "application/octet-stream"],
                body: ResponseBody(contentLength: megabytes << 20) { writer in
                    for _ in 0..<(megabytes * 16) { try await writer.write(chunk) }
                    try await writer.finish(nil)
                })
        }

        /// `GET /invalid-json` — `Content-Type: application/json` with a truncated, malformed body.
        router.get("/invalid-json") { _, _ in
            Self.jsonText(#"{"id": 1, "name": "broken", "tags": ["a", "b"#)
        }

        /// `ANY /echo` — the request as received: `{"protocol" (`HTTP/1.1` or `HTTP/2`), "method", "path", "query": {"raw", "params":
        /// [{"name", "value"}]}, "headers": [{"name", "value"}], "body": {"text", "base64", "size"}}`.
        /// Query names and values are decoded (`+` is a space), repeated names kept in order; header
        /// names are in lower case, in the order received (`host` first); the body text is UTF-8
        /// (invalid bytes replaced), `base64` is exact. 413 beyond 16 MiB.
        let echo: @Sendable (Request, DemoContext) async throws -> Response = { request, context in
            let bytes = try await Self.bodyBytes(of: request)
            var headers: [JSON] = []
            if let authority = request.head.authority,
                !request.headers.contains(where: { $0.name.canonicalName == "host" })
            {
                headers.append(["name": "host", "value": .string(authority)])
            }
            for field in request.headers {
                headers.append(["name": .string(field.name.canonicalName), "value": .string(field.value)])
            }
            let params = Self.query(of: request).map { pair -> JSON in
                ["name": .string(pair.name), "value": .string(pair.value)]
            }
            return Self.json([
                "protocol": .string(context.httpVersion),
                "method": .string(request.method.rawValue), "path": .string(request.uri.path),
                "query": ["raw": .string(request.uri.query ?? ""), "params": .list(params)],
                "headers": .list(headers),
                "body": [
                    "text": .string(String(decoding: bytes, as: UTF8.self)),
                    "base64": .string(Data(bytes).base64EncodedString()), "size": .int(bytes.count),
                ],
            ])
        }
        for method in Self.anyMethod where method != .head { router.on("/echo", method: method, use: echo) }
    }

    /// `Retry-After: N` from `?retry_after=N` (a whole number of seconds); 400 for another value.
    static func retryAfterHeader(_ request: Request) throws -> HTTPFields {
        guard let value = queryValue(request, "retry_after") else { return [:] }
        guard !value.isEmpty, value.count <= 9, value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber) else {
            throw HTTPError(.badRequest, message: "`retry_after` must be a whole number of seconds")
        }
        return [.retryAfter: value]
    }

    /// Reason phrases of the common status codes.
    static let reasonPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols", 102: "Processing", 103: "Early Hints",
        200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
        205: "Reset Content", 206: "Partial Content", 207: "Multi-Status",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 408: "Request Timeout", 409: "Conflict", 410: "Gone",
        411: "Length Required", 412: "Precondition Failed", 413: "Content Too Large", 414: "URI Too Long",
        415: "Unsupported Media Type", 416: "Range Not Satisfiable", 417: "Expectation Failed",
        418: "I'm a teapot", 421: "Misdirected Request", 422: "Unprocessable Content", 423: "Locked",
        425: "Too Early", 426: "Upgrade Required", 428: "Precondition Required", 429: "Too Many Requests",
        431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported", 507: "Insufficient Storage",
        511: "Network Authentication Required",
    ]
}
