import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL

/// The production transport, one per run: `http://` requests go through reqplan's own
/// HTTP/1.1 client (`HTTP1Client`), `https://` requests through one shared AsyncHTTPClient
/// (TLS verification, HTTP/2 through ALPN). Both pool connections and expire idle ones after the
/// same time, decompress, cap the response size, resend an idempotent request whose connection
/// closed before any of the response came, and get the same framing (`RequestFraming`), redirects
/// (here, one hop at a time), deadlines and failure wording (`TransportError.classify`).
public struct HTTPClientTransport: Transport {
    /// Settings, with documented defaults.
    public struct Configuration: Sendable {
        /// Verify TLS certificates (off only with `--insecure`).
        public var verifyCertificates = true
        /// The certificates trusted to sign servers' certificates, replacing the system's (and
        /// those `tls` names); nil: the system's, or `tls`'s.
        public var trustRoots: [NIOSSLCertificate]? {
            get {
                guard case .certificates(let certificates) = tls.trustRoots else { return nil }
                return certificates
            }
            set {
                tls.trustRoots = newValue.map { .certificates($0) } ?? .default
                tls.additionalTrustRoots = []
            }
        }
        /// Redirects followed before giving up.
        public var maxRedirects = 10
        /// Whether 3xx redirects are followed when the request does not say (`follow_redirects`);
        /// `--no-follow-redirects` turns it off.
        public var followRedirects = true
        /// The largest response body accepted, in bytes (default 64 MiB).
        public var maxBodySize = 64 << 20
        /// Time allowed to open a connection (`--connect-timeout`).
        public var connectTimeout: Duration = .seconds(10)
        /// The deadline of an attempt whose step sets no `timeout` (grammar.md §13.4): the whole
        /// exchange, the response body included. Nil: none.
        public var requestTimeout: Duration? = .seconds(60)
        /// How long a pooled connection may stay unused before it is closed (both clients;
        /// AsyncHTTPClient's own default).
        public var idleTimeout: Duration = .seconds(60)
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
                                                maxBodySize: min(configuration.maxBodySize, Int(UInt32.max)),
                                                connectionsPerHost: configuration.connectionsPerHost,
                                                idleTimeout: configuration.idleTimeout))
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
        let timeout = timeout ?? configuration.requestTimeout
        let deadline = timeout.map { NIODeadline.now() + TimeAmount($0) }
        let follow = request.followRedirects ?? configuration.followRedirects
        var current = request
        var visited: Set<String> = [request.url]
        var redirects = 0
        var setCookies: [HeaderField] = []
        while true {
            var response = try await sendOnce(addingCookies(to: current), deadline: deadline, timeout: timeout)
            takeCookies(from: response, of: current, into: &setCookies)
            guard follow, let next = Redirect.request(following: response, of: current) else {
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
        let proxy = proxy(for: request)
        guard request.url.hasPrefix("https://") else {
            return try await sendPlain(request, deadline: deadline, timeout: timeout, proxy: proxy)
        }
        return try await sendSecure(request, deadline: deadline, timeout: timeout, proxy: proxy)
    }

    /// What a failure of `request` is worded with (made only on failure: the host is parsed from the URL).
    func failureContext(_ request: PreparedRequest, timeout: Duration?) -> TransportError.Context {
        TransportError.Context(host: request.host, timeout: timeout, connectTimeout: configuration.connectTimeout,
                               limit: responseLimit)
    }

    /// The largest response body accepted (a `ByteBuffer` holds at most 4 GiB).
    var responseLimit: Int { min(configuration.maxBodySize, Int(UInt32.max)) }

    /// One request over AsyncHTTPClient. As `HTTP1Client` does for plain HTTP, a request whose
    /// connection closed before any of the response came goes again when its method is idempotent;
    /// a TLS failure is diagnosed (`TLSDiagnosis`) to name its cause.
    func sendSecure(_ request: PreparedRequest, deadline: NIODeadline?, timeout: Duration?, proxy: ProxyServer? = nil)
        async throws(TransportError) -> TransportResponse
    {
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headers.count + 1)
        try RequestFraming.add(request, to: &headers)
        var attemptsLeft = request.method.isIdempotent ? 3 : 1
        while true {
            attemptsLeft -= 1
            let collector = ResponseCollector(method: request.method, limit: responseLimit)
            do {
                return try await exchange(request, headers: headers, deadline: deadline, collector: collector,
                                          proxy: proxy)
            } catch {
                if let proxy,
                    let failure = await proxyFailure(error, proxy: proxy, request: request, deadline: deadline)
                {
                    throw failure
                }
                var failure = TransportError.classify(error, failureContext(request, timeout: timeout),
                                                      responseStarted: collector.responseStarted)
                if failure.kind == .cancelled, !Task.isCancelled {
                    // Not this task's cancellation: AsyncHTTPClient cancelled the request because its
                    // connection went away.
                    failure = collector.responseStarted ? .closedEarly(request.host) : .reset(request.host)
                }
                if failure.kind == .reset, !collector.responseStarted, attemptsLeft > 0, !Task.isCancelled { continue }
                guard TLSDiagnosis.isTLSFailure(error), let target = URL(string: request.url), let host = target.host
                else { throw failure }
                // The diagnosis shakes hands with the server directly, which a proxy may not allow.
                if proxy != nil { throw .tls(request.host, .unknown) }
                let cause = await TLSDiagnosis.cause(
                    of: error, host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")),
                    port: target.port ?? 443, configuration: tls.tlsConfiguration,
                    connectTimeout: TimeAmount(configuration.connectTimeout), deadline: deadline,
                    group: HTTPClient.defaultEventLoopGroup)
                throw .tls(request.host, cause)
            }
        }
    }

    /// One exchange over AsyncHTTPClient.
    private func exchange(_ request: PreparedRequest, headers: HTTPHeaders, deadline: NIODeadline?,
                         collector: ResponseCollector, proxy: ProxyServer?) async throws -> TransportResponse
    {
        let outgoing = try HTTPClient.Request(
            url: request.url, method: HTTPMethod(rawValue: request.method.rawValue), headers: headers,
            body: request.body.map { .bytes($0) })
        // The delegate API collects the body on the event loop and answers once, and its deadline
        // covers the whole response, body included: one hand-off per request instead of one per
        // body part, and no timer task racing the request.
        guard let client = tls.client(through: proxy) else { throw CancellationError() }
        let task = client.execute(request: outgoing, delegate: collector, deadline: deadline)
        return try await withTaskCancellationHandler {
            try await task.futureResult.get()
        } onCancel: {
            task.cancel()
        }
    }

    func sendPlain(_ request: PreparedRequest, deadline: NIODeadline?, timeout: Duration?, proxy: ProxyServer? = nil)
        async throws(TransportError) -> TransportResponse
    {
        guard let target = RequestTarget(request.url) else { throw .invalidURL(request.host) }
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.method.rawValue),
                                   uri: target.path)
        head.headers.reserveCapacity(request.headers.count + 2)
        if request.header("host") == nil { head.headers.add(name: "Host", value: target.hostHeader) }
        try RequestFraming.add(request, to: &head.headers)
        var outgoing = HTTP1Client.Request(endpoint: target.endpoint, head: head, body: request.body,
                                           idempotent: request.method.isIdempotent)
        if let proxy { Self.throughProxy(&outgoing, target: target, proxy: proxy) }
        do {
            let response = try await plain.execute(outgoing, deadline: deadline)
            return TransportResponse(status: Int(response.head.status.code),
                                     headers: response.head.headers.map { HeaderField($0.name, $0.value) },
                                     body: response.body)
        } catch {
            if let proxy, case .connect(let cause) = error {
                throw .proxyUnreachable(proxy, cause, connectTimeout: configuration.connectTimeout)
            }
            throw .classify(error, failureContext(request, timeout: timeout))
        }
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
    /// The TLS settings the client uses (before AsyncHTTPClient adds ALPN), for `TLSDiagnosis`.
    let tlsConfiguration: TLSConfiguration
    private let state = NIOLockedValueBox(State())

    init(_ settings: HTTPClientTransport.Configuration) {
        var tls = TLSConfiguration.makeClientConfiguration()
        settings.tls.apply(to: &tls)
        if !settings.verifyCertificates {
            tls.certificateVerification = .none
            // NIOSSL reads additional roots when it makes its context, verifying or not.
            tls.additionalTrustRoots = []
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .disallow,  // followed in `HTTPClientTransport.send`, for both clients alike
            timeout: .init(connect: TimeAmount(settings.connectTimeout)),
            decompression: .enabled(limit: .ratio(100)))
        configuration.connectionPool.idleTimeout = TimeAmount(settings.idleTimeout)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = settings.connectionsPerHost
        // The executor retries by policy; a refused connection must fail at once, not after the connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.httpVersion = .automatic
        // No distributed tracing: a span per request costs about 5 % of a small request's CPU.
        configuration.tracing.tracer = nil
        self.configuration = configuration
        self.tlsConfiguration = tls
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
            let authorization = proxy.username.map {
                HTTPClient.Authorization.basic(username: $0, password: proxy.password ?? "")
            }
            configuration.proxy = .server(host: proxy.host, port: proxy.port, authorization: authorization)
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
