import NIOCore
import NIOHTTP1
import NIOPosix
import ReqPlanTransport
import Synchronization

/// A `LoopbackListener` over SwiftNIO: an HTTP/1.1 server on `127.0.0.1` that answers each request with a small
/// plain-text page and closes the connection. A request head larger than NIO's decoder takes (80 KiB), or one it
/// cannot parse, is answered 400 by NIO's error handler; a connection idle for `idleTimeout` is closed; beyond
/// `maxConnections` at once, a new connection is closed at once. None of them ends the wait.
public struct NIOLoopbackListener: LoopbackListener {
    private let group: any EventLoopGroup
    /// How long a connection may stay without reading or writing anything.
    public var idleTimeout: TimeAmount = .seconds(10)
    /// The most connections kept open at once.
    public var maxConnections = 32

    public init(group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.group = group
    }

    public func receive(
        port: Int?, listening: @escaping @Sendable (Int) async throws -> Void,
        answer: @escaping @Sendable (LoopbackRequest) -> LoopbackAnswer
    ) async throws -> LoopbackRequest {
        let (stream, continuation) = AsyncStream.makeStream(
            of: LoopbackRequest.self, bufferingPolicy: .bufferingOldest(1))
        let connections = Connections(limit: maxConnections)
        let idleTimeout = self.idleTimeout
        let server: any Channel
        do {
            server = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 32)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    guard connections.add(channel) else { return channel.close() }
                    return channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.addHandler(IdleStateHandler(allTimeout: idleTimeout))
                        try pipeline.configureHTTPServerPipeline(
                            withPipeliningAssistance: false, withErrorHandling: true)
                        try pipeline.addHandler(Responder(answer: answer) { continuation.yield($0) })
                    }
                }
                .bind(host: "127.0.0.1", port: port ?? 0).get()
        } catch {
            throw TransportError(.connect, "cannot listen on 127.0.0.1:\(port ?? 0): \(error)")
        }
        do {
            guard let bound = server.localAddress?.port else {
                throw TransportError(.connect, "the listener on 127.0.0.1 has no port")
            }
            try await listening(bound)
            // Ends with nil when the task is cancelled: the listener is closed at once.
            var requests = stream.makeAsyncIterator()
            guard let request = await requests.next() else { throw CancellationError() }
            await Self.close(server, connections)
            return request
        } catch {
            await Self.close(server, connections)
            throw error
        }
    }

    /// Closes the listening socket, then every connection still open.
    private static func close(_ server: any Channel, _ connections: Connections) async {
        try? await server.close()
        for channel in connections.closeAll() { channel.close(promise: nil) }
    }

    /// The connections open, so that none outlives the listener.
    private final class Connections: Sendable {
        private let state = Mutex<(closed: Bool, open: [ObjectIdentifier: any Channel])>((false, [:]))
        private let limit: Int

        init(limit: Int) { self.limit = limit }

        /// Keeps `channel` until it closes; false when the listener is closed or has `limit` connections.
        func add(_ channel: any Channel) -> Bool {
            let id = ObjectIdentifier(channel)
            let added = state.withLock { state in
                guard !state.closed, state.open.count < limit else { return false }
                state.open[id] = channel
                return true
            }
            if added {
                channel.closeFuture.whenComplete { _ in self.state.withLock { _ = $0.open.removeValue(forKey: id) } }
            }
            return added
        }

        /// Takes no more connections; the ones open, to close.
        func closeAll() -> [any Channel] {
            state.withLock { state in
                state.closed = true
                return Array(state.open.values)
            }
        }
    }

    /// Answers a connection's first request as soon as its head is in (its body, if any, is not read), then
    /// closes it.
    private final class Responder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private let answer: @Sendable (LoopbackRequest) -> LoopbackAnswer
        private let ended: @Sendable (LoopbackRequest) -> Void
        private var answered = false

        init(
            answer: @escaping @Sendable (LoopbackRequest) -> LoopbackAnswer,
            ended: @escaping @Sendable (LoopbackRequest) -> Void
        ) {
            self.answer = answer
            self.ended = ended
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(let head) = unwrapInboundIn(data), !answered else { return }
            answered = true
            let request = LoopbackRequest(method: head.method.rawValue, target: head.uri)
            let page = answer(request)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            headers.add(name: "Cache-Control", value: "no-store")
            headers.add(name: "X-Content-Type-Options", value: "nosniff")
            headers.add(name: "Referrer-Policy", value: "no-referrer")
            headers.add(name: "Connection", value: "close")
            for field in page.headers { headers.add(name: field.name, value: field.value) }
            let body = context.channel.allocator.buffer(string: page.text)
            headers.add(name: "Content-Length", value: String(body.readableBytes))
            let status = HTTPResponseStatus(statusCode: page.status)
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            let channel = context.channel
            let ended = self.ended
            let ends = page.ends
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                if ends { ended(request) }
                channel.close(promise: nil)
            }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is IdleStateHandler.IdleStateEvent {
                context.close(promise: nil)
            } else {
                context.fireUserInboundEventTriggered(event)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
