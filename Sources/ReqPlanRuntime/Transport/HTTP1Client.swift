import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix

/// reqplan's own HTTP/1.1 client for plain `http://` hosts: a connection pool per host and
/// one request per connection at a time over SwiftNIO's HTTP/1.1 codec and decompressor.
///
/// It exists for speed: the throughput benchmark's run takes a third less CPU than through
/// AsyncHTTPClient (BENCHMARKS.md, "Throughput against curl"). AsyncHTTPClient stays the
/// client for `https://` (TLS, HTTP/2 through ALPN). Redirects, framing and failure wording
/// live one level up, in `HTTPClientTransport`, so both clients share them; what this client does
/// itself (keep-alive, idle expiry, deadlines, the size cap, resending) matches AsyncHTTPClient,
/// which `WireTests` checks over both.
final class HTTP1Client: Sendable {
    struct Settings: Sendable {
        var connectTimeout: Duration
        var maxBodySize: Int
        var connectionsPerHost: Int
        /// How long a kept-alive connection may stay unused before it is closed.
        var idleTimeout: Duration = .seconds(60)
    }

    /// Where a connection goes: the host as it is resolved (no brackets) and the port.
    struct Endpoint: Hashable, Sendable {
        var host: String
        var port: Int
    }

    /// One request, ready for the wire.
    struct Request: Sendable {
        var endpoint: Endpoint
        var head: HTTPRequestHead
        var body: [UInt8]?
        /// May go again when a kept-alive connection turns out closed.
        var idempotent: Bool
        /// Sent to a forward proxy: its connection is kept only when the response says
        /// `Connection: keep-alive` (tinyproxy, like many proxies, closes it after each response
        /// without saying so, and a POST on such a connection would fail).
        var viaProxy = false
    }

    struct Response: Sendable {
        var head: HTTPResponseHead
        var body: [UInt8]
    }

    /// Why an exchange ended without a response; `TransportError.classify` words it for people.
    enum Failure: Error, Sendable {
        /// The connection could not be made; SwiftNIO's error says why (refused, DNS, timed out).
        case connect(any Error)
        case timeout
        case cancelled
        /// The connection closed before the response ended; `early` when not one byte of it came.
        case closed(early: Bool)
        case tooLarge
        /// The response could not be read (not valid HTTP, not decompressible) or the request not
        /// written; the codec's error says which.
        case invalid(any Error)

        /// `error` itself when it is one, else `.invalid(error)`.
        init(_ error: any Error) {
            self = error as? Failure ?? .invalid(error)
        }
    }

    let settings: Settings
    let group: any EventLoopGroup
    private let pool = NIOLockedValueBox(Pool())

    init(settings: Settings, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.settings = settings
        self.group = group
    }

    /// Closes every idle connection; connections in use close when their exchange ends.
    func shutdown() async {
        let (idle, waiters) = pool.withLockedValue { $0.shutDown() }
        for waiter in waiters { waiter.resume(.failure(Failure.cancelled)) }
        // All at once: one wait, not one per connection.
        let closed = idle.map { channel in
            let promise = channel.eventLoop.makePromise(of: Void.self)
            channel.close(promise: promise)
            return promise.futureResult
        }
        guard let loop = idle.first?.eventLoop else { return }
        try? await EventLoopFuture.andAllComplete(closed, on: loop).get()
    }

    /// Sends one request and reads its whole response by `deadline`.
    func execute(_ request: Request, deadline: NIODeadline?) async throws(Failure) -> Response {
        // A kept-alive connection the server closes just as a request goes out on it fails
        // before any byte of the response arrives; an idempotent request then goes again on
        // another connection (as browsers and curl do). Anything else fails: the server may
        // have acted on it.
        var attemptsLeft = request.idempotent ? 3 : 1
        while true {
            attemptsLeft -= 1
            let (channel, reused) = try await acquire(request.endpoint, deadline: deadline)
            do {
                let response = try await exchange(on: channel, request, deadline: deadline)
                let reusable = request.viaProxy ? response.head.announcesKeepAlive : response.head.isKeepAlive
                release(channel, of: request.endpoint, reusable: reusable)
                return response
            } catch {
                release(channel, of: request.endpoint, reusable: false)
                guard case .closed(early: true) = error, reused, attemptsLeft > 0 else { throw error }
            }
        }
    }

    // MARK: - One exchange

    private func exchange(on channel: any Channel, _ request: Request, deadline: NIODeadline?)
        async throws(Failure) -> Response
    {
        let promise = channel.eventLoop.makePromise(of: Response.self)
        let exchange = Exchange(head: request.head, body: request.body.map { ByteBuffer(bytes: $0) },
                                deadline: deadline, promise: promise)
        // A write to a channel that closed meanwhile never reaches the handler.
        channel.writeAndFlush(exchange).whenFailure { _ in promise.fail(Failure.closed(early: true)) }
        do {
            return try await withTaskCancellationHandler {
                try await promise.futureResult.get()
            } onCancel: {
                channel.triggerUserOutboundEvent(ExchangeHandler.Cancel(), promise: nil)
            }
        } catch {
            throw Failure(error)
        }
    }

    // MARK: - Connections

    private enum Lease {
        case reuse(any Channel)
        case connect
    }

    private func acquire(_ endpoint: Endpoint, deadline: NIODeadline?) async throws(Failure) -> (any Channel, reused: Bool) {
        let limit = settings.connectionsPerHost
        let lease: Lease
        if let granted = try pool.withLockedValue({ $0.lease(endpoint, limit: limit) }).get() {
            lease = granted
        } else {
            lease = try await waitForLease(endpoint, deadline: deadline)
        }
        switch lease {
        case .reuse(let channel):
            return (channel, true)
        case .connect:
            do {
                return (try await connect(endpoint, deadline: deadline), false)
            } catch {
                // The slot this connection would have taken goes to the next waiter.
                if let waiter = pool.withLockedValue({ $0.giveUpSlot(endpoint) }) {
                    waiter.resume(.success(.connect))
                }
                throw error
            }
        }
    }

    private func waitForLease(_ endpoint: Endpoint, deadline: NIODeadline?) async throws(Failure) -> Lease {
        let id = pool.withLockedValue { $0.makeWaiterID() }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Lease, any Error>) in
                    let queued = pool.withLockedValue { pool in
                        // Checked under the lock the cancellation handler takes, so a cancellation
                        // either sees this waiter or is seen here.
                        guard !Task.isCancelled, !pool.isShutDown else { return false }
                        pool.enqueue(Waiter(id: id, continuation: continuation), for: endpoint)
                        return true
                    }
                    guard queued else { return continuation.resume(throwing: Failure.cancelled) }
                    if let deadline {
                        let timer = group.next().scheduleTask(deadline: deadline) { [self] () -> Void in
                            pool.withLockedValue { $0.removeWaiter(id, of: endpoint) }?.resume(.failure(Failure.timeout))
                        }
                        // Cancelled when the wait ends first (most waits end long before the deadline).
                        if !pool.withLockedValue({ $0.attach(timer, toWaiter: id, of: endpoint) }) { timer.cancel() }
                    }
                }
            } onCancel: {
                pool.withLockedValue { $0.removeWaiter(id, of: endpoint) }?.resume(.failure(Failure.cancelled))
            }
        } catch {
            throw Failure(error)
        }
    }

    private func connect(_ endpoint: Endpoint, deadline: NIODeadline?) async throws(Failure) -> any Channel {
        var timeout = TimeAmount(settings.connectTimeout)
        var deadlineFirst = false
        if let deadline, deadline - .now() < timeout {
            timeout = max(deadline - .now(), .nanoseconds(0))
            deadlineFirst = true
        }
        if timeout <= .zero { throw .timeout }
        let maxBodySize = settings.maxBodySize
        let idleTimeout = TimeAmount(settings.idleTimeout)
        let loop = group.next()
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(timeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHTTPClientHandlers()
                    try pipeline.addHandler(NIOHTTPResponseDecompressor(limit: .ratio(100)))
                    try pipeline.addHandler(ExchangeHandler(maxBodySize: maxBodySize, idleTimeout: idleTimeout))
                }
            }
        // An IP address needs no resolver and no happy-eyeballs race (most plans name one, or localhost).
        let connected = if let address = try? SocketAddress(ipAddress: endpoint.host, port: endpoint.port) {
            bootstrap.connect(to: address)
        } else {
            bootstrap.connect(host: endpoint.host, port: endpoint.port)
        }
        // Cancellation must not wait for a connect to a silent host to time out: the wait ends
        // at once, and a connection that still comes up later is closed.
        let outcome = loop.makePromise(of: (any Channel).self)
        connected.cascade(to: outcome)
        outcome.futureResult.whenFailure { _ in connected.whenSuccess { $0.close(promise: nil) } }
        do {
            return try await withTaskCancellationHandler {
                try await outcome.futureResult.get()
            } onCancel: {
                outcome.fail(Failure.cancelled)
            }
        } catch let failure as Failure {
            throw failure
        } catch ChannelError.connectTimeout where deadlineFirst {
            throw .timeout
        } catch {
            throw .connect(error)
        }
    }

    private func release(_ channel: any Channel, of endpoint: Endpoint, reusable: Bool) {
        let keep = reusable && channel.isActive
        if !keep { channel.close(promise: nil) }
        guard let (waiter, lease) = pool.withLockedValue({ $0.release(channel, of: endpoint, kept: keep) }) else {
            return
        }
        waiter.resume(.success(lease))
    }

    // MARK: - The pool's state (only touched under its lock)

    private struct Waiter {
        var id: Int
        var continuation: CheckedContinuation<Lease, any Error>
        /// Fails the wait at the request's deadline.
        var timer: Scheduled<Void>?

        /// Ends the wait (and its deadline's timer).
        func resume(_ result: Result<Lease, any Error>) {
            timer?.cancel()
            continuation.resume(with: result)
        }
    }

    private struct Host {
        var idle: [any Channel] = []
        /// Connections open or opening, idle ones included.
        var open = 0
        var waiters: [Waiter] = []
    }

    private struct Pool {
        var hosts: [Endpoint: Host] = [:]
        var isShutDown = false
        var nextWaiterID = 0

        mutating func makeWaiterID() -> Int {
            nextWaiterID += 1
            return nextWaiterID
        }

        /// `body` on the host's entry, in place (a copy would copy its arrays on every change).
        mutating func withHost<Result>(_ endpoint: Endpoint, _ body: (inout Host) -> Result) -> Result {
            body(&hosts[endpoint, default: Host()])
        }

        /// An idle connection, or leave to open one; nil when the host is at its limit.
        mutating func lease(_ endpoint: Endpoint, limit: Int) -> Result<Lease?, Failure> {
            if isShutDown { return .failure(.cancelled) }
            return withHost(endpoint) { host in
                while let channel = host.idle.popLast() {
                    if channel.isActive { return .success(.reuse(channel)) }
                    host.open -= 1
                }
                guard host.open < limit else { return .success(nil) }
                host.open += 1
                return .success(.connect)
            }
        }

        mutating func enqueue(_ waiter: Waiter, for endpoint: Endpoint) {
            hosts[endpoint, default: Host()].waiters.append(waiter)
        }

        /// Gives a waiter its deadline's timer; false when it no longer waits.
        mutating func attach(_ timer: Scheduled<Void>, toWaiter id: Int, of endpoint: Endpoint) -> Bool {
            guard let index = hosts[endpoint]?.waiters.firstIndex(where: { $0.id == id }) else { return false }
            hosts[endpoint]?.waiters[index].timer = timer
            return true
        }

        mutating func removeWaiter(_ id: Int, of endpoint: Endpoint) -> Waiter? {
            guard let index = hosts[endpoint]?.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return hosts[endpoint]?.waiters.remove(at: index)
        }

        /// A connection is back: to the first waiter, or idle; a closed one frees its slot.
        mutating func release(_ channel: any Channel, of endpoint: Endpoint, kept: Bool) -> (Waiter, Lease)? {
            let open = !isShutDown
            return withHost(endpoint) { host in
                if kept && open {
                    if host.waiters.isEmpty {
                        host.idle.append(channel)
                        return nil
                    }
                    return (host.waiters.removeFirst(), .reuse(channel))
                }
                if kept { channel.close(promise: nil) }
                guard !host.waiters.isEmpty else {
                    host.open -= 1
                    return nil
                }
                return (host.waiters.removeFirst(), .connect)
            }
        }

        mutating func giveUpSlot(_ endpoint: Endpoint) -> Waiter? {
            guard hosts[endpoint]?.waiters.isEmpty == false else {
                hosts[endpoint]?.open -= 1
                return nil
            }
            return hosts[endpoint]?.waiters.removeFirst()
        }

        mutating func shutDown() -> (idle: [any Channel], waiters: [Waiter]) {
            isShutDown = true
            defer { hosts = [:] }
            return (hosts.values.flatMap(\.idle), hosts.values.flatMap(\.waiters))
        }
    }
}

/// What the transport writes into a connection's pipeline: the request and where its
/// response goes.
struct Exchange: Sendable {
    var head: HTTPRequestHead
    var body: ByteBuffer?
    var deadline: NIODeadline?
    var promise: EventLoopPromise<HTTP1Client.Response>
}

/// The last handler of a connection: writes one request, collects its response (already
/// decompressed), and answers the exchange's promise once: with the response, or with why
/// there is none (deadline, cancellation, closed connection, too large, malformed). Between
/// exchanges it closes the connection once it has been idle for `idleTimeout`.
///
/// One timer per connection serves both the exchange's deadline and the idle expiry, and is moved
/// only when it would fire too late: a run of requests whose deadlines (or idle periods) end later
/// than the timer's time leaves it alone, and when it fires it is set again for whatever is then
/// due. So a busy connection schedules no timer per request.
final class ExchangeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Exchange
    typealias OutboundOut = HTTPClientRequestPart

    /// Sent by a cancelled task: fail the exchange and close the connection.
    struct Cancel: Sendable {}

    private let maxBodySize: Int
    private let idleTimeout: TimeAmount
    private var promise: EventLoopPromise<HTTP1Client.Response>?
    /// The exchange's deadline, while there is one.
    private var deadline: NIODeadline?
    /// Since when the connection has been idle, between exchanges.
    private var idleSince: NIODeadline?
    private var timer: Scheduled<Void>?
    /// When `timer` fires.
    private var timerDue: NIODeadline?
    /// Whether the response may have a body longer than it announces it (a HEAD request's).
    private var bodiless = false
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []
    private var receivedAny = false

    init(maxBodySize: Int, idleTimeout: TimeAmount) {
        self.maxBodySize = maxBodySize
        self.idleTimeout = idleTimeout
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let exchange = unwrapOutboundIn(data)
        guard self.promise == nil else {
            // One request at a time; the pool never does this.
            exchange.promise.fail(HTTP1Client.Failure.invalid(ChannelError.inappropriateOperationForState))
            promise?.fail(ChannelError.inappropriateOperationForState)
            return
        }
        self.promise = exchange.promise
        receivedAny = false
        bodiless = exchange.head.method == .HEAD
        idleSince = nil
        deadline = exchange.deadline
        if let deadline = exchange.deadline { setTimer(context: context, due: deadline) }
        // A write fails when the connection closed meanwhile (nothing of the response came), or
        // when NIO refuses a header (the transport checks them first).
        let headWritten = context.eventLoop.makePromise(of: Void.self)
        headWritten.futureResult.assumeIsolated().whenFailure { [self] error in
            let closed = error is ChannelError || error is IOError
            finish(context: context, .failure(closed ? HTTP1Client.Failure.closed(early: !receivedAny)
                                                     : HTTP1Client.Failure.invalid(error)))
        }
        context.write(wrapOutboundOut(.head(exchange.head)), promise: headWritten)
        if let body = exchange.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.write(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        receivedAny = true
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            // A HEAD response, a 204 or a 304 announces a length it does not send.
            if !bodiless, head.status != .noContent, head.status != .notModified,
               let length = head.headers.first(name: "content-length").flatMap(Int.init), length > maxBodySize
            {
                finish(context: context, .failure(HTTP1Client.Failure.tooLarge))
            }
        case .body(let buffer):
            guard promise != nil else { return }
            guard body.count + buffer.readableBytes <= maxBodySize else {
                return finish(context: context, .failure(HTTP1Client.Failure.tooLarge))
            }
            body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard let head else { return }
            finish(context: context, .success(HTTP1Client.Response(head: head, body: body)))
        }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is Cancel else { return context.triggerUserOutboundEvent(event, promise: promise) }
        finish(context: context, .failure(HTTP1Client.Failure.cancelled))
        promise?.succeed()
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context: context, .failure(HTTP1Client.Failure.closed(early: !receivedAny)), close: false)
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Between exchanges (an unsolicited response, a reset while idle) the connection is
        // closed, so the pool drops it.
        guard promise != nil else { return context.close(promise: nil) }
        let failure: HTTP1Client.Failure
        switch error {
        case is NIOHTTPDecompression.DecompressionError, is HTTPParserError:
            failure = .invalid(error)
        default:
            failure = .closed(early: !receivedAny)
        }
        finish(context: context, .failure(failure))
    }

    /// Answers the exchange once; on failure the connection closes (whatever it was in the
    /// middle of cannot be reused), on success its idle time starts.
    private func finish(context: ChannelHandlerContext, _ result: Result<HTTP1Client.Response, any Error>,
                        close: Bool = true)
    {
        guard let promise else { return }
        self.promise = nil
        deadline = nil
        head = nil
        body = []
        switch result {
        case .failure:
            if close { context.close(promise: nil) }
        case .success:
            let now = NIODeadline.now()
            idleSince = now
            setTimer(context: context, due: now + idleTimeout)
        }
        promise.completeWith(result)
    }

    /// Makes the timer fire by `due`: moved only when it would fire later (or not at all).
    private func setTimer(context: ChannelHandlerContext, due: NIODeadline) {
        if let timerDue, timerDue <= due { return }
        timer?.cancel()
        timerDue = due
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) { [self] in
            timer = nil
            timerDue = nil
            timerFired(context: context)
        }
    }

    /// Fails an exchange past its deadline, closes a connection idle too long, or sets the timer
    /// again for what is due next.
    private func timerFired(context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        if promise != nil {
            guard let deadline else { return }
            if deadline <= now {
                finish(context: context, .failure(HTTP1Client.Failure.timeout))
            } else {
                setTimer(context: context, due: deadline)
            }
        } else if let idleSince {
            if idleSince + idleTimeout <= now {
                context.close(promise: nil)
            } else {
                setTimer(context: context, due: idleSince + idleTimeout)
            }
        }
    }
}
