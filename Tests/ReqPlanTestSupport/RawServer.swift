import NIOCore
import NIOPosix
import NIOSSL
import ReqPlanDemoAPI
import Testing

/// A raw TCP server on loopback for what the demo API cannot send: it answers each connection's
/// first bytes with `response`, exactly as given, then closes the connection (`Closing`). Over `https`
/// it presents the demo API's certificate.
public enum RawServer {
    /// When a connection is closed.
    public enum Closing: Sendable {
        /// Once the answer is written.
        case afterAnswering
        /// When more of the request arrives after the answer (the rest of a body, say): the answer is
        /// early, and the close comes just after the client has sent the request's end.
        case whenMoreArrives
    }

    public static func with<Result>(
        _ response: String, wire: Wire = .reqplanHTTP, closing: Closing = .afterAnswering,
        _ body: (String) async throws -> Result
    ) async throws -> Result {
        let context = try wire.scheme == .https ? NIOSSLContext(configuration: DemoTLS.configuration()) : nil
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    }
                    try channel.pipeline.syncOperations.addHandler(Responder(response: response, closing: closing))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        let result: Result
        do {
            result = try await body("\(wire.scheme.rawValue)://127.0.0.1:\(port)")
        } catch {
            try? await server.close()
            throw error
        }
        try await server.close()
        return result
    }

    final class Responder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let response: String
        let closing: Closing
        var answered = false

        init(response: String, closing: Closing) {
            self.response = response
            self.closing = closing
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !answered else {
                if closing == .whenMoreArrives { context.close(promise: nil) }
                return
            }
            answered = true
            let written = context.eventLoop.makePromise(of: Void.self)
            if closing == .afterAnswering {
                written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            }
            context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: response)), promise: written)
        }
    }
}
