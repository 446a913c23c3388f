import NIOCore
import NIOPosix
import NIOSSL
import ReqPlanDemoAPI
import Testing

/// A raw TCP server on loopback for what the demo API cannot send: it answers each connection's
/// first bytes with `response`, exactly as given, then closes the connection. Over `https` it
/// presents the demo API's certificate.
public enum RawServer {
    public static func with(_ response: String, wire: Wire = .reqplanHTTP, _ body: (String) async throws -> Void)
        async throws
    {
        let context = try wire.scheme == .https ? NIOSSLContext(configuration: DemoTLS.configuration()) : nil
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    }
                    try channel.pipeline.syncOperations.addHandler(Responder(response: response))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        do {
            try await body("\(wire.scheme.rawValue)://127.0.0.1:\(port)")
        } catch {
            try? await server.close()
            throw error
        }
        try await server.close()
    }

    final class Responder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let response: String
        var answered = false

        init(response: String) { self.response = response }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !answered else { return }
            answered = true
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: response)), promise: written)
        }
    }
}
