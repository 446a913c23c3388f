import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL

/// The production transport, one per run: `http://` requests go through reqplan's own
/// HTTP/1.1 client (`HTTP1Client`), `https://` requests through one shared AsyncHTTPClient
/// (TLS verification, HTTP/2 through ALPN). Both pool connections, decompress, cap the
/// response size, and follow redirects the same way (here, one hop at a time).
public struct HTTPClientTransport: Transport {
    /// Settings, with documented defaults.
    public struct Configuration: Sendable {
        /// Verify TLS certificates (off only with `--insecure`).
        public var verifyCertificates = true
        /// Redirects followed before giving up.
        public var maxRedirects = 10
        /// The largest response body accepted, in bytes (default 64 MiB).
        public var maxBodySize = 64 << 20
        /// Time allowed to open a connection.
        public var connectTimeout: Duration = .seconds(10)
        /// Connections kept per host (raise with the plan's concurrency).
        public var connectionsPerHost = 64
        /// Where the transport records secrets it learns (cookie values, proxy and URL credentials),
        /// so every output hides them; the run's `RunConfiguration.secrets`.
        public var secrets = SecretStore()
        /// The run's cookie jar: `Set-Cookie` stored and sent back (`--cookie-jar` loads and saves it).
        public var cookies = CookieJar()
        /// Proxies (`--proxy`, `--noproxy`, `HTTP_PROXY`…); none by default.
        public var proxies = ProxySettings()
        /// Trust roots and client certificate (`--cacert`, `--cert`, `--key`, `SSL_CERT_FILE`…);
        /// the system's roots and no client certificate by default.
        public var tls = TLSSettings()

        public init() {}
    }

    let tls: TLSClient
    let plain: HTTP1Client
    let configuration: Configuration

    /// Runs `body` with a transport whose clients are shut down when `body` returns, in every path.
    public static func with<Result: Sendable>(
        _ configuration: Configuration, _ body: (HTTPClientTransport) async throws -> Result
    ) async throws -> Result {
        let plain = HTTP1Client(settings: .init(connectTimeout: configuration.connectTimeout,
                                                maxBodySize: configuration.maxBodySize,
                                                connectionsPerHost: configuration.connectionsPerHost))
        let transport = HTTPClientTransport(tls: TLSClient(configuration), plain: plain, configuration: configuration)
        do {
            let result = try await body(transport)
            await transport.shutdown()
            return result
        } catch {
            await transport.shutdown()
            throw error
        }
    }

    func shutdown() async {
        await plain.shutdown()
        await tls.shutdown()
    }

    public func send(_ request: PreparedRequest, timeout: Duration?) async throws(TransportError) -> TransportResponse {
        let deadline = timeout.map { NIODeadline.now() + TimeAmount($0) }
        var current = request
        var visited: Set<String> = [request.url]
        var redirects = 0
        var setCookies: [HeaderField] = []
        while true {
            var response = try await sendOnce(addingCookies(to: current), deadline: deadline, timeout: timeout)
            takeCookies(from: response, of: current, into: &setCookies)
            guard let next = Redirect.request(following: response, of: current) else {
                response.setCookies = setCookies
                return response
            }
            redirects += 1
            guard redirects <= configuration.maxRedirects else {
                throw TransportError(.other, "too many redirects from \(request.host) (more than \(configuration.maxRedirects))")
            }
            guard visited.insert(next.url).inserted else {
                throw TransportError(.other, "too many redirects from \(request.host) (\(next.url) redirects back to itself)")
            }
            current = next
        }
    }

    /// One request, no redirects followed: plain HTTP through `HTTP1Client`, TLS through AsyncHTTPClient.
    func sendOnce(_ request: PreparedRequest, deadline: NIODeadline?, timeout: Duration?)
        async throws(TransportError) -> TransportResponse
    {
        let limit = min(configuration.maxBodySize, Int(UInt32.max))
        let proxy = proxy(for: request)
        guard request.url.hasPrefix("https://") else {
            return try await sendPlain(request, deadline: deadline, timeout: timeout, limit: limit, proxy: proxy)
        }
        do {
            var headers = HTTPHeaders()
            for header in request.headers { headers.add(name: header.name, value: header.value) }
            let outgoing = try HTTPClient.Request(
                url: request.url, method: HTTPMethod(rawValue: request.method.rawValue), headers: headers,
                body: request.body.map { .bytes($0) })
            // The delegate API collects the body on the event loop and answers once, and its deadline
            // covers the whole response, body included: one hand-off per request instead of one per
            // body part, and no timer task racing the request.
            guard let client = tls.client(through: proxy) else { throw CancellationError() }
            let task = client.execute(
                request: outgoing, delegate: ResponseAccumulator(request: outgoing, maxBodySize: limit),
                deadline: deadline)
            let response = try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
            return TransportResponse(
                status: Int(response.status.code),
                headers: response.headers.map { HeaderField($0.name, $0.value) },
                body: response.body.map { Array($0.readableBytesView) } ?? [])
        } catch {
            if let proxy, let failure = await proxyFailure(error, proxy: proxy, request: request, deadline: deadline) {
                throw failure
            }
            throw Self.classify(error, host: request.host, timeout: timeout, limit: limit)
        }
    }

    func sendPlain(_ request: PreparedRequest, deadline: NIODeadline?, timeout: Duration?, limit: Int,
                   proxy: ProxyServer? = nil) async throws(TransportError) -> TransportResponse
    {
        guard let target = RequestTarget(request.url) else {
            throw TransportError(.other, "invalid URL for \(request.host)")
        }
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.method.rawValue),
                                   uri: target.path)
        head.headers.reserveCapacity(request.headers.count + 3)
        if request.header("host") == nil { head.headers.add(name: "Host", value: target.hostHeader) }
        for header in request.headers { head.headers.add(name: header.name, value: header.value) }
        if let body = request.body {
            head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
        } else if [.POST, .PUT, .PATCH].contains(request.method) {
            head.headers.replaceOrAdd(name: "Content-Length", value: "0")
        }
        var outgoing = HTTP1Client.Request(endpoint: target.endpoint, head: head, body: request.body,
                                           idempotent: request.method.isIdempotent)
        if let proxy { Self.throughProxy(&outgoing, target: target, proxy: proxy) }
        do {
            let response = try await plain.execute(outgoing, deadline: deadline)
            return TransportResponse(status: Int(response.head.status.code),
                                     headers: response.head.headers.map { HeaderField($0.name, $0.value) },
                                     body: response.body)
        } catch {
            let host = request.host
            switch error {
            case .connect(let message): throw TransportError(.connect, message)
            case .timeout: throw .timedOut(host, after: timeout)
            case .cancelled: throw .cancelled
            case .closed(let early): throw early ? .reset(host) : .closedEarly(host)
            case .tooLarge: throw .tooLarge(host, limit: limit)
            case .other(let message): throw .failed(host, message)
            }
        }
    }

    /// Names the cause the way a person would: refused, reset, timed out, TLS.
    static func classify(_ error: any Error, host: String, timeout: Duration?, limit: Int) -> TransportError {
        if error is CancellationError { return .cancelled }
        if error is NIOTooManyBytesError || error is ResponseAccumulator.ResponseTooBigError {
            return .tooLarge(host, limit: limit)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return .cancelled
            case .deadlineExceeded, .readTimeout, .writeTimeout: return .timedOut(host, after: timeout)
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return TransportError(.connect, "connecting to \(host) timed out")
            case .remoteConnectionClosed: return .closedEarly(host)
            case .tlsHandshakeTimeout:
                return TransportError(.tls, "TLS handshake with \(host) timed out")
            case .invalidURL, .emptyHost, .emptyScheme:
                return TransportError(.other, "invalid URL for \(host)")
            default: return .failed(host, "\(error)")
            }
        }
        if let error = error as? NIOSSLError {
            return TransportError(.tls, "TLS with \(host) failed: \(error)")
        }
        if error is NIOSSLExtraError {
            return TransportError(.tls, "TLS with \(host) failed: \(error)")
        }
        let text = "\(error)"
        if text.contains("refused") || text.contains("ECONNREFUSED") || text.contains("connect") {
            return TransportError(.connect, "connection to \(host) refused")
        }
        if text.contains("reset") || text.contains("ECONNRESET") || text.contains("EOF")
            || text.contains("unexpected time") || text.contains("closed")
        {
            return .reset(host)
        }
        if text.contains("certificate") || text.contains("SSL") || text.contains("TLS") {
            return TransportError(.tls, "TLS with \(host) failed: \(text)")
        }
        return .failed(host, text)
    }

    static func format(_ duration: Duration) -> String {
        let milliseconds = duration.milliseconds
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    }
}

/// The causes both clients share, worded once.
extension TransportError {
    static let cancelled = TransportError(.cancelled, "cancelled")

    static func timedOut(_ host: String, after timeout: Duration?) -> TransportError {
        TransportError(.timeout, "request to \(host) timed out" + (timeout.map { " after \(HTTPClientTransport.format($0))" } ?? ""))
    }

    static func tooLarge(_ host: String, limit: Int) -> TransportError {
        TransportError(.bodyTooLarge, "the response from \(host) is larger than \(limit) bytes")
    }

    static func reset(_ host: String) -> TransportError {
        TransportError(.reset, "connection to \(host) was reset")
    }

    static func closedEarly(_ host: String) -> TransportError {
        TransportError(.reset, "connection to \(host) was closed before the response ended")
    }

    static func failed(_ host: String, _ detail: String) -> TransportError {
        TransportError(.other, "request to \(host) failed: \(detail)")
    }
}

extension TimeAmount {
    /// A duration as SwiftNIO's time amount, to the millisecond.
    init(_ duration: Duration) {
        self = .milliseconds(duration.milliseconds)
    }
}

/// AsyncHTTPClient, for `https://`: made on the first such request, so a run that only speaks
/// plain HTTP never starts (or stops) it.
final class TLSClient: Sendable {
    private struct State {
        /// The client for direct requests, once made.
        var direct: HTTPClient?
        /// A client per proxy (AsyncHTTPClient takes its proxy in its configuration), once made.
        var proxied: [ProxyServer: HTTPClient] = [:]
        /// After shutdown, when no new client is made.
        var closed = false
    }

    private let configuration: HTTPClient.Configuration
    private let state = NIOLockedValueBox(State())

    init(_ settings: HTTPClientTransport.Configuration) {
        var tls = TLSConfiguration.makeClientConfiguration()
        settings.tls.apply(to: &tls)
        if !settings.verifyCertificates { tls.certificateVerification = .none }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .disallow,  // followed in `HTTPClientTransport.send`, for both clients alike
            timeout: .init(connect: TimeAmount(settings.connectTimeout)),
            decompression: .enabled(limit: .ratio(100)))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = settings.connectionsPerHost
        // The executor retries by policy; a refused connection must fail at once, not after the connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.httpVersion = .automatic
        // No distributed tracing: a span per request costs about 5 % of a small request's CPU.
        configuration.tracing.tracer = nil
        self.configuration = configuration
    }

    /// The client for requests through `proxy` (nil: direct), made on first use; nil after `shutdown()`.
    func client(through proxy: ProxyServer? = nil) -> HTTPClient? {
        state.withLockedValue { state in
            if state.closed { return nil }
            guard let proxy else {
                if let client = state.direct { return client }
                let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
                state.direct = client
                return client
            }
            if let client = state.proxied[proxy] { return client }
            var configuration = configuration
            configuration.proxy = .server(host: proxy.host, port: proxy.port,
                                          authorization: proxy.username.map { .basic(username: $0, password: proxy.password ?? "") })
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            state.proxied[proxy] = client
            return client
        }
    }

    func shutdown() async {
        let clients = state.withLockedValue { state in
            state.closed = true
            return [state.direct].compactMap { $0 } + state.proxied.values
        }
        for client in clients { try? await client.shutdown() }
    }
}
