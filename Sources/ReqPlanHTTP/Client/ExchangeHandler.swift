import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOHTTPCompression
import ReqPlanTransport

/// What the transport writes into a connection's pipeline: the request, its deadline and where its response goes.
/// What does not change from one exchange of a request to the next is one object (`Request`), which a repeater
/// makes once: an exchange is then small enough for NIO to carry through the pipeline without a box of its own.
struct Exchange: Sendable {
    /// The request and where its response goes.
    final class Request: Sendable {
        let head: HTTPRequestHead
        let body: ByteBuffer?
        /// How many bytes of the response body to keep (the rest is counted, not held).
        let keep: Int
        let answer: ExchangeAnswer
        /// The whole request as NIO's encoder writes it, when it was encoded once for many exchanges
        /// (`OwnClientRepeater.encoded`): on a plain HTTP/1.1 connection these bytes are written below the encoder.
        let encoded: ByteBuffer?

        init(head: HTTPRequestHead, body: ByteBuffer?, keep: Int, answer: ExchangeAnswer, encoded: ByteBuffer? = nil) {
            self.head = head
            self.body = body
            self.keep = keep
            self.answer = answer
            self.encoded = encoded
        }
    }

    let request: Request
    var deadline: NIODeadline?

    var head: HTTPRequestHead { request.head }
    var body: ByteBuffer? { request.body }
    var keep: Int { request.keep }
    var answer: ExchangeAnswer { request.answer }
    var encoded: ByteBuffer? { request.encoded }

    init(
        head: HTTPRequestHead, body: ByteBuffer?, deadline: NIODeadline?, keep: Int,
        promise: EventLoopPromise<ReqPlanClient.Response>
    ) {
        self.init(
            Request(head: head, body: body, keep: keep, answer: .promise(promise)), deadline: deadline)
    }

    init(_ request: Request, deadline: NIODeadline?) {
        self.request = request
        self.deadline = deadline
    }
}

/// Where an exchange's outcome goes, once: a promise (a task waits on it), or a sink on the connection's
/// event loop that takes it at once (`reqplan load`'s repeater, which sends the next request from there and so
/// makes no promise per request).
enum ExchangeAnswer: Sendable {
    case promise(EventLoopPromise<ReqPlanClient.Response>)
    case sink(any ExchangeSink)

    func give(_ result: Result<ReqPlanClient.Response, any Error>) {
        switch self {
        case .promise(let promise): promise.completeWith(result)
        case .sink(let sink): sink.answered(result)
        }
    }
}

/// Takes the outcome of an exchange, on the connection's event loop (`ExchangeAnswer.sink`).
protocol ExchangeSink: AnyObject, Sendable {
    func answered(_ result: Result<ReqPlanClient.Response, any Error>)
}

/// The last handler of an HTTP/1.1 connection, or of an HTTP/2 stream (behind NIOHTTP2's
/// `HTTP2FramePayloadToHTTP1ClientCodec`): writes one request, collects its response (decompressed by NIO's
/// decompressor, which it puts in front of itself at the first compressed one: `decompress`), and answers the
/// exchange's promise once: with the response, or with why
/// there is none (deadline, cancellation, closed connection, too large, malformed, not processed).
/// Between exchanges it closes an HTTP/1.1 connection once it has been idle for `idleTimeout`.
///
/// One timer per connection serves both the exchange's deadline and the idle expiry, and is moved
/// only when it would fire too late: a run of requests whose deadlines (or idle periods) end later
/// than the timer's time leaves it alone, and when it fires it is set again for whatever is then
/// due. So a busy connection schedules no timer per request. An HTTP/2 stream's deadline is kept
/// by its connection's handler, with one such timer for all its streams.
final class ExchangeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Exchange
    typealias OutboundOut = HTTPClientRequestPart

    /// Sent by a cancelled task: fail the exchange and close the connection.
    struct Cancel: Sendable {}

    private let maxBodySize: Int
    /// Nil on an HTTP/2 stream, which carries one exchange.
    private let idleTimeout: TimeAmount?
    /// The HTTP/2 connection a stream belongs to (its GOAWAY tells which streams it did not process).
    private let connection: HTTP2ConnectionHandler?
    /// Whether this is an HTTP/1.1 connection with nothing under NIO's codec: a write then fails only when the
    /// connection is closed, and no handler (as TLS's, once it is closed) drops it without closing.
    private let plain: Bool
    /// Where an HTTP/1.1 connection's response decoder learns the method of each request written (nil on an
    /// HTTP/2 stream).
    private let inFlight: RequestsInFlight?
    /// Whether the request's head went out (an HTTP/2 stream's may wait for the server's stream limit).
    private var headSent = false
    /// The TLS failure the connection met, if it did: after the handshake, a TLS 1.3 server checks a
    /// client certificate and may end the connection between exchanges (an HTTP/2 stream's is its
    /// connection's).
    var tlsFailure: (any Error)? { ownTLSFailure ?? connection?.tlsFailure }
    private var ownTLSFailure: (any Error)?
    /// Where the exchange on its way answers; nil between exchanges.
    private var promise: ExchangeAnswer?
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
    /// The number of `head` on the connection when reqplan's decoder read it (`CommonHeadFacts.id`).
    private var commonHead: UInt64?
    private var body: [UInt8] = []
    /// The body's size so far, kept or not.
    private var bodySize = 0
    /// How many bytes of the body to keep.
    private var keep = Int.max
    private var receivedAny = false
    /// Whether NIOHTTPCompression's decompressor is in front of this handler (`decompress`).
    private var decompressing = false
    /// When the exchange was written, its last byte went out, and its response's first byte came.
    private var writeStart = NIODeadline.uptimeNanoseconds(0)
    private var sentAt: NIODeadline?
    /// Whether `sentAt` is when the next flush returns (a request whose body fits the socket's buffer).
    private var sentOnFlush = false
    /// Whether that flush is under way: the connection closing during it means the request's bytes could not be
    /// written (`channelInactive`).
    private var flushingRequest = false
    /// The largest body whose request is taken as sent when its flush returns.
    static let sentOnFlushLimit = 16 << 10
    /// The context of NIO's request encoder on an HTTP/1.1 connection (`ReqPlanClient.addHTTP1`): a request
    /// encoded already (`Exchange.encoded`) is written there, so that it reaches the connection as it is.
    private var encoderContext: ChannelHandlerContext?
    /// That encoder (nil on an HTTP/2 stream).
    private let encoder: HTTPRequestEncoder?
    /// This handler's own context on an HTTP/1.1 connection, while it is in the pipeline (`send`, `readCommon`).
    private var ownContext: ChannelHandlerContext?
    private var firstByteAt: NIODeadline?

    /// The handler of an HTTP/1.1 connection, `plain` when no TLS is under it.
    init(
        maxBodySize: Int, idleTimeout: TimeAmount, plain: Bool, inFlight: RequestsInFlight, encoder: HTTPRequestEncoder
    ) {
        self.encoder = encoder
        self.maxBodySize = maxBodySize
        self.idleTimeout = idleTimeout
        self.connection = nil
        self.plain = plain
        self.inFlight = inFlight
    }

    /// The handler of a stream of `connection`.
    init(maxBodySize: Int, connection: HTTP2ConnectionHandler) {
        self.encoder = nil
        self.maxBodySize = maxBodySize
        self.idleTimeout = nil
        self.connection = connection
        self.plain = false
        self.inFlight = nil
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let encoder else { return }
        encoderContext = try? context.pipeline.syncOperations.context(handler: encoder)
        ownContext = context
        inFlight?.reader = self
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // The contexts of a pipeline hold one another, and the decoder this handler: let go with the connection.
        encoderContext = nil
        ownContext = nil
        inFlight?.reader = nil
    }

    /// Writes `exchange` and flushes it, as a write and a flush from the end of the pipeline reach this handler,
    /// which is its last: without the trip there, the wrapping of the exchange and its unwrapping (`reqplan load`'s
    /// repeater, `RepeatDriver.send`; BENCHMARKS.md, "Load"). On the event loop.
    /// - Returns: false when the handler has left the pipeline (the connection closed), and nothing was written.
    func send(_ exchange: Exchange) -> Bool {
        guard let context = ownContext else { return false }
        write(context: context, exchange, promise: nil)
        flush(context: context)
        return true
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        write(context: context, unwrapOutboundIn(data), promise: promise)
    }

    private func write(context: ChannelHandlerContext, _ exchange: Exchange, promise: EventLoopPromise<Void>?) {
        guard self.promise == nil else {
            // One request at a time; the pool never does this.
            exchange.answer.give(
                .failure(ReqPlanClient.ClientError.invalid(ChannelError.inappropriateOperationForState)))
            promise?.fail(ChannelError.inappropriateOperationForState)
            return
        }
        self.promise = exchange.answer
        writeStart = .now()
        sentAt = nil
        firstByteAt = nil
        keep = exchange.keep
        receivedAny = false
        bodiless = exchange.head.method == .HEAD
        idleSince = nil
        deadline = exchange.deadline
        if let deadline = exchange.deadline {
            if let connection {
                connection.watch(self, context: context, until: deadline)
            } else {
                setTimer(context: context, due: deadline)
            }
        }
        headSent = false
        let bodySize = exchange.body?.readableBytes ?? 0
        // When the last byte went out: a small request goes out whole in the flush that follows (`flush`), a larger
        // one may wait for the socket, and is told by its last write's promise (a promise per request costs about
        // a tenth of a small request's CPU in `reqplan load`).
        let small = bodySize <= Self.sentOnFlushLimit
        if plain, small {
            // A small request on a plain HTTP/1.1 connection: its writes can fail only when the connection is
            // closed, which is told without a promise. Closed already (before the pipeline's handlers were
            // removed), it was not sent; closed by the flush that writes it (`flushingRequest`), its bytes could not
            // go out. (NIO's header check, should it refuse one, says so in `errorCaught`.)
            guard context.channel.isActive else {
                promise?.fail(ChannelError.ioOnClosedChannel)
                return finish(context: context, .failure(tlsFailure.map(ReqPlanClient.ClientError.tls) ?? .unprocessed))
            }
            inFlight?.wrote(exchange.head.method)
            if let encoded = exchange.encoded, let encoderContext {
                // The bytes NIO's encoder made of this very request once (`OwnClientRepeater.encoded`), written
                // below it: the request is not encoded again for each exchange of a load (BENCHMARKS.md, "Load").
                encoderContext.write(NIOAny(IOData.byteBuffer(encoded)), promise: nil)
                sentOnFlush = true
                promise?.succeed()
                return
            }
            context.write(wrapOutboundOut(.head(exchange.head)), promise: nil)
        } else {
            inFlight?.wrote(exchange.head.method)
            context.write(wrapOutboundOut(.head(exchange.head)), promise: headWrittenPromise(context: context))
        }
        if let body = exchange.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        if small {
            sentOnFlush = true
            context.write(wrapOutboundOut(.end(nil)), promise: nil)
        } else {
            let endWritten = context.eventLoop.makePromise(of: Void.self)
            endWritten.futureResult.assumeIsolated().whenSuccess { [self] in sentAt = .now() }
            context.write(wrapOutboundOut(.end(nil)), promise: endWritten)
        }
        // The exchange reached the handler: its outcome goes to its own promise from here on.
        promise?.succeed()
    }

    /// A promise for the write of a request's head, which tells whether it went out: it fails when the
    /// connection (or stream) closed first, when an HTTP/2 server said GOAWAY before the stream could start, or
    /// when NIO refuses a header (the transport checks them first).
    private func headWrittenPromise(context: ChannelHandlerContext) -> EventLoopPromise<Void> {
        let headWritten = context.eventLoop.makePromise(of: Void.self)
        headWritten.futureResult.assumeIsolated().whenComplete { [self] result in
            guard case .failure(let error) = result else {
                headSent = true
                return
            }
            let unsent =
                switch error {
                case is ChannelError, is IOError, is NIOHTTP2Errors.StreamClosed,
                    is NIOHTTP2Errors.IOOnClosedConnection,
                    is NIOHTTP2Errors.CreatedStreamAfterGoaway, is NIOHTTP2Errors.NoStreamIDAvailable:
                    true
                default:
                    false
                }
            finish(
                context: context,
                .failure(
                    unsent
                        ? ReqPlanClient.ClientError.unprocessed
                        : ReqPlanClient.ClientError.invalid(error)))
        }
        return headWritten
    }

    func flush(context: ChannelHandlerContext) {
        guard sentOnFlush else { return context.flush() }
        sentOnFlush = false
        flushingRequest = true
        context.flush()
        flushingRequest = false
        sentAt = .now()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): read(context: context, head, common: inFlight?.takeCommon(), data: data)
        case .body(let buffer): read(context: context, buffer)
        case .end: readEnd(context: context)
        }
    }

    /// A whole response of the common kind, body and all, when this handler `takesCommon` it: handed here by the
    /// decoder just before this handler (`CommonResponseDecoder`) instead of as three parts through the pipeline,
    /// each wrapped and unwrapped on the way. It does what `channelRead` does with the three (BENCHMARKS.md,
    /// "Load"). On the event loop.
    func readCommon(_ head: HTTPResponseHead, body: ByteBuffer, facts: CommonHeadFacts) {
        guard let context = ownContext else { return }
        read(context: context, head, common: facts, data: nil)
        if body.readableBytes > 0 { read(context: context, body) }
        readEnd(context: context)
    }

    /// Whether a common response that says `facts` may be handed here whole (`readCommon`): no decompressor is, or
    /// is to be, in front of this handler, and it is in the pipeline.
    func takesCommon(_ facts: CommonHeadFacts) -> Bool { ownContext != nil && !decompressing && !facts.encoded }

    private func received() {
        if !receivedAny { firstByteAt = .now() }
        receivedAny = true
    }

    /// A response's head, with what reqplan's decoder read of it, if it did; `data`, the head as it came
    /// (for the decompressor put in front of this handler at the first compressed response).
    private func read(context: ChannelHandlerContext, _ head: HTTPResponseHead, common: CommonHeadFacts?, data: NIOAny?)
    {
        received()
        var encoded = false
        var announced: Int?
        if let common, !decompressing {
            // What reqplan's decoder read of this head (behind the decompressor, the head is its).
            (encoded, announced) = (common.encoded, common.length)
            commonHead = common.id
        } else {
            // One look through the headers, for the two this handler reads.
            commonHead = nil
            var length: String?
            for (name, value) in head.headers {
                if name.equalsIgnoringCase("content-encoding") {
                    encoded = true
                } else if length == nil, name.equalsIgnoringCase("content-length") {
                    length = value
                }
            }
            announced = length.flatMap { Int($0) }
        }
        if !decompressing, encoded {
            return decompress(context: context, data ?? NIOAny(HTTPClientResponsePart.head(head)))
        }
        self.head = head
        // A HEAD response, a 204 or a 304 announces a length it does not send.
        if !bodiless, head.status != .noContent, head.status != .notModified,
            let length = announced, length > maxBodySize
        {
            finish(context: context, .failure(ReqPlanClient.ClientError.tooLarge))
        }
    }

    private func read(context: ChannelHandlerContext, _ buffer: ByteBuffer) {
        received()
        guard promise != nil else { return }
        guard bodySize + buffer.readableBytes <= maxBodySize else {
            return finish(context: context, .failure(ReqPlanClient.ClientError.tooLarge))
        }
        bodySize += buffer.readableBytes
        if body.count < keep { body.append(contentsOf: buffer.readableBytesView.prefix(keep - body.count)) }
    }

    private func readEnd(context: ChannelHandlerContext) {
        received()
        guard let head else { return }
        // A response reqplan's decoder read keeps the connection (`RequestsInFlight.handedOver`).
        let keepAlive = (inFlight.map { !$0.handedOver } ?? false) || head.isKeepAlive
        var response = ReqPlanClient.Response(head: head, body: body, size: bodySize, keepAlive: keepAlive)
        response.phases = phases(end: .now())
        response.commonHead = commonHead
        finish(context: context, .success(response))
    }

    /// Puts NIOHTTPCompression's `NIOHTTPResponseDecompressor` in front of this handler when the first response
    /// that says `Content-Encoding` arrives, and gives it that response's head: it hands on the head and the
    /// body decompressed, as it does every later response's of the connection (or stream).
    ///
    /// Most responses are not compressed, and a decompressor in the pipeline from the start costs about a tenth
    /// of the client's CPU per small request even when it has nothing to do (HTTP/2 makes one per stream); a
    /// handler that only looked for the header would still be a hop for each part of each response
    /// (BENCHMARKS.md, "Load"). The request's `Accept-Encoding: deflate, gzip`, which the decompressor would add,
    /// is added by the transport (`RequestFraming.head`).
    private func decompress(context: ChannelHandlerContext, _ head: NIOAny) {
        decompressing = true
        let decompressor = NIOHTTPResponseDecompressor(limit: .ratio(100))
        let itsContext: ChannelHandlerContext
        do {
            try context.pipeline.syncOperations.addHandler(decompressor, position: .before(self))
            itsContext = try context.pipeline.syncOperations.context(handler: decompressor)
        } catch {
            return errorCaught(context: context, error: error)
        }
        // What the handler before would have done had the decompressor been there: it hands the head on to this
        // handler's `channelRead`, now with `decompressing` set.
        decompressor.channelRead(context: itsContext, data: head)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is Cancel else { return context.triggerUserOutboundEvent(event, promise: promise) }
        finish(context: context, .failure(ReqPlanClient.ClientError.cancelled))
        promise?.succeed()
    }

    func channelInactive(context: ChannelHandlerContext) {
        // An HTTP/2 stream whose head never left (held back by the server's stream limit) when the
        // connection closed was not sent; nor was an HTTP/1.1 request whose flush closed the connection.
        let unsent = connection != nil ? !headSent : plain && flushingRequest && !receivedAny
        let failure: ReqPlanClient.ClientError
        if let tls = tlsFailure {
            failure = .tls(tls)
        } else {
            failure = unsent ? .unprocessed : .closed(early: !receivedAny)
        }
        finish(context: context, .failure(failure), close: false)
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if TLSDiagnosis.isTLSFailure(error) { ownTLSFailure = error }
        // Between exchanges (an unsolicited response, a reset while idle) the connection is
        // closed, so the pool drops it.
        guard promise != nil else { return context.close(promise: nil) }
        let failure: ReqPlanClient.ClientError
        switch error {
        case is NIOHTTPDecompression.DecompressionError, is NIOHTTPDecompression.ExtraDecompressionError,
            is HTTPParserError:
            failure = .invalid(error)
        case _ where TLSDiagnosis.isTLSFailure(error):
            // After the handshake: a TLS 1.3 server checks the client certificate only then.
            failure = .tls(error)
        case let closed as NIOHTTP2Errors.StreamClosed where !receivedAny && isUnprocessed(closed):
            failure = .unprocessed
        default:
            failure = .closed(early: !receivedAny)
        }
        finish(context: context, .failure(failure))
    }

    /// Whether the server did not process the stream: it refused it, or it is above the last
    /// stream of the connection's GOAWAY (RFC 9113, section 8.7).
    private func isUnprocessed(_ closed: NIOHTTP2Errors.StreamClosed) -> Bool {
        if closed.errorCode == .refusedStream { return true }
        guard let last = connection?.goAwayLastStreamID else { return false }
        return closed.streamID > last
    }

    /// Send, wait and receive of the exchange that ends at `end`: a response that began before the
    /// request's last byte went out (a server may answer early) counts no wait.
    private func phases(end: NIODeadline) -> ReqPlanClient.Phases {
        let firstByte = firstByteAt ?? end
        let sent = min(sentAt ?? firstByte, firstByte)
        var phases = ReqPlanClient.Phases()
        phases.send = sent - writeStart
        phases.wait = firstByte - sent
        phases.receive = end - firstByte
        return phases
    }

    /// Answers the exchange once; on failure the connection closes (whatever it was in the
    /// middle of cannot be reused), on success its idle time starts.
    private func finish(
        context: ChannelHandlerContext, _ result: Result<ReqPlanClient.Response, any Error>,
        close: Bool = true
    ) {
        guard let promise else { return }
        self.promise = nil
        if deadline != nil { connection?.unwatch(self) }
        deadline = nil
        head = nil
        body = []
        bodySize = 0
        switch result {
        case .failure:
            if close { context.close(promise: nil) }
        case .success:
            if let idleTimeout {
                let now = NIODeadline.now()
                idleSince = now
                setTimer(context: context, due: now + idleTimeout)
            }
        }
        promise.give(result)
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

    /// The exchange's deadline passed (an HTTP/2 stream's, told by its connection).
    func deadlinePassed(context: ChannelHandlerContext) {
        finish(context: context, .failure(ReqPlanClient.ClientError.timeout))
    }

    /// Fails an exchange past its deadline, closes a connection idle too long, or sets the timer
    /// again for what is due next.
    private func timerFired(context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        if promise != nil {
            guard let deadline else { return }
            if deadline <= now {
                finish(context: context, .failure(ReqPlanClient.ClientError.timeout))
            } else {
                setTimer(context: context, due: deadline)
            }
        } else if let idleSince, let idleTimeout {
            if idleSince + idleTimeout <= now {
                context.close(promise: nil)
            } else {
                setTimer(context: context, due: idleSince + idleTimeout)
            }
        }
    }
}
