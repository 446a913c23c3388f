import NIOCore
import NIOEmbedded
import NIOHTTP1
import ReqPlanTransport
import Synchronization

extension HTTPClientTransport: RepeatingTransport {
    /// A repeater of `request` over reqplan's client, when it is sent directly (no proxy) and no cookie of the jar
    /// goes with it. Over TLS it repeats on HTTP/1.1 connections; a server that answers in HTTP/2 gets each request
    /// from the whole transport (`RepeatEnd.unsent`), on the streams of its connection.
    package func repeating(_ request: PreparedRequest, timeout: Duration?) -> (any RequestRepeater)? {
        guard configuration.client == .reqplan, proxy(for: request) == nil,
            !request.usesCookies || configuration.cookies.isEmpty,
            let outgoing = try? ownClientRequest(request)
        else { return nil }
        return OwnClientRepeater(
            transport: self, prepared: request, request: outgoing, timeout: timeout ?? configuration.requestTimeout,
            endpoint: RepeatedEndpoint(), encoded: OwnClientRepeater.encoded(outgoing), hops: hops)
    }

    package func continuing(after first: Result<TransportResponse, TransportError>, sent: ContinuousClock.Instant)
        -> any Transport
    {
        ContinuingTransport(base: self, first: first, sent: sent)
    }
}

/// A transport whose first hop is answered already (`RepeatingTransport.continuing(after:sent:)`): the hops
/// after it get what is left of the deadline that began when the first went out, as `send`'s hops do.
struct ContinuingTransport: Transport {
    let base: HTTPClientTransport
    let first: Result<TransportResponse, TransportError>
    let sent: ContinuousClock.Instant

    func send(_ request: PreparedRequest, timeout: Duration?) async throws(TransportError) -> TransportResponse {
        let timeout = timeout ?? base.configuration.requestTimeout
        let spent = ContinuousClock.now - sent
        let deadline = timeout.map { NIODeadline.now() + TimeAmount(max($0 - spent, .zero)) }
        var answered = false
        return try await base.hops.send(request) { hop async throws(TransportError) in
            guard answered else {
                answered = true
                return try first.get()
            }
            return try await base.sendOnce(hop, deadline: deadline, timeout: timeout)
        }
    }
}

/// Sends one request again and again on one HTTP/1.1 connection of reqplan's client, plain or over TLS, through
/// the same pipeline (`ExchangeHandler`: the deadline, the size limit, decompression) and with the same failure
/// wording as `HTTPClientTransport.sendWithOwnClient` (`ownClientFailure`, TLS diagnoses included); only the task
/// switch of each request is left out. A response with a redirect to follow or a cookie to keep goes back to the
/// transport (`RepeatEnd.handOff`), and so does every request to a server that answers in HTTP/2
/// (`RepeatEnd.unsent`).
struct OwnClientRepeater: RequestRepeater {
    let transport: HTTPClientTransport
    let prepared: PreparedRequest
    let request: ReqPlanClient.Request
    /// Each exchange's deadline, from when it is written.
    let timeout: Duration?
    /// What the runs learned of the server, shared by all of them.
    let endpoint: RepeatedEndpoint
    /// The request as NIO's encoder writes it, made once (`encoded(_:)`).
    let encoded: ByteBuffer?
    /// The transport's redirects and cookies (`HTTPClientTransport.hops`), made once: each response is asked
    /// whether it goes on (`RequestHops.goesOn`).
    let hops: RequestHops

    /// The bytes NIO's request encoder writes for `request` (the encoder of every HTTP/1.1 connection of the
    /// client, `ReqPlanClient.addHTTP1`), with its body: the same request sent again and again is the same bytes, and
    /// `ExchangeHandler` writes them below the encoder instead of having it encode each one (BENCHMARKS.md, "Load").
    /// Nil for a body too large to go out whole in the flush that follows its write, which takes the exchange's
    /// usual path.
    static func encoded(_ request: ReqPlanClient.Request) -> ByteBuffer? {
        guard (request.body?.count ?? 0) <= ExchangeHandler.sentOnFlushLimit else { return nil }
        let channel = EmbeddedChannel(handler: HTTPRequestEncoder())
        defer { _ = try? channel.finish() }
        do {
            try channel.writeOutbound(HTTPClientRequestPart.head(request.head))
            if let body = request.body {
                try channel.writeOutbound(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))))
            }
            try channel.writeOutbound(HTTPClientRequestPart.end(nil))
            var bytes = ByteBuffer()
            while let part = try channel.readOutbound(as: IOData.self) {
                guard case .byteBuffer(var buffer) = part else { return nil }
                bytes.writeBuffer(&buffer)
            }
            return bytes
        } catch {
            // A head NIO's encoder refuses: the exchange's usual path says so.
            return nil
        }
    }

    var repeats: Bool { !endpoint.speaksHTTP2 }

    func run(
        start: @escaping @Sendable (any RepeatWaker) -> RepeatStart,
        connected: @escaping @Sendable () -> Void,
        finished: @escaping @Sendable (TransportResponse) -> RepeatStep
    ) async -> RepeatEnd {
        let waker = RepeatDriverWaker()
        let first = start(waker)
        if case .stop = first { return .stopped }
        // Waiting from the start, nothing is on its way: a connection that cannot be had ends the run with nothing
        // to report (`start`, asked again by whoever runs the next one, says what is due).
        let sending = if case .send = first { true } else { false }
        // A server that answered in HTTP/2: the transport sends each request on its connection's streams.
        if endpoint.speaksHTTP2 {
            waker.ended()
            return sending ? .unsent : .stopped
        }
        // The pool of the event loop this lane runs on, when each loop has its own (`poolPerEventLoop`).
        let client = transport.own
        let connection: ReqPlanClient.HTTP1Connection
        let reused: Bool
        do {
            let (leased, wasReused, _) = try await client.acquire(
                request.endpoint, deadline: timeout.map { NIODeadline.now() + TimeAmount($0) })
            guard case .http1(let http1) = leased else {
                // An HTTP/2 stream (over TLS, as the server chose): the transport sends the request, now and from
                // now on.
                if case .http2(let http2) = leased {
                    endpoint.answeredInHTTP2()
                    client.pool.withLockedValue { $0.streamEnded(on: http2, of: request.endpoint) }?
                        .resume(.success(.stream(http2)))
                }
                waker.ended()
                return sending ? .unsent : .stopped
            }
            (connection, reused) = (http1, wasReused)
            connected()
        } catch {
            waker.ended()
            guard sending else { return .stopped }
            if case .cancelled = error { return .cancelled }
            return .failed(await failure(error))
        }
        let driver = RepeatDriver(
            repeater: self, client: client, connection: connection, reused: reused, waker: waker, start: start,
            finished: finished)
        let end = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                connection.channel.eventLoop.execute { driver.begin(continuation, sending: sending) }
            }
        } onCancel: {
            driver.cancel()
        }
        switch end {
        case .ended(let end): return end
        case .failed(let error): return .failed(await failure(error))
        }
    }

    /// `error`, worded as the transport words a failure of the request (over TLS, diagnosed by a handshake of its
    /// own), within the request's timeout from now.
    private func failure(_ error: ReqPlanClient.ClientError) async -> TransportError {
        await transport.ownClientFailure(
            error, of: prepared, deadline: timeout.map { NIODeadline.now() + TimeAmount($0) }, timeout: timeout,
            proxy: nil)
    }
}

/// What the runs of an `OwnClientRepeater` learned of its server: whether it answers in HTTP/2.
final class RepeatedEndpoint: Sendable {
    private let http2 = Atomic<Bool>(false)

    /// Whether a connection to the server came as HTTP/2.
    var speaksHTTP2: Bool { http2.load(ordering: .relaxed) }

    /// A connection to the server came as HTTP/2.
    func answeredInHTTP2() { http2.store(true, ordering: .relaxed) }
}

/// How a `RepeatDriver` ended: as `RequestRepeater.run` ends, or with a failure of the exchange on its way, which the
/// run words (`OwnClientRepeater.failure`: over TLS that may take a handshake, off the event loop).
private enum DriverEnd: Sendable {
    case ended(RepeatEnd)
    case failed(ReqPlanClient.ClientError)
}

/// The waker `OwnClientRepeater.run` gives `start`: it reaches the run's driver once there is one, and keeps a
/// wake that comes before.
private final class RepeatDriverWaker: RepeatWaker {
    private struct State {
        var driver: RepeatDriver?
        var woken = false
        var ended = false
    }
    private let state = Mutex(State())

    func wake() -> Bool {
        let driver: RepeatDriver? = state.withLock { state in
            guard !state.ended else { return nil }
            if state.driver == nil { state.woken = true }
            return state.driver
        }
        driver?.wake()
        return state.withLock { !$0.ended }
    }

    /// Reaches `driver` from now on. - Returns: whether a wake came before.
    func attach(_ driver: RepeatDriver) -> Bool {
        state.withLock { state in
            state.driver = driver
            defer { state.woken = false }
            return state.woken
        }
    }

    /// The run ended: a wake from now on is refused.
    func ended() {
        state.withLock { state in
            state.ended = true
            state.driver = nil
        }
    }
}

/// The exchanges of one `OwnClientRepeater.run`, one after another on its connection's event loop: each
/// outcome comes straight from the connection's handler (`ExchangeSink`), which sends the next request.
private final class RepeatDriver: ExchangeSink {
    private let repeater: OwnClientRepeater
    /// The client whose pool lent the connection, and gets it back.
    private let client: ReqPlanClient
    private let connection: ReqPlanClient.HTTP1Connection
    private let waker: RepeatDriverWaker
    private let start: @Sendable (any RepeatWaker) -> RepeatStart
    private let finished: @Sendable (TransportResponse) -> RepeatStep
    private let cancelled = Atomic<Bool>(false)
    /// Whether the connection carried an exchange before this run.
    private let reusedBefore: Bool
    /// What changes as exchanges go: whether the connection carried one already, and where the end goes.
    /// Touched on the connection's event loop only, made there by `begin` (the run's task may be elsewhere).
    private let state: NIOLoopBoundBox<State?>

    private final class State {
        var reused: Bool
        /// Whether `start` said to wait, and nothing has woken the run since.
        var waiting = false
        /// Whether the connection was given back: nothing of this run may touch it then.
        var ended = false
        var continuation: CheckedContinuation<DriverEnd, Never>?
        /// The request, its body and encoding and where its answers go (this driver), made once for all the run's
        /// exchanges; let go when the run ends, since it holds the driver.
        var exchange: Exchange.Request?
        /// The headers of the last common head answered, with its number on the connection (`Response.commonHead`).
        var headers: (id: UInt64, fields: [HeaderField])?
        init(reused: Bool) { self.reused = reused }
    }

    init(
        repeater: OwnClientRepeater, client: ReqPlanClient, connection: ReqPlanClient.HTTP1Connection,
        reused: Bool, waker: RepeatDriverWaker, start: @escaping @Sendable (any RepeatWaker) -> RepeatStart,
        finished: @escaping @Sendable (TransportResponse) -> RepeatStep
    ) {
        self.repeater = repeater
        self.client = client
        self.connection = connection
        self.waker = waker
        self.start = start
        self.finished = finished
        reusedBefore = reused
        state = .makeEmptyBox(valueType: State.self, eventLoop: connection.channel.eventLoop)
    }

    /// Sends the first exchange (`start` said to already, `sending`) or waits to be woken; `continuation` gets
    /// the end. On the event loop.
    func begin(_ continuation: CheckedContinuation<DriverEnd, Never>, sending: Bool) {
        let begun = State(reused: reusedBefore)
        begun.continuation = continuation
        let request = repeater.request
        begun.exchange = Exchange.Request(
            head: request.head, body: request.body.map { ByteBuffer(bytes: $0) }, keep: request.keep,
            answer: .sink(self), encoded: repeater.encoded)
        state.value = begun
        let woken = waker.attach(self)
        if sending {
            send()
        } else if cancelled.load(ordering: .relaxed) {
            end(.stopped, reusable: true)
        } else if woken {
            ask()
        } else {
            begun.waiting = true
        }
    }

    /// Asks `start` again if the run is waiting. From any thread.
    func wake() {
        connection.channel.eventLoop.execute { [self] in
            guard let state = state.value, state.waiting, !state.ended else { return }
            state.waiting = false
            ask()
        }
    }

    /// Ends the exchange on its way, or the next one before it goes, or the wait. On the event loop, where the run
    /// ends: once it has, the connection may carry another run's exchange.
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
        let channel = connection.channel
        channel.eventLoop.execute { [self] in
            // Not begun: `begin` and `send` see the flag.
            guard let state = state.value, !state.ended else { return }
            if state.waiting { return end(.stopped, reusable: true) }
            channel.triggerUserOutboundEvent(ExchangeHandler.Cancel(), promise: nil)
        }
    }

    /// Sends the next exchange, waits, or stops, as `start` says. On the event loop.
    private func ask() {
        guard !cancelled.load(ordering: .relaxed) else { return end(.stopped, reusable: true) }
        switch start(waker) {
        case .send: send()
        case .wait: state.value?.waiting = true
        case .stop: end(.stopped, reusable: true)
        }
    }

    private func send() {
        guard !cancelled.load(ordering: .relaxed) else { return end(.cancelled, reusable: false) }
        guard let exchange = state.value?.exchange else { return }
        let handler = connection.handler.value
        let next = Exchange(exchange, deadline: repeater.timeout.map { NIODeadline.now() + TimeAmount($0) })
        // Straight to the connection's handler, the last of its pipeline (`ExchangeHandler.send`). As
        // `ReqPlanClient.exchange` says, a channel that closed meanwhile (its handler out of the pipeline then) did
        // not take the request.
        guard connection.channel.isActive, handler.send(next) else {
            return answered(
                .failure(handler.tlsFailure.map(ReqPlanClient.ClientError.tls) ?? ReqPlanClient.ClientError.unprocessed)
            )
        }
    }

    func answered(_ result: Result<ReqPlanClient.Response, any Error>) {
        guard let state = state.value else { return }
        switch result {
        case .success(let response):
            let keepAlive = response.keepAlive
            // The headers of a head equal to the last one's, byte for byte, are the last one's.
            var headers: [HeaderField]?
            if let id = response.commonHead {
                if let last = state.headers, last.id == id {
                    headers = last.fields
                } else {
                    let fields = HTTPClientTransport.headerFields(response.head.headers)
                    state.headers = (id, fields)
                    headers = fields
                }
            }
            let transported = HTTPClientTransport.transportResponse(response, headers: headers)
            state.reused = true
            if repeater.hops.goesOn(after: transported, of: repeater.prepared) {
                return end(.handOff(transported), reusable: keepAlive)
            }
            switch finished(transported) {
            case .handOff:
                end(.handOff(transported), reusable: keepAlive)
            case .again:
                guard keepAlive else { return end(.connectionEnded, reusable: false) }
                ask()
            }
        case .failure(let error):
            // As `ReqPlanClient.execute` decides: what the server did not process goes again, the rest fails.
            let failure = ReqPlanClient.ClientError(error)
            switch failure {
            case .cancelled:
                end(.cancelled, reusable: false)
            case _ where failure.goesAgain(onReused: state.reused, idempotent: repeater.request.idempotent):
                end(.unsent, reusable: false)
            default:
                // The connection closes; the waiting task words the failure.
                finish(.failed(failure), reusable: false)
            }
        }
    }

    /// Gives the connection back (kept when `reusable` and still open) and `outcome` to the waiting task.
    private func end(_ outcome: RepeatEnd, reusable: Bool) {
        finish(.ended(outcome), reusable: reusable)
    }

    private func finish(_ outcome: DriverEnd, reusable: Bool) {
        guard let state = state.value, !state.ended else { return }
        state.ended = true
        state.waiting = false
        state.exchange = nil
        waker.ended()
        client.release(connection, of: repeater.request.endpoint, reusable: reusable)
        let continuation = state.continuation
        state.continuation = nil
        continuation?.resume(returning: outcome)
    }
}
