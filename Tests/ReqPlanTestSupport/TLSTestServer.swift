import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Testing

/// A small HTTPS server on loopback for TLS set-ups the demo API does not have: any certificate, a
/// client certificate required, a narrow choice of TLS versions and ciphers. It answers every
/// request with 200 `{"ok":true}` over HTTP/1.1.
public enum TLSTestServer {
    /// Runs `body` with the base URL (`https://127.0.0.1:PORT`) of a server using `configuration`.
    public static func with<Result>(_ configuration: TLSConfiguration, _ body: (String) async throws -> Result)
        async throws -> Result
    {
        let context = try NIOSSLContext(configuration: configuration)
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(NIOSSLServerHandler(context: context))
                    try pipeline.configureHTTPServerPipeline()
                    try pipeline.addHandler(OK())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        do {
            let result = try await body("https://127.0.0.1:\(port)")
            try await server.close()
            return result
        } catch {
            try? await server.close()
            throw error
        }
    }

    /// A server configuration presenting `issued` (signed by the test authority).
    public static func configuration(presenting issued: TestCertificateAuthority.Issued) throws -> TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(issued.certificate.path).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: issued.key.path, format: .pem)))
    }

    final class OK: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .end = unwrapInboundIn(data) else { return }
            let body = context.channel.allocator.buffer(string: #"{"ok":true}"#)
            var head = HTTPResponseHead(version: .http1_1, status: .ok)
            head.headers.add(name: "Content-Type", value: "application/json")
            head.headers.add(name: "Content-Length", value: String(body.readableBytes))
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
