import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import ReqPlanTransport

/// The production transport, one per run. Its requests, `http://` and `https://` alike, go through
/// reqplan's own client (`ReqPlanClient`: HTTP/1.1, and HTTP/2 over TLS when the server offers it),
/// or through AsyncHTTPClient when the run asks for it (`--http-client asynchttpclient`: the library
/// path, which the shared transport suites hold reqplan's client to). Both pool connections and
/// expire idle ones after the same time, decompress, cap the response size, resend an idempotent
/// request whose connection closed before any of the response came, and get the same framing
/// (`RequestFraming`), redirects (here, one hop at a time), cookies, proxies, deadlines, TLS
/// settings and failure wording (`TransportError.classify`, `TLSDiagnosis`).
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
        /// Connections kept per host; nil: `defaultConnectionsPerHost`, or, when a plan runs, as many as
        /// its largest concurrency limit asks, at least 8 (`PlanRun.sizingConnections`).
        public var connectionsPerHost: Int?

        /// Connections kept per host when nothing says otherwise.
        public static let defaultConnectionsPerHost = 64
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
        /// Which HTTP client sends the requests (`--http-client`); reqplan's own by default.
        public var client = Client.reqplan
        /// Whether HTTP/2 is offered to `https://` servers (ALPN `h2`, then `http/1.1`); false:
        /// HTTP/1.1 only, as `curl --http1.1`. Plain `http://` is always HTTP/1.1.
        public var offersHTTP2 = true
        /// Whether each event loop keeps a pool of its own (`reqplan load`): a request sent from an event loop's
        /// thread goes on that loop's connections, so an HTTP/2 server gets a connection per loop and every core
        /// carries streams, as h2load's `-c` does. The connections per host are shared out among the loops; with
        /// fewer than there are loops, or false, one pool serves them all (one HTTP/2 connection per host).
        public var poolPerEventLoop = false
        /// How many of the event loops reqplan's own client sends from (`reqplan load --threads`), each with a pool
        /// of its own and its share of the connections; nil: all of them (`eventLoopCount`).
        public var eventLoops: Int?
        /// How failure messages name the settings that fix them (`--cacert`, `--insecure` on the
        /// command line); `apply(_:environment:)` takes them from its options.
        public var settingNames = ConnectionOptions.SettingNames()

        public init() {}
    }

    /// The HTTP clients a run can send its requests with; they behave alike (the transport tests
    /// run over both).
    public enum Client: String, Sendable, CaseIterable {
        /// reqplan's own client over SwiftNIO: HTTP/1.1, and HTTP/2 over TLS (the default; about half
        /// the CPU per request).
        case reqplan
        /// AsyncHTTPClient: the library path, a fallback should reqplan's client misbehave against
        /// some server.
        case asyncHTTPClient = "asynchttpclient"
    }

    /// reqplan's own clients: one, or one per event loop (`Configuration.poolPerEventLoop`).
    let clients: OwnClients
    /// reqplan's own client (also used by the AsyncHTTPClient path to ask a proxy why it refused `CONNECT`): the
    /// pool of the event loop this runs on, when each loop has its own.
    var own: ReqPlanClient { clients.current }
    /// AsyncHTTPClient, made on first use, when the run chose it.
    let library: AsyncHTTPClientPath
    package let configuration: Configuration

    /// Runs `body` with a transport whose clients are shut down when `body` returns, in every path.
    public static func with<Result: Sendable>(
        _ configuration: Configuration, _ body: (HTTPClientTransport) async throws -> Result
    ) async throws -> Result {
        let clients = OwnClients(
            settings: .init(
                connectTimeout: configuration.connectTimeout,
                maxBodySize: min(configuration.maxBodySize, Int(UInt32.max)),
                connectionsPerHost: configuration.connectionsPerHost ?? Configuration.defaultConnectionsPerHost,
                idleTimeout: configuration.idleTimeout,
                tls: configuration.tlsConfiguration,
                offersHTTP2: configuration.offersHTTP2),
            perLoop: configuration.poolPerEventLoop, loops: configuration.eventLoops)
        let transport = HTTPClientTransport(
            clients: clients, library: AsyncHTTPClientPath(configuration),
            configuration: configuration)
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
        for client in clients.all { await client.shutdown() }
        await library.shutdown()
    }

    public func send(_ request: PreparedRequest, timeout: Duration?) async throws(TransportError) -> TransportResponse {
        let timeout = timeout ?? configuration.requestTimeout
        let deadline = timeout.map { NIODeadline.now() + TimeAmount($0) }
        return try await hops.send(request) { hop async throws(TransportError) in
            try await sendOnce(hop, deadline: deadline, timeout: timeout)
        }
    }

    /// The cookies and redirects around each hop, as every transport has them.
    var hops: RequestHops {
        RequestHops(
            followRedirects: configuration.followRedirects, maxRedirects: configuration.maxRedirects,
            cookies: configuration.cookies, secrets: configuration.secrets)
    }

    /// One request, no redirects followed, through the run's client.
    func sendOnce(_ request: PreparedRequest, deadline: NIODeadline?, timeout: Duration?)
        async throws(TransportError) -> TransportResponse
    {
        let proxy = proxy(for: request)
        switch configuration.client {
        case .reqplan:
            return try await sendWithOwnClient(request, deadline: deadline, timeout: timeout, proxy: proxy)
        case .asyncHTTPClient:
            // AsyncHTTPClient tunnels every proxied request through CONNECT, plain HTTP included,
            // which proxies commonly refuse for port 80: plain HTTP through a proxy goes in absolute
            // form (as curl sends it), through reqplan's client.
            if let proxy, !request.url.isHTTPS {
                return try await sendWithOwnClient(request, deadline: deadline, timeout: timeout, proxy: proxy)
            }
            return try await sendWithAsyncHTTPClient(request, deadline: deadline, timeout: timeout, proxy: proxy)
        }
    }

    /// What a failure of `request` is worded with (made only on failure: the host is parsed from the URL).
    func failureContext(_ request: PreparedRequest, timeout: Duration?) -> TransportError.Context {
        TransportError.Context(
            host: request.host, timeout: timeout, connectTimeout: configuration.connectTimeout,
            limit: responseLimit)
    }

    /// The largest response body accepted (a `ByteBuffer` holds at most 4 GiB).
    var responseLimit: Int { min(configuration.maxBodySize, Int(UInt32.max)) }

    /// One request through `ReqPlanClient`.
    func sendWithOwnClient(
        _ request: PreparedRequest, deadline: NIODeadline?, timeout: Duration?,
        proxy: ProxyServer? = nil
    ) async throws(TransportError) -> TransportResponse {
        let url = request.url
        var outgoing = try ownClientRequest(request)
        if let proxy { Self.throughProxy(&outgoing, url: url, proxy: proxy) }
        do {
            return Self.transportResponse(try await own.execute(outgoing, deadline: deadline))
        } catch {
            throw await ownClientFailure(error, of: request, deadline: deadline, timeout: timeout, proxy: proxy)
        }
    }

    /// A failure of reqplan's client in sending `request`, worded as the transport words it: through a proxy, as
    /// the proxy's; a TLS failure diagnosed by a handshake of its own; a reset over TLS as `diagnosingReset`
    /// says. `sendWithOwnClient` and `reqplan load`'s repeater (`OwnClientRepeater`) both word theirs here.
    func ownClientFailure(
        _ error: ReqPlanClient.ClientError, of request: PreparedRequest, deadline: NIODeadline?, timeout: Duration?,
        proxy: ProxyServer?
    ) async -> TransportError {
        let url = request.url
        if let proxy, let failure = proxyFailure(error, proxy: proxy, url: url) { return failure }
        switch error {
        case .tls(let cause) where TLSDiagnosis.isTLSFailure(cause):
            // The diagnosis shakes hands with the server directly, which a proxy may not allow.
            if proxy != nil { return .tls(request.host, .unknown) }
            return await .tls(
                request.host, diagnose(cause, host: url.host, port: url.port, deadline: deadline),
                names: configuration.settingNames)
        default:
            let failure = TransportError.classify(error, failureContext(request, timeout: timeout))
            guard proxy == nil else { return failure }
            return await diagnosingReset(failure, url: url, host: request.host, deadline: deadline)
        }
    }

    /// `request` as reqplan's client sends it: its head as `RequestFraming.head` has it (`Host`, the framing
    /// and `Accept-Encoding`), which is also what every output shows.
    func ownClientRequest(_ request: PreparedRequest) throws(TransportError) -> ReqPlanClient.Request {
        let url = request.url
        var head = HTTPRequestHead(
            version: .http1_1, method: HTTPMethod(rawValue: request.method.rawValue), uri: url.target)
        head.headers.reserveCapacity(request.headers.count + 3)
        try RequestFraming.head(request) { head.headers.add(name: $0, value: $1) }
        return ReqPlanClient.Request(
            endpoint: ReqPlanClient.Endpoint(host: url.host, port: url.port, tls: url.isHTTPS), head: head,
            body: request.body,
            idempotent: request.method.isIdempotent, keep: request.keepsResponseBody ?? .max)
    }

    /// `headers` as the transport gives them, in order.
    static func headerFields(_ headers: HTTPHeaders) -> [HeaderField] {
        headers.map { HeaderField($0.name, $0.value) }
    }

    /// A response of reqplan's client as the transport gives it; `headers`, when given, are its head's, made
    /// already.
    static func transportResponse(_ response: ReqPlanClient.Response, headers: [HeaderField]? = nil)
        -> TransportResponse
    {
        var transported = TransportResponse(
            status: Int(response.head.status.code),
            headers: headers ?? headerFields(response.head.headers),
            body: response.body, size: response.size)
        // The usual versions' names are made once, not per response (a load reads millions).
        transported.httpVersion =
            switch response.head.version {
            case .http1_1: "HTTP/1.1"
            case .http2: "HTTP/2.0"
            case .http1_0: "HTTP/1.0"
            case let version: "HTTP/\(version.major).\(version.minor)"
            }
        let phases = response.phases
        // The hop's start and total are the transport's (`RequestHops`); the phases the client's.
        transported.timing = ExchangeTiming(
            start: .now, total: .zero,
            phases: ExchangeTiming.Phases(
                blocked: Duration(phases.blocked), connect: phases.connect.map(Duration.init),
                tls: phases.tls.map(Duration.init), send: Duration(phases.send), wait: Duration(phases.wait),
                receive: Duration(phases.receive)))
        return transported
    }

    /// `failure`, or what TLS says it was: a TLS 1.3 server checks a client certificate only after the
    /// handshake, then sends an alert and closes, and when the request was already on its way the close
    /// can reach the client as a reset before the alert is read (the kernel drops what was unread). So a
    /// connection over TLS that was reset or closed before any of the response came is diagnosed as a TLS
    /// failure is (`TLSDiagnosis`, by handshakes, not by that alert): when the server wants a client
    /// certificate, or refuses the one given, that is the failure; otherwise it stays a reset.
    func diagnosingReset(_ failure: TransportError, url: RequestURL, host: String, deadline: NIODeadline?) async
        -> TransportError
    {
        guard url.isHTTPS, failure.kind == .reset else { return failure }
        let cause = await diagnose(
            NIOSSLError.uncleanShutdown, host: url.host, port: url.port, deadline: deadline)
        switch cause {
        case .clientCertificateWanted, .clientCertificateRefused:
            return .tls(host, cause, names: configuration.settingNames)
        default:
            return failure
        }
    }

    /// Why a TLS connection to `host`:`port` failed with `error`, found by shaking hands again.
    func diagnose(_ error: any Error, host: String, port: Int, deadline: NIODeadline?) async -> TLSDiagnosis.Cause {
        await TLSDiagnosis.cause(
            of: error, host: host, port: port, configuration: configuration.tlsConfiguration,
            connectTimeout: TimeAmount(configuration.connectTimeout), deadline: deadline, group: own.group)
    }
}

extension Duration {
    /// A SwiftNIO time amount as a duration.
    init(_ amount: TimeAmount) {
        self = .nanoseconds(amount.nanoseconds)
    }
}

extension TimeAmount {
    /// A duration as SwiftNIO's time amount, to the millisecond.
    init(_ duration: Duration) {
        self = .milliseconds(duration.milliseconds)
    }
}

extension HTTPClientTransport {
    /// The event loops reqplan's own client can send from (`Configuration.eventLoops`): SwiftNIO's singleton
    /// group's, one per core unless `NIO_SINGLETON_GROUP_LOOP_COUNT` says otherwise.
    public static var eventLoopCount: Int { Array(MultiThreadedEventLoopGroup.singleton.makeIterator()).count }

    /// Connections reqplan's own client has opened so far (those of AsyncHTTPClient are not counted).
    package var connectionsOpened: UInt64 { clients.all.reduce(0) { $0 + $1.opened.load(ordering: .relaxed) } }

    /// A task executor for each event loop of reqplan's own client: a task that prefers one sends its
    /// requests from that loop's thread, on connections of that loop (`EventLoopTaskExecutor`). None for
    /// AsyncHTTPClient, whose pool picks its own loops.
    package var taskExecutors: [any TaskExecutor] {
        configuration.client == .reqplan ? clients.all.flatMap(\.taskExecutors) : []
    }

    /// This transport's clients and connection pools, with a cookie jar of its own: the plans of a
    /// suite share connections, not cookies. With `secrets`, the secrets it learns (cookies received on
    /// redirects) go there: each iteration of a load keeps its own, so they do not pile up over millions.
    package func sharingConnections(cookies: CookieJar, secrets: SecretStore? = nil) -> HTTPClientTransport {
        var settings = configuration
        settings.cookies = cookies
        if let secrets { settings.secrets = secrets }
        return HTTPClientTransport(clients: clients, library: library, configuration: settings)
    }
}

/// reqplan's own client of a transport: one over every event loop, or one per event loop (each with its share of
/// the connections per host), chosen by the thread a request is sent from.
struct OwnClients: Sendable {
    /// The clients; with more than one, the `n`th has the group's `n`th loop alone.
    let all: [ReqPlanClient]

    /// One client over the singleton group's loops; with `perLoop`, one per loop, when the connections per host
    /// are enough for a share each (at least one). With `limit`, fewer than all the loops, only the first `limit`
    /// (at most one per connection) serve, one client each: a client over some of the group's loops would need a
    /// group of its own.
    init(settings: ReqPlanClient.Settings, perLoop: Bool, loops limit: Int? = nil) {
        let group = MultiThreadedEventLoopGroup.singleton
        let every = Array(group.makeIterator())
        let loops: [any EventLoop]
        if let limit, limit < every.count {
            loops = Array(every.prefix(max(1, min(limit, settings.connectionsPerHost))))
        } else if perLoop, every.count > 1, settings.connectionsPerHost >= every.count {
            loops = every
        } else {
            all = [ReqPlanClient(settings: settings, group: group)]
            return
        }
        let total = settings.connectionsPerHost
        all = loops.enumerated().map { index, loop in
            var share = settings
            share.connectionsPerHost = total / loops.count + (index < total % loops.count ? 1 : 0)
            return ReqPlanClient(settings: share, group: loop)
        }
    }

    /// The client of the event loop this runs on, else the first.
    var current: ReqPlanClient {
        guard all.count > 1, let loop = MultiThreadedEventLoopGroup.currentEventLoop else { return all[0] }
        return all.first { $0.group === loop } ?? all[0]
    }
}
