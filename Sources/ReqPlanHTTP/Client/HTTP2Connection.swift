import NIOCore
import NIOHTTP1
import NIOHTTP2
import ReqPlanTransport

/// One HTTP/2 connection of `ReqPlanClient`: every exchange with its endpoint goes on it, each on a
/// stream of its own (NIOHTTP2's inline stream multiplexer), whose pipeline is NIOHTTP2's
/// `HTTP2FramePayloadToHTTP1ClientCodec`, the decompressor (`ResponseDecompression`) and the same
/// `ExchangeHandler` as an HTTP/1.1 connection.
///
/// The connection is made ready only once the server's first SETTINGS came, so its
/// `SETTINGS_MAX_CONCURRENT_STREAMS` is known before the first stream: the pool gives out no more
/// streams at once (and learns when the server changes it); NIOHTTP2 would hold back any beyond it
/// too. Flow-control
/// windows are large (16 MiB per stream, 64 MiB for the connection), so a large body is not held
/// back by window updates. At a GOAWAY the connection takes no new streams (the pool forgets it);
/// streams above the GOAWAY's last stream id, and streams the server refuses (`REFUSED_STREAM`) or
/// that never left because the connection died, fail as unprocessed and go again on a new connection.
/// A stream reset otherwise fails only its own exchange. With no stream open for the idle timeout,
/// the connection closes.
final class HTTP2Connection: Sendable {
    let channel: any Channel
    /// How many streams the server takes at once, as its first SETTINGS said (100 when it did not say).
    let initialStreamLimit: Int
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    private let handler: NIOLoopBound<HTTP2ConnectionHandler>
    private let maxBodySize: Int

    /// The per-stream flow-control window reqplan announces and keeps open.
    static let streamWindow = 16 << 20
    /// The connection's flow-control window.
    static let connectionWindow = 64 << 20

    private init(
        channel: any Channel, initialStreamLimit: Int, multiplexer: NIOHTTP2Handler.StreamMultiplexer,
        handler: NIOLoopBound<HTTP2ConnectionHandler>, maxBodySize: Int
    ) {
        self.channel = channel
        self.initialStreamLimit = initialStreamLimit
        self.multiplexer = multiplexer
        self.handler = handler
        self.maxBodySize = maxBodySize
    }

    /// Adds HTTP/2 to `channel` (TLS done, `h2` negotiated), on its event loop; `ready` succeeds
    /// with the connection when the server's first SETTINGS arrives, and fails when the connection
    /// closes (or says GOAWAY) before.
    static func configure(
        _ channel: any Channel, maxBodySize: Int, idleTimeout: TimeAmount,
        ready: EventLoopPromise<HTTP2Connection>
    ) throws {
        let loop = channel.eventLoop
        let handler = HTTP2ConnectionHandler(idleTimeout: idleTimeout)
        let bound = NIOLoopBound(handler, eventLoop: loop)
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings =
            nioDefaultSettings + [
                HTTP2Setting(parameter: .enablePush, value: 0),
                HTTP2Setting(parameter: .initialWindowSize, value: streamWindow),
            ]
        connection.targetWindowSize = connectionWindow
        var stream = NIOHTTP2Handler.StreamConfiguration()
        stream.targetWindowSize = streamWindow
        let http2 = NIOHTTP2Handler(
            mode: .client, eventLoop: loop, connectionConfiguration: connection, streamConfiguration: stream,
            streamDelegate: StreamEvents(handler: bound)
        ) { pushed in
            // Server push is turned off in the settings; a pushed stream is refused.
            pushed.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(FlushCoalescingHandler())
        try pipeline.addHandler(http2)
        try pipeline.addHandler(handler)
        let multiplexer = try http2.syncMultiplexer()
        handler.ready = { limit in
            guard let limit else { return ready.fail(ClientError.closed(early: true)) }
            ready.succeed(
                HTTP2Connection(
                    channel: channel, initialStreamLimit: limit, multiplexer: multiplexer,
                    handler: bound, maxBodySize: maxBodySize))
        }
    }

    typealias ClientError = ReqPlanClient.ClientError

    /// Calls `limitChanged` on the event loop when the server changes how many streams it takes at
    /// once, and `unusable` once when the connection takes no more streams (GOAWAY received, or closed).
    func observe(limitChanged: @escaping @Sendable (Int) -> Void, unusable: @escaping @Sendable () -> Void) {
        handler.eventLoop.execute { [handler] in
            handler.value.observe(limitChanged: limitChanged, unusable: unusable)
        }
    }

    /// Closes the connection (its streams fail).
    func close() {
        channel.close(promise: nil)
    }

    /// Sends `request` on a new stream and reads its whole response by `deadline`.
    func exchange(_ request: ReqPlanClient.Request, deadline: NIODeadline?) async throws(ClientError)
        -> ReqPlanClient.Response
    {
        let loop = channel.eventLoop
        let promise = loop.makePromise(of: ReqPlanClient.Response.self)
        let exchange = Exchange(
            head: request.head, body: request.body.map { ByteBuffer(bytes: $0) },
            deadline: deadline, keep: request.keep, promise: promise)
        let opened = loop.makePromise(of: (any Channel).self)
        multiplexer.createStreamChannel(promise: opened) { [handler, maxBodySize] stream in
            stream.eventLoop.makeCompletedFuture {
                let pipeline = stream.pipeline.syncOperations
                try pipeline.addHandler(HTTP2FramePayloadToHTTP1ClientCodec(httpProtocol: .https))
                try pipeline.addHandler(ExchangeHandler(maxBodySize: maxBodySize, connection: handler.value))
                // Goes out when the stream is activated, right after this.
                pipeline.writeAndFlush(NIOAny(exchange), promise: nil)
            }
        }
        // A stream that could not be opened sent nothing, unless the connection's TLS failed.
        opened.futureResult.whenFailure { [handler] _ in
            promise.fail(handler.value.tlsFailure.map(ClientError.tls) ?? ClientError.unprocessed)
        }
        do {
            return try await withTaskCancellationHandler {
                try await promise.futureResult.get()
            } onCancel: {
                opened.futureResult.whenSuccess { $0.triggerUserOutboundEvent(ExchangeHandler.Cancel(), promise: nil) }
            }
        } catch {
            throw ClientError(error)
        }
    }

    /// Tells the connection's handler when streams open and close (NIOHTTP2 calls it on the event loop).
    private struct StreamEvents: NIOHTTP2StreamDelegate {
        let handler: NIOLoopBound<HTTP2ConnectionHandler>

        func streamCreated(_ id: HTTP2StreamID, channel: any Channel) {
            handler.value.streamOpened()
        }

        func streamClosed(_ id: HTTP2StreamID, channel: any Channel) {
            handler.value.streamClosed()
        }
    }
}

/// The last handler of an HTTP/2 connection's own pipeline: learns when the connection is ready (the
/// server's SETTINGS) and when it stops taking streams (GOAWAY, closed), remembers the GOAWAY's last
/// stream id for the streams to read, keeps the deadlines of the exchanges on its streams (one timer
/// for all of them, moved only when it would fire too late, as `ExchangeHandler` does for an HTTP/1.1
/// connection), and closes the connection when no stream has been open for the idle timeout.
final class HTTP2ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    /// Called once: at the server's first SETTINGS with its stream limit, or with nil if the
    /// connection ends before.
    var ready: ((Int?) -> Void)?
    /// The last stream the server said it processes or may process (GOAWAY), once it said so.
    private(set) var goAwayLastStreamID: HTTP2StreamID?
    /// The TLS failure the connection ended with, if it did (a TLS 1.3 server checks a client
    /// certificate after the handshake): its streams fail with it.
    private(set) var tlsFailure: (any Error)?
    private var unusable = false
    private var onUnusable: (@Sendable () -> Void)?
    private var onLimitChanged: (@Sendable (Int) -> Void)?
    /// The server's stream limit while it has not announced one (NIOHTTP2 assumes the same).
    static let defaultStreamLimit = 100
    private let idleTimeout: TimeAmount
    private var openStreams = 0
    private var idleTimer: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    /// The exchanges on streams with a deadline, and the one timer that fails those past it.
    private var deadlines:
        [ObjectIdentifier: (
            deadline: NIODeadline, exchange: ExchangeHandler,
            context: ChannelHandlerContext
        )] = [:]
    private var deadlineTimer: Scheduled<Void>?
    private var deadlineTimerDue: NIODeadline?

    init(idleTimeout: TimeAmount) {
        self.idleTimeout = idleTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        startIdleTimer()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        idleTimer?.cancel()
        deadlineTimer?.cancel()
        deadlines = [:]
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .settings(.settings(let settings)):
            let limit = settings.last { $0.parameter == .maxConcurrentStreams }.map(\.value)
            if let ready {
                self.ready = nil
                ready(limit ?? Self.defaultStreamLimit)
            } else if let limit {
                onLimitChanged?(limit)
            }
        case .goAway(let lastStreamID, _, _):
            goAwayLastStreamID = lastStreamID
            becomeUnusable()
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        becomeUnusable()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // NIOHTTP2 reports a stream's error here too, and closes the connection itself on a
        // connection error (after its GOAWAY), as NIOSSL does on a TLS failure and SwiftNIO on a
        // broken socket: nothing to close here. The streams fail on their own.
        if TLSDiagnosis.isTLSFailure(error) { tlsFailure = error }
    }

    func observe(limitChanged: @escaping @Sendable (Int) -> Void, unusable: @escaping @Sendable () -> Void) {
        onLimitChanged = limitChanged
        if self.unusable { return unusable() }
        onUnusable = unusable
    }

    private func becomeUnusable() {
        ready?(nil)
        ready = nil
        onLimitChanged = nil
        guard !unusable else { return }
        unusable = true
        let callback = onUnusable
        onUnusable = nil
        callback?()
    }

    /// Fails `exchange` (on `context`, its stream's) at `deadline` unless it ends first (`unwatch`).
    func watch(_ exchange: ExchangeHandler, context: ChannelHandlerContext, until deadline: NIODeadline) {
        deadlines[ObjectIdentifier(exchange)] = (deadline, exchange, context)
        if let deadlineTimerDue, deadlineTimerDue <= deadline { return }
        setDeadlineTimer(due: deadline)
    }

    func unwatch(_ exchange: ExchangeHandler) {
        deadlines[ObjectIdentifier(exchange)] = nil
    }

    private func setDeadlineTimer(due: NIODeadline) {
        guard let context else { return }
        deadlineTimer?.cancel()
        deadlineTimerDue = due
        deadlineTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) { [self] in
            deadlineTimer = nil
            deadlineTimerDue = nil
            let now = NIODeadline.now()
            let passed = deadlines.values.filter { $0.deadline <= now }
            for watched in passed { watched.exchange.deadlinePassed(context: watched.context) }
            if let next = deadlines.values.lazy.map(\.deadline).min() { setDeadlineTimer(due: next) }
        }
    }

    func streamOpened() {
        openStreams += 1
        idleTimer?.cancel()
        idleTimer = nil
    }

    func streamClosed() {
        openStreams -= 1
        if openStreams == 0 { startIdleTimer() }
    }

    private func startIdleTimer() {
        guard let context else { return }
        idleTimer?.cancel()
        idleTimer = context.eventLoop.assumeIsolated().scheduleTask(in: idleTimeout) { [self] in
            guard openStreams == 0, let context = self.context else { return }
            context.close(promise: nil)
        }
    }
}

/// Between TLS and HTTP/2: a flush waits for the event loop's other queued work, so the requests
/// that reach the connection in one turn of the loop (each its own stream, each flushed) leave in
/// one TLS record and one write, as curl sends them, instead of one each.
private final class FlushCoalescingHandler: ChannelOutboundHandler {
    typealias OutboundIn = NIOAny
    private var flushPending = false
    private var removed = false

    func flush(context: ChannelHandlerContext) {
        guard !flushPending else { return }
        flushPending = true
        context.eventLoop.assumeIsolated().execute { [self] in
            flushPending = false
            if !removed { context.flush() }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        removed = true
    }
}
