import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

// `reqplan-bench nio-floor [CONNECTIONS] [SECONDS] [--write-promises]`: the floor of an HTTP/1.1 client over
// SwiftNIO on this machine, for `reqplan load`'s ceiling (BENCHMARKS.md, "Load"). Each connection sends
// `GET /small.json` to 127.0.0.1:18180 (scripts/bench-nginx-server.sh) again as soon as its response ends,
// through NIO's own codec (`addHTTPClientHandlers`) and nothing else: no pool, no deadline, no body kept, no
// check but the status. `--write-promises` adds a promise with a callback to each of the two writes of a request,
// as a client that times its phases does. `--cached-head` puts in NIO's encoder's place one that writes the first
// head's bytes again for every request: what a request encoded once would save. `--raw` leaves NIO's HTTP codec
// out: each connection writes the same request bytes and finds each response's end in the bytes that come (the
// status line, `Content-Length` and the body, nothing else read): the ceiling of any client over SwiftNIO's
// channels, whatever its codec. `--lean-decoder` puts in place of NIO's response decoder one that does the least
// work and still hands on what NIO's does (a head with every header, the body, the end), for `Content-Length`
// bodies only: what a codec of reqplan's own would save.

/// Responses with status 200 so far, added in batches.
private final class FloorCount: Sendable {
    let value = Atomic<Int>(0)
}

/// Sends the request again at the end of each response until `end`.
private final class FloorHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let head: HTTPRequestHead
    private let count: FloorCount
    private let end: NIODeadline
    private let writePromises: Bool
    private var status = 0
    private var ok = 0
    private var sentAt = NIODeadline.now()
    private var headSent = false

    init(head: HTTPRequestHead, count: FloorCount, end: NIODeadline, writePromises: Bool) {
        self.head = head
        self.count = count
        self.end = end
        self.writePromises = writePromises
    }

    private func send(_ context: ChannelHandlerContext) {
        guard writePromises else {
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        let headWritten = context.eventLoop.makePromise(of: Void.self)
        headWritten.futureResult.assumeIsolated().whenComplete { [self] _ in headSent = true }
        let endWritten = context.eventLoop.makePromise(of: Void.self)
        endWritten.futureResult.assumeIsolated().whenComplete { [self] _ in sentAt = .now() }
        context.write(wrapOutboundOut(.head(head)), promise: headWritten)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: endWritten)
    }

    func channelActive(context: ChannelHandlerContext) { send(context) }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        print("nio-floor: \(error)")
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
        case .body:
            break
        case .end:
            if status == 200 { ok += 1 }
            if ok == 256 {
                count.value.add(ok, ordering: .relaxed)
                ok = 0
            }
            if NIODeadline.now() < end { send(context) } else { context.close(promise: nil) }
        }
    }
}

/// An encoder that writes the first head's bytes again for every head (the experiment's upper bound on a
/// request encoded once).
private final class CachedHeadEncoder: ChannelOutboundHandler {
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = ByteBuffer
    private var cached: ByteBuffer?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            let bytes: ByteBuffer
            if let cached {
                bytes = cached
            } else {
                var buffer = context.channel.allocator.buffer(capacity: 256)
                buffer.writeString("\(head.method.rawValue) \(head.uri) HTTP/1.1\r\n")
                for (name, value) in head.headers { buffer.writeString("\(name): \(value)\r\n") }
                buffer.writeString("\r\n")
                cached = buffer
                bytes = buffer
            }
            context.write(wrapOutboundOut(bytes), promise: promise)
        case .body, .end:
            promise?.succeed()
        }
    }
}

/// Writes the same request bytes again at the end of each response, found with no HTTP codec: the head's end
/// (CRLF CRLF), its status and `Content-Length` (as nginx writes it), then that many bytes of body.
private final class RawFloorHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let request: ByteBuffer
    private let count: FloorCount
    private let end: NIODeadline
    private var buffered: ByteBuffer?
    /// The body bytes of the current response still to come; nil while its head is read.
    private var bodyLeft: Int?
    private var status = 0
    private var ok = 0

    init(request: ByteBuffer, count: FloorCount, end: NIODeadline) {
        self.request = request
        self.count = count
        self.end = end
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(request), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        print("nio-floor: \(error)")
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if buffered != nil { buffered?.writeBuffer(&bytes) } else { buffered = bytes }
        while var buffer = buffered {
            if let left = bodyLeft {
                let taken = min(left, buffer.readableBytes)
                buffer.moveReaderIndex(forwardBy: taken)
                buffered = buffer.readableBytes == 0 ? nil : buffer
                guard taken == left else {
                    bodyLeft = left - taken
                    return
                }
                bodyLeft = nil
                if status == 200 { ok += 1 }
                if ok == 256 {
                    count.value.add(ok, ordering: .relaxed)
                    ok = 0
                }
                guard NIODeadline.now() < end else {
                    context.close(promise: nil)
                    return
                }
                context.writeAndFlush(wrapOutboundOut(request), promise: nil)
            } else {
                guard let head = Self.head(buffer.readableBytesView) else { return }
                status = head.status
                bodyLeft = head.length
                buffer.moveReaderIndex(forwardBy: head.size)
                buffered = buffer
            }
        }
    }

    /// "Content-Length: " as nginx writes it, at a line's start.
    private static let contentLength = Array("\nContent-Length: ".utf8)

    /// The head at the start of `bytes` when it is whole: its size, status and `Content-Length`.
    private static func head(_ bytes: ByteBufferView) -> (size: Int, status: Int, length: Int)? {
        bytes.withUnsafeBytes { raw -> (size: Int, status: Int, length: Int)? in
            let n = raw.count
            var end = 3
            while end < n, !(raw[end] == 10 && raw[end - 1] == 13 && raw[end - 2] == 10 && raw[end - 3] == 13) {
                end += 1
            }
            guard end < n, n > 12 else { return nil }
            let status = (9..<12).reduce(0) { $0 * 10 + Int(raw[$1] &- 48) }
            let field = contentLength
            var length = 0
            var i = 0
            while i + field.count <= end {
                if raw[i] == 10, (0..<field.count).allSatisfy({ raw[i + $0] == field[$0] }) {
                    var j = i + field.count
                    while j < end, raw[j] >= 48, raw[j] <= 57 {
                        length = length * 10 + Int(raw[j] - 48)
                        j += 1
                    }
                    break
                }
                i += 1
            }
            return (end + 1, status, length)
        }
    }
}

/// A response decoder of the least work that still hands on what NIO's does (`HTTPClientResponsePart`: a head with
/// its status and every header as `HTTPHeaders`, the body's bytes, the end), for bodies framed by
/// `Content-Length` only. An experiment's bound on a codec of reqplan's own, not a parser to rely on.
private struct LeanResponseDecoder: ByteToMessageDecoder {
    typealias InboundOut = HTTPClientResponsePart
    /// The body bytes of the current response still to come; nil while its head is read.
    private var bodyLeft: Int?

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if let left = bodyLeft {
            guard buffer.readableBytes > 0, let body = buffer.readSlice(length: min(left, buffer.readableBytes))
            else { return .needMoreData }
            bodyLeft = left - body.readableBytes
            context.fireChannelRead(NIOAny(HTTPClientResponsePart.body(body)))
            endIfWhole(context)
            return .continue
        }
        guard let (head, size) = Self.head(buffer) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: size)
        bodyLeft = head.headers.first(name: "content-length").flatMap { Int($0) } ?? 0
        context.fireChannelRead(NIOAny(HTTPClientResponsePart.head(head)))
        endIfWhole(context)
        return .continue
    }

    /// Ends the response once its body has all come.
    private mutating func endIfWhole(_ context: ChannelHandlerContext) {
        guard bodyLeft == 0 else { return }
        bodyLeft = nil
        context.fireChannelRead(NIOAny(HTTPClientResponsePart.end(nil)))
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    { .needMoreData }

    /// The head at the start of `buffer` when it is whole, and its size.
    private static func head(_ buffer: ByteBuffer) -> (HTTPResponseHead, Int)? {
        buffer.withUnsafeReadableBytes { raw -> (HTTPResponseHead, Int)? in
            let n = raw.count
            var end = 3
            while end < n, !(raw[end] == 10 && raw[end - 1] == 13 && raw[end - 2] == 10 && raw[end - 3] == 13) {
                end += 1
            }
            guard end < n, n > 12 else { return nil }
            let status = (9..<12).reduce(0) { $0 * 10 + Int(raw[$1] &- 48) }
            var headers = HTTPHeaders()
            var line = 0
            while raw[line] != 10 { line += 1 }
            line += 1
            while line < end - 1 {
                var colon = line
                while raw[colon] != 58 { colon += 1 }
                var valueStart = colon + 1
                while raw[valueStart] == 32 { valueStart += 1 }
                var lineEnd = valueStart
                while raw[lineEnd] != 13 { lineEnd += 1 }
                headers.add(
                    name: String(decoding: UnsafeRawBufferPointer(rebasing: raw[line..<colon]), as: UTF8.self),
                    value: String(
                        decoding: UnsafeRawBufferPointer(rebasing: raw[valueStart..<lineEnd]), as: UTF8.self))
                line = lineEnd + 2
            }
            return (
                HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers),
                end + 1
            )
        }
    }
}

/// Runs the floor for `seconds` over `connections` connections and prints the responses a second.
func runNIOFloor(
    connections: Int, seconds: Int, writePromises: Bool, cachedHead: Bool = false, raw: Bool = false,
    lean: Bool = false
) async throws {
    var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/small.json")
    head.headers.add(name: "Host", value: "127.0.0.1:18180")
    head.headers.add(name: "Accept-Encoding", value: "deflate, gzip")
    let count = FloorCount()
    let end = NIODeadline.now() + .seconds(Int64(seconds))
    var channels: [any Channel] = []
    for _ in 0..<connections {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).channelInitializer {
            [head] channel in
            channel.eventLoop.makeCompletedFuture {
                if raw {
                    var request = channel.allocator.buffer(capacity: 128)
                    request.writeString("GET /small.json HTTP/1.1\r\n")
                    for (name, value) in head.headers { request.writeString("\(name): \(value)\r\n") }
                    request.writeString("\r\n")
                    try channel.pipeline.syncOperations.addHandler(
                        RawFloorHandler(request: request, count: count, end: end))
                    return
                }
                if lean {
                    try channel.pipeline.syncOperations.addHandler(HTTPRequestEncoder())
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LeanResponseDecoder()))
                } else if cachedHead {
                    try channel.pipeline.syncOperations.addHandler(CachedHeadEncoder())
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPResponseDecoder()))
                } else {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                }
                try channel.pipeline.syncOperations.addHandler(
                    FloorHandler(head: head, count: count, end: end, writePromises: writePromises))
            }
        }.connect(host: "127.0.0.1", port: 18180).get()
        channels.append(channel)
    }
    for channel in channels { try? await channel.closeFuture.get() }
    let total = count.value.load(ordering: .relaxed)
    print("nio-floor: \(total) responses in \(seconds)s (\(total / seconds)/s)")
}
