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
// head's bytes again for every request: what a request encoded once would save.

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

/// Runs the floor for `seconds` over `connections` connections and prints the responses a second.
func runNIOFloor(connections: Int, seconds: Int, writePromises: Bool, cachedHead: Bool = false) async throws {
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
                if cachedHead {
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
