import Foundation
import NIOCore
import NIOPosix
import ReqPlanHTTP
import ReqPlanTestSupport
import ReqPlanTransport
import Synchronization
import Testing

/// `reqplan load`'s repeater (`HTTPClientTransport.repeating`) on a socket: what it saves per request must not show
/// on the wire or in what it hands on. It writes the request's bytes as NIO's encoder made them once
/// (`OwnClientRepeater.encoded`), takes a head equal to the last one, byte for byte, as the last one was read
/// (`CommonResponseDecoder`), and gives such a head the headers it gave the last one (`RepeatDriver`).
@Suite(.timeSensitive) struct RepeatedRequestTests {
    /// A server that keeps every byte it is sent and answers each whole request (a head, and a body of its
    /// `Content-Length`) with the next of `answers`, on whatever connection it came.
    final class RecordingServer: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer

        private struct State {
            var requests: [[UInt8]] = []
            var answered = 0
        }
        private let answers: [[UInt8]]
        private let state = Mutex(State())

        init(answers: [[UInt8]]) { self.answers = answers }

        /// The requests received, in order, each as its bytes.
        var requests: [[UInt8]] { state.withLock { $0.requests } }

        /// One connection's handler: it gathers bytes until a request is whole.
        final class Connection: ChannelInboundHandler {
            typealias InboundIn = ByteBuffer
            let server: RecordingServer
            var pending: [UInt8] = []
            init(server: RecordingServer) { self.server = server }

            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                pending += unwrapInboundIn(data).readableBytesView
                while let size = Self.requestSize(pending) {
                    let answer = server.took(Array(pending.prefix(size)))
                    pending.removeFirst(size)
                    guard let answer else { return context.close(promise: nil) }
                    context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: answer)), promise: nil)
                }
            }

            /// The size of the whole request at the start of `bytes`, once it has all come.
            static func requestSize(_ bytes: [UInt8]) -> Int? {
                let text = String(decoding: bytes, as: UTF8.self)
                guard let end = text.utf8.indices.first(where: { text.utf8[$0...].starts(with: "\r\n\r\n".utf8) })
                else { return nil }
                let head = text[..<end].lowercased()
                let length =
                    head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                let size = text.utf8.distance(from: text.utf8.startIndex, to: end) + 4 + length
                return bytes.count >= size ? size : nil
            }
        }

        /// Keeps `request`; the answer to give it (nil past the last one).
        func took(_ request: [UInt8]) -> [UInt8]? {
            state.withLock { state in
                state.requests.append(request)
                defer { state.answered += 1 }
                return state.answered < answers.count ? answers[state.answered] : nil
            }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

        static func with<Result>(answers: [[UInt8]], _ body: (String, RecordingServer) async throws -> Result)
            async throws -> Result
        {
            let recorder = RecordingServer(answers: answers)
            let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(Connection(server: recorder))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            let port = try #require(server.localAddress?.port)
            do {
                let result = try await body("http://127.0.0.1:\(port)", recorder)
                try await server.close()
                return result
            } catch {
                try? await server.close()
                throw error
            }
        }
    }

    /// A response with one header line `X-N: n`, a status and a body framed by its length.
    static func answer(status: String = "200 OK", n: Int, body: String) -> [UInt8] {
        Array("HTTP/1.1 \(status)\r\nX-N: \(n)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
    }

    /// Runs `request` `times` times on one repeater; what each exchange handed on, as status, `X-N` and body.
    static func repeated(_ request: PreparedRequest, times: Int, on transport: HTTPClientTransport) async throws
        -> [String]
    {
        let repeater = try #require(transport.repeating(request, timeout: .seconds(20)))
        let started = Mutex(0)
        let seen = Mutex<[String]>([])
        let end = await repeater.run { _ in
            started.withLock { started in
                started += 1
                return started <= times ? .send : .stop
            }
        } connected: {
        } finished: { response in
            let line =
                "\(response.status) \(response.header("X-N") ?? "-") \(String(decoding: response.body, as: UTF8.self))"
            seen.withLock { $0.append(line) }
            return .again
        }
        guard case .stopped = end else {
            Issue.record("the repeater ended with \(end), not as told")
            return seen.withLock { $0 }
        }
        return seen.withLock { $0 }
    }

    /// A POST with a body, sent once by the transport and three times by a repeater: the server gets the same
    /// bytes each time, and each answer is handed on as it came.
    @Test func aRepeatedRequestReachesTheServerAsTheRequestSentAloneDoes() async throws {
        let answers = (1...4).map { Self.answer(n: $0, body: "r\($0)") }
        try await RecordingServer.with(answers: answers) { base, server in
            try await HTTPClientTransport.with(Wire.reqplanHTTP.configuration()) { transport in
                let request = try PreparedRequest(
                    method: .POST, url: base + "/orders?x=1", headers: [HeaderField("X-Trace", "abc")],
                    body: Array(#"{"sku":"a-1","qty":2}"#.utf8))
                let alone = try await transport.send(request, timeout: .seconds(20))
                #expect(alone.status == 200 && alone.header("X-N") == "1")
                let outcomes = try await Self.repeated(request, times: 3, on: transport)
                #expect(outcomes == ["200 2 r2", "200 3 r3", "200 4 r4"])
            }
            let requests = server.requests
            #expect(requests.count == 4)
            let first = String(decoding: requests[0], as: UTF8.self)
            #expect(first.hasPrefix("POST /orders?x=1 HTTP/1.1\r\n") && first.hasSuffix(#"{"sku":"a-1","qty":2}"#))
            #expect(first.lowercased().contains("x-trace: abc\r\n"))
            for (index, request) in requests.enumerated().dropFirst() {
                #expect(request == requests[0], "request \(index + 1) differs from the first")
            }
        }
    }

    /// The heads a repeater reads as the last one's are exactly those equal to it byte for byte: a head of the same
    /// size with another status or header, one of another size, and a compressed answer between (which puts NIO's
    /// decompressor in front of the handler from then on) are each read and handed on as they came.
    @Test func onlyAHeadEqualToTheLastIsTakenAsTheLastOneWas() async throws {
        // "c5", gzipped (Python's `gzip.compress(b"c5", mtime=0)`).
        let gzipped: [UInt8] = [
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x4b, 0x36, 0x05, 0x00, 0xb8, 0xee, 0xba, 0x59,
            0x02, 0x00, 0x00, 0x00,
        ]
        let compressed =
            Array(
                "HTTP/1.1 200 OK\r\nX-N: 5\r\nContent-Encoding: gzip\r\nContent-Length: \(gzipped.count)\r\n\r\n".utf8)
            + gzipped
        let answers = [
            Self.answer(n: 1, body: "c1"),
            Self.answer(n: 1, body: "c2"),
            // The same size as the two before, another status and header.
            Self.answer(status: "201 OK", n: 2, body: "c3"),
            Self.answer(status: "201 OK", n: 2, body: "c3"),
            // Another size.
            Self.answer(status: "202 Accepted", n: 3, body: "c4!"),
            Self.answer(n: 1, body: "c1"),
            compressed,
            Self.answer(n: 6, body: "c6"),
            Self.answer(n: 6, body: "c7"),
            Self.answer(status: "201 OK", n: 2, body: "c8"),
        ]
        try await RecordingServer.with(answers: answers) { base, _ in
            try await HTTPClientTransport.with(Wire.reqplanHTTP.configuration()) { transport in
                let request = try PreparedRequest(method: .GET, url: base + "/", headers: [], body: nil)
                let outcomes = try await Self.repeated(request, times: answers.count, on: transport)
                #expect(
                    outcomes == [
                        "200 1 c1", "200 1 c2", "201 2 c3", "201 2 c3", "202 3 c4!", "200 1 c1", "200 5 c5", "200 6 c6",
                        "200 6 c7", "201 2 c8",
                    ])
            }
        }
    }
}
