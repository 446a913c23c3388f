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
        try await with(answers: [response], wire: wire, closing: closing, body)
    }

    /// A server that answers the first read of each connection with `answers[0]`, the next with `answers[1]`,
    /// and so on (a request that comes in one read each: a small GET on loopback), closing as `closing` says once
    /// the last one is written. With `pace`, the last answer goes out a byte at a time, a byte each `pace`, as a
    /// slowloris server sends.
    public static func with<Result>(
        answers: [String], wire: Wire = .reqplanHTTP, closing: Closing = .afterAnswering, pace: TimeAmount? = nil,
        _ body: (String) async throws -> Result
    ) async throws -> Result {
        let context = try wire.scheme == .https ? NIOSSLContext(configuration: DemoTLS.configuration()) : nil
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        Responder(answers: answers, closing: closing, pace: pace))
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
        let answers: [String]
        let closing: Closing
        let pace: TimeAmount?
        var answered = 0

        init(answers: [String], closing: Closing, pace: TimeAmount?) {
            self.answers = answers
            self.closing = closing
            self.pace = pace
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard answered < answers.count else {
                if closing == .whenMoreArrives { context.close(promise: nil) }
                return
            }
            let answer = answers[answered]
            answered += 1
            let last = answered == answers.count
            let written = context.eventLoop.makePromise(of: Void.self)
            if last, closing == .afterAnswering {
                written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            }
            guard let pace, last else {
                context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: answer)), promise: written)
                return
            }
            Self.trickle(Array(answer.utf8)[...], context: context, pace: pace, written: written)
        }

        /// Writes `bytes` a byte each `pace`, then completes `written`.
        static func trickle(
            _ bytes: ArraySlice<UInt8>, context: ChannelHandlerContext, pace: TimeAmount,
            written: EventLoopPromise<Void>
        ) {
            guard let byte = bytes.first, context.channel.isActive else {
                written.succeed()
                return
            }
            context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: [byte])), promise: nil)
            let loop = context.eventLoop.assumeIsolated()
            loop.scheduleTask(in: pace) {
                trickle(bytes.dropFirst(), context: context, pace: pace, written: written)
            }
        }
    }
}
