import Synchronization
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import ReqPlanTransport

/// reqplan's own HTTP client, for `http://` and `https://`: a connection pool per endpoint over
/// SwiftNIO, HTTP/1.1 (one exchange per connection at a time) or HTTP/2 over TLS when the server
/// chooses it through ALPN (one connection carrying every exchange, a stream each).
///
/// It is made of SwiftNIO's libraries, not hand-written protocol code: NIOHTTP1's codec,
/// NIOHTTPCompression's decompressor (added when a response is compressed), NIOSSL's `NIOSSLClientHandler`, NIOHTTP2's handler and stream
/// multiplexer with `HTTP2FramePayloadToHTTP1ClientCodec` (so one `ExchangeHandler` serves both
/// versions), and swift-nio-extras' `NIOHTTP1ProxyConnectHandler` for `CONNECT` tunnels. It exists
/// for speed: it takes about half the CPU of AsyncHTTPClient per request (BENCHMARKS.md, "One
/// client"), which stays as the library path (`HTTPClientTransport.Configuration.client`) that the
/// shared transport suites hold this one to. Redirects, framing, cookies and failure wording live
/// one level up, in `HTTPClientTransport`, so both paths share them.
final class ReqPlanClient: Sendable {
    struct Settings: Sendable {
        var connectTimeout: Duration
        var maxBodySize: Int
        var connectionsPerHost: Int
        /// How long a kept-alive connection may stay unused before it is closed.
        var idleTimeout: Duration = .seconds(60)
        /// The run's TLS settings (trust roots, client certificate, verification), before ALPN.
        var tls: TLSConfiguration = .makeClientConfiguration()
        /// Whether HTTP/2 is offered over TLS (ALPN `h2` before `http/1.1`).
        var offersHTTP2 = true
    }

    /// Where a connection goes: the host as it is resolved (no brackets), the port, whether TLS
    /// is spoken, and the proxy a TLS connection is tunnelled through (`CONNECT`), if any.
    struct Endpoint: Hashable, Sendable {
        var host: String
        var port: Int
        var tls = false
        var tunnel: ProxyServer? = nil
    }

    /// One request, ready for the wire.
    struct Request: Sendable {
        var endpoint: Endpoint
        var head: HTTPRequestHead
        var body: [UInt8]?
        /// May go again when a kept-alive connection turns out closed.
        var idempotent: Bool
        /// How many bytes of the response body to keep (the rest is counted, not held).
        var keep = Int.max
        /// Sent to a forward proxy: its connection is kept only when the response says
        /// `Connection: keep-alive` (tinyproxy, like many proxies, closes it after each response
        /// without saying so, and a POST on such a connection would fail).
        var viaProxy = false
    }

    struct Response: Sendable {
        var head: HTTPResponseHead
        /// The body, or its first `Request.keep` bytes.
        var body: [UInt8]
        /// The whole body's size.
        var size: Int
        /// Whether the connection stays open after it: NIO's `isKeepAlive` of the head, known without reading the
        /// head again for a response `CommonResponseDecoder` read.
        var keepAlive: Bool
        /// How long the exchange's phases took (HAR's `timings`); `execute` adds the connection's.
        var phases = Phases()
        /// The head's number on its HTTP/1.1 connection when reqplan's decoder read it: two responses of a
        /// connection with the same number have the same head, byte for byte (`CommonHeadFacts.id`).
        var commonHead: UInt64?
    }

    /// The phases of one exchange, as SwiftNIO's time amounts.
    struct Phases: Sendable {
        var blocked = TimeAmount.zero
        /// Nil when the connection was reused.
        var connect: TimeAmount?
        var tls: TimeAmount?
        var send = TimeAmount.zero
        var wait = TimeAmount.zero
        var receive = TimeAmount.zero
    }

    /// Why an exchange ended without a response; `HTTPClientTransport` words it for people.
    enum ClientError: Error, Sendable {
        /// The connection (to the server, or to the proxy) could not be made; SwiftNIO's error says
        /// why (refused, DNS, timed out).
        case connect(any Error)
        /// The TLS handshake failed; NIOSSL's error (`TLSDiagnosis` names the cause).
        case tls(any Error)
        /// The TLS handshake did not end within the connect timeout.
        case tlsHandshakeTimeout
        /// The proxy answered `CONNECT` with this status instead of opening a tunnel.
        case proxyRefused(status: Int)
        /// The proxy did not answer `CONNECT` (or closed the connection) within the connect timeout.
        case proxyHandshakeFailed(timedOut: Bool)
        case timeout
        case cancelled
        /// The connection closed before the response ended; `early` when not one byte of it came.
        case closed(early: Bool)
        /// The server did not process the request, whatever its method: it was never written (the
        /// connection died first), or an HTTP/2 server refused its stream (`REFUSED_STREAM`, or a
        /// `GOAWAY` whose last stream is below it).
        case unprocessed
        case tooLarge
        /// The response could not be read (not valid HTTP, not decompressible) or the request not
        /// written; the codec's error says which.
        case invalid(any Error)

        /// Whether a request that failed so goes again on another connection: one the server did not process,
        /// whatever its method, and an idempotent one whose kept-alive (`reused`) connection closed before any
        /// byte of the response came. Anything else: the server may have acted on it.
        func goesAgain(onReused reused: Bool, idempotent: Bool) -> Bool {
            switch self {
            case .unprocessed: true
            case .closed(early: true): reused && idempotent
            default: false
            }
        }

        /// `error` itself when it is one, else `.invalid(error)`.
        init(_ error: any Error) {
            self = error as? ClientError ?? .invalid(error)
        }
    }

    let settings: Settings
    let group: any EventLoopGroup
    let pool = NIOLockedValueBox(Pool())
    /// Connections opened so far (TCP, with TLS where the URL asks), for `reqplan load`'s figures.
    let opened = Atomic<UInt64>(0)
    /// The TLS context every TLS connection shares, made at the first one (reading the trust roots).
    private let tlsContext = NIOLockedValueBox<NIOSSLContext?>(nil)

    init(settings: Settings, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.settings = settings
        self.group = group
    }

    /// A task executor for each event loop of the client's group, for work that should run beside its
    /// connections (`EventLoopTaskExecutor`).
    var taskExecutors: [any TaskExecutor] {
        group.makeIterator().map { EventLoopTaskExecutor($0) }
    }

    /// Closes every idle connection; connections in use close when their exchange ends.
    func shutdown() async {
        let (channels, waiters) = pool.withLockedValue { $0.shutDown() }
        for waiter in waiters { waiter.resume(.failure(ClientError.cancelled)) }
        // All at once: one wait, not one per connection.
        let closed = channels.map { channel in
            let promise = channel.eventLoop.makePromise(of: Void.self)
            channel.close(promise: promise)
            return promise.futureResult
        }
        guard let loop = channels.first?.eventLoop else { return }
        try? await EventLoopFuture.andAllComplete(closed, on: loop).get()
    }

    /// Sends one request and reads its whole response by `deadline`.
    func execute(_ request: Request, deadline: NIODeadline?) async throws(ClientError) -> Response {
        // A kept-alive connection the server closes just as a request goes out on it fails
        // before any byte of the response arrives; an idempotent request then goes again on
        // another connection (as browsers and curl do). A request the server did not process
        // goes again whatever its method. Anything else fails: the server may have acted on it.
        var attemptsLeft = 3
        let start = NIODeadline.now()
        while true {
            attemptsLeft -= 1
            let (connection, reused, opening) = try await acquire(request.endpoint, deadline: deadline)
            // Waiting for a connection, before this try's (the time spent opening one is its own phase).
            let blocked = NIODeadline.now() - start - (opening?.connect ?? .zero)
            do throws(ClientError) {
                var response: Response
                switch connection {
                case .http1(let connection):
                    do throws(ClientError) {
                        response = try await exchange(on: connection, request, deadline: deadline)
                        let reusable = request.viaProxy ? response.head.announcesKeepAlive : response.keepAlive
                        release(connection, of: request.endpoint, reusable: reusable)
                    } catch {
                        release(connection, of: request.endpoint, reusable: false)
                        throw error
                    }
                case .http2(let connection):
                    defer {
                        pool.withLockedValue { $0.streamEnded(on: connection, of: request.endpoint) }?
                            .resume(.success(.stream(connection)))
                    }
                    response = try await connection.exchange(request, deadline: deadline)
                }
                response.phases.blocked = blocked
                response.phases.connect = opening?.connect
                response.phases.tls = opening?.tls
                return response
            } catch {
                switch error {
                case _ where attemptsLeft > 0 && error.goesAgain(onReused: reused, idempotent: request.idempotent):
                    continue
                case .unprocessed:
                    throw .closed(early: true)
                default:
                    throw error
                }
            }
        }
    }

    // MARK: - One HTTP/1.1 exchange

    private func exchange(on connection: HTTP1Connection, _ request: Request, deadline: NIODeadline?)
        async throws(ClientError) -> Response
    {
        let channel = connection.channel
        let promise = channel.eventLoop.makePromise(of: Response.self)
        let exchange = Exchange(
            head: request.head, body: request.body.map { ByteBuffer(bytes: $0) },
            deadline: deadline, keep: request.keep, promise: promise)
        // A write to a channel that closed meanwhile never reaches the handler: nothing was sent,
        // unless TLS failed after the handshake (a TLS 1.3 server checks a client certificate then).
        channel.writeAndFlush(exchange).whenFailure { [handler = connection.handler] _ in
            promise.fail(handler.value.tlsFailure.map(ClientError.tls) ?? ClientError.unprocessed)
        }
        do {
            return try await withTaskCancellationHandler {
                try await promise.futureResult.get()
            } onCancel: {
                channel.triggerUserOutboundEvent(ExchangeHandler.Cancel(), promise: nil)
            }
        } catch {
            throw ClientError(error)
        }
    }

    // MARK: - Connections

    /// An HTTP/1.1 connection: its channel and its last handler.
    struct HTTP1Connection: Sendable {
        let channel: any Channel
        let handler: NIOLoopBound<ExchangeHandler>

        /// The connection on `channel`, whose pipeline ends with an `ExchangeHandler` (on its event loop).
        init(_ channel: any Channel) throws {
            self.channel = channel
            handler = NIOLoopBound(
                try channel.pipeline.syncOperations.handler(type: ExchangeHandler.self),
                eventLoop: channel.eventLoop)
        }
    }

    /// A connection that can carry an exchange.
    enum Connection: Sendable {
        /// An HTTP/1.1 connection, leased to one exchange until released.
        case http1(HTTP1Connection)
        /// An HTTP/2 connection, shared: each exchange opens a stream on it.
        case http2(HTTP2Connection)
    }

    /// A connection for `endpoint`: one from the pool, a stream on its HTTP/2 connection, or a new
    /// one (within the per-host limit, waiting for a free one by `deadline` otherwise). `reused` when
    /// it was not opened for this request; `opening`, how long opening it took, when it was.
    func acquire(_ endpoint: Endpoint, deadline: NIODeadline?) async throws(ClientError)
        -> (Connection, reused: Bool, opening: Opening?)
    {
        let mayUseHTTP2 = endpoint.tls && settings.offersHTTP2
        let lease: Lease
        let loop = MultiThreadedEventLoopGroup.currentEventLoop
        if let granted = try pool.withLockedValue({
            $0.lease(endpoint, limit: settings.connectionsPerHost, mayUseHTTP2: mayUseHTTP2, on: loop)
        }).get() {
            lease = granted
        } else {
            lease = try await waitForLease(endpoint, mayUseHTTP2: mayUseHTTP2, deadline: deadline)
        }
        switch lease {
        case .reuse(let connection):
            return (.http1(connection), true, nil)
        case .stream(let connection):
            return (.http2(connection), true, nil)
        case .connect:
            let connection: Connection
            let opening: Opening
            do {
                (connection, opening) = try await connect(endpoint, deadline: deadline)
            } catch {
                // The slot this connection would have taken goes to the next waiter; when the
                // connection itself failed (not this request's deadline or cancellation), the
                // requests waiting to learn the endpoint's protocol fail with it.
                let sharesFailure: Bool
                switch error {
                case .timeout, .cancelled: sharesFailure = false
                default: sharesFailure = true
                }
                let (next, failed) = pool.withLockedValue {
                    $0.giveUpSlot(endpoint, failingLearners: sharesFailure, mayUseHTTP2: mayUseHTTP2)
                }
                next?.resume(.success(.connect))
                for waiter in failed { waiter.resume(.failure(error)) }
                throw error
            }
            switch connection {
            case .http1:
                let granted = pool.withLockedValue {
                    $0.learned(endpoint, http2: nil, limit: settings.connectionsPerHost)
                }
                for waiter in granted { waiter.resume(.success(.connect)) }
            case .http2(let http2):
                let granted = pool.withLockedValue {
                    $0.learned(endpoint, http2: http2, limit: settings.connectionsPerHost)
                }
                for waiter in granted { waiter.resume(.success(.stream(http2))) }
                http2.observe { [self] limit in
                    let granted = pool.withLockedValue { $0.streamLimitChanged(to: limit, on: http2, of: endpoint) }
                    for waiter in granted { waiter.resume(.success(.stream(http2))) }
                } unusable: { [self] in
                    // Gone for new streams at GOAWAY or when it closes: the next request opens another.
                    pool.withLockedValue { $0.forget(http2, of: endpoint) }?.resume(.success(.connect))
                }
                http2.channel.closeFuture.whenComplete { [self] _ in
                    pool.withLockedValue { $0.closed(http2) }
                }
            }
            return (connection, false, opening)
        }
    }

    private func waitForLease(_ endpoint: Endpoint, mayUseHTTP2: Bool, deadline: NIODeadline?) async throws(ClientError)
        -> Lease
    {
        let id = pool.withLockedValue { $0.makeWaiterID() }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Lease, any Error>) in
                    let outcome = pool.withLockedValue { pool -> Result<Lease, ClientError>? in
                        // Checked under the lock the cancellation handler takes, so a cancellation
                        // either sees this waiter or is seen here.
                        guard !Task.isCancelled else { return .failure(.cancelled) }
                        // A connection, stream or slot may have come free since the first try found none
                        // (with no waiter to hand it to): taken now, or this request would wait for a
                        // release that may never come.
                        switch pool.lease(endpoint, limit: settings.connectionsPerHost, mayUseHTTP2: mayUseHTTP2) {
                        case .failure(let failure): return .failure(failure)
                        case .success(let granted?): return .success(granted)
                        case .success(nil): break
                        }
                        pool.enqueue(Waiter(id: id, continuation: continuation), for: endpoint)
                        return nil
                    }
                    if let outcome { return continuation.resume(with: outcome.mapError { $0 as any Error }) }
                    if let deadline {
                        let timer = group.next().scheduleTask(deadline: deadline) { [self] () -> Void in
                            pool.withLockedValue { $0.removeWaiter(id, of: endpoint) }?.resume(
                                .failure(ClientError.timeout))
                        }
                        // Cancelled when the wait ends first (most waits end long before the deadline).
                        if !pool.withLockedValue({ $0.attach(timer, toWaiter: id, of: endpoint) }) { timer.cancel() }
                    }
                }
            } onCancel: {
                pool.withLockedValue { $0.removeWaiter(id, of: endpoint) }?.resume(.failure(ClientError.cancelled))
            }
        } catch {
            throw ClientError(error)
        }
    }

    func release(_ connection: HTTP1Connection, of endpoint: Endpoint, reusable: Bool) {
        let keep = reusable && connection.channel.isActive
        if !keep { connection.channel.close(promise: nil) }
        guard let (waiter, lease) = pool.withLockedValue({ $0.release(connection, of: endpoint, kept: keep) }) else {
            return
        }
        waiter.resume(.success(lease))
    }

    /// The TLS context of the run, made on first use.
    func sharedTLSContext() throws -> NIOSSLContext {
        try tlsContext.withLockedValue { context in
            if let context { return context }
            var configuration = settings.tls
            configuration.applicationProtocols = settings.offersHTTP2 ? ["h2", "http/1.1"] : ["http/1.1"]
            let made = try NIOSSLContext(configuration: configuration)
            context = made
            return made
        }
    }
}
