import NIOCore
import NIOEmbedded
import NIOHTTP1
import ReqPlanTestSupport
import Testing

@testable import ReqPlanHTTP

/// `CommonResponseDecoder`, run by its `CommonResponseHandler`, against NIO's own decoder run by NIO's
/// `ByteToMessageHandler`, byte for byte: each server's answer, sent whole and in reads of 1 and 7 bytes, must give
/// the same parts (heads, bodies joined, ends) and the same error through both (`ResponseDecoding`; the
/// `http1-response` fuzz target makes the same comparison on its inputs).
@Suite struct CommonResponseDecoderTests {
    static let answers: [(String, [HTTPMethod])] = [
        ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello", [.GET]),
        (
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabHTTP/1.1 404 Not Found\r\ncontent-length: 3\r\n\r\nxyz",
            [.GET, .GET]
        ),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", [.GET]),
        (
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nc\r\n0\r\n\r\n",
            [.GET, .GET]
        ),
        ("HTTP/1.1 200 OK\r\n\r\nto the end", [.GET]),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", [.HEAD]),
        ("HTTP/1.1 204 No Content\r\n\r\n", [.DELETE]),
        ("HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n", [.GET]),
        ("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz", [.POST]),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nz", [.GET]),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nzz", [.GET]),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nz\r\n0\r\n\r\n", [.GET]),
        ("HTTP/1.1 200 OK\r\nX-A: b  \r\nX-B:\tc\t\r\nX-C:\r\nContent-Length: 0\r\n\r\n", [.GET]),
        ("HTTP/1.1 200 OK\r\nX-A: b\r\n  folded\r\nContent-Length: 0\r\n\r\n", [.GET]),
        ("HTTP/1.1 200 OK\nContent-Length: 0\n\n", [.GET]),
        ("HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nz", [.GET]),
        ("HTTP/1.1 200 OK\r\nNo colon here\r\nContent-Length: 0\r\n\r\n", [.GET]),
        ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\ncut", [.GET]),
        ("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", [.GET]),
        ("HTTP/1.1 200 OK\r\nContent-Length: 005\r\n\r\nabcde", [.GET]),
        ("HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\nabcde", [.GET]),
        ("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nab", [.GET]),
        ("HTTP/1.1 200 OK\r\nX-Bin: caf\u{e9}\r\nContent-Length: 0\r\n\r\n", [.GET]),
        ("HTTP/1.1 999 Odd\r\nContent-Length: 0\r\n\r\n", [.GET]),
        ("HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n", [.GET]),
        ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", [.GET]),
        ("HTTP/1.1 200 OK\r\nContent-Len", [.GET]),
        ("", [.GET]),
        ("garbage\r\n\r\n", [.GET]),
        // Found by the `http1-response` fuzz target: after a response that closes the connection, NIO's decoder
        // refuses what follows ("data received after completed connection: close message").
        ("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n\r\n", [.GET, .GET]),
        ("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", [.GET]),
        ("HTTP/1.1 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nokmore", [.GET, .GET]),
        ("HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\nmore", [.GET, .GET]),
        ("HTTP/1.1 200 OK\r\nProxy-Connection: close\r\nContent-Length: 0\r\n\r\nmore", [.GET, .GET]),
    ]

    /// The answers whose first head this decoder reads itself (the rest go to NIO's decoder): so the comparison
    /// above tests this decoder's own reading, not only its hand-over.
    static let commonFirstHeads: Set<Int> = [0, 1, 3, 12, 17, 18, 19, 22, 25, 31]

    @Test(arguments: 0..<answers.count)
    func readsTheCommonHeadsItself(_ index: Int) {
        let (text, methods) = Self.answers[index]
        let buffer = ByteBuffer(string: text)
        let view = buffer.readableBytesView
        let size = CommonHead.end(of: view, searchedFrom: 0)
        let common: Bool
        if methods.first == .GET, let size,
            case .common(let head, _) = CommonHead.read(view.prefix(size), limits: .init())
        {
            common = true
            // Every head this decoder reads keeps the connection, which `ExchangeHandler` then takes without
            // reading the head again (`RequestsInFlight.handedOver`); `decodesAsNIOsDecoderDoes` holds NIO's
            // decoder to the same verdict on the same bytes.
            #expect(head.isKeepAlive, "\(text.debugDescription)")
        } else {
            common = false
        }
        #expect(common == Self.commonFirstHeads.contains(index), "\(text.debugDescription)")
    }

    /// reqplan's decoder, told of the requests written as `ExchangeHandler` tells it.
    static func decoder(after methods: [HTTPMethod]) -> CommonResponseDecoder {
        let inFlight = RequestsInFlight()
        for method in methods { inFlight.wrote(method) }
        return CommonResponseDecoder(inFlight: inFlight)
    }

    @Test(arguments: 0..<answers.count)
    func decodesAsNIOsDecoderDoes(_ index: Int) throws {
        let (text, methods) = Self.answers[index]
        let bytes = Array(text.utf8)
        for reads in [bytes.count + 1, 1, 7] {
            let ours = try ResponseDecoding.run(
                handler: CommonResponseHandler(Self.decoder(after: methods)), bytes, reads: reads, methods: methods)
            let nios = try ResponseDecoding.run(
                HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes), bytes, reads: reads, methods: methods)
            #expect(ours == nios, "reads of \(reads) bytes: \(text.debugDescription)")
        }
    }

    /// Bytes read while the handler is decoding (a handler after it passes them in from the head of the pipeline, as
    /// it hands on a response's head) are decoded after the bytes being decoded, as NIO's `ByteToMessageHandler`
    /// decodes them: `CommonResponseHandler` keeps its contract.
    @Test func bytesReadDuringDecodingAreDecodedAfterThoseBeingDecoded() throws {
        func parts(_ handler: any ChannelHandler) throws -> [String] {
            let channel = EmbeddedChannel()
            defer { _ = try? channel.finish(acceptAlreadyClosed: true) }
            let feeder = FeedsMoreAtFirstHead(
                more: ByteBuffer(string: "HTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nc"))
            try channel.pipeline.syncOperations.addHandler(handler)
            try channel.pipeline.syncOperations.addHandler(feeder)
            try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nab"))
            return feeder.parts
        }
        let ours = try parts(CommonResponseHandler(Self.decoder(after: [.GET, .GET])))
        #expect(ours == ["head 200", "body ab", "end", "head 201", "body c", "end"])
        #expect(try ours == parts(ByteToMessageHandler(Self.decoder(after: [.GET, .GET]))))
    }
}

/// Records the response parts it reads, and at the first head passes `more` in from the head of the pipeline, while
/// the handler before it is decoding.
private final class FeedsMoreAtFirstHead: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    private var more: ByteBuffer?
    private(set) var parts: [String] = []

    init(more: ByteBuffer) { self.more = more }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            parts.append("head \(head.status.code)")
            if let more {
                self.more = nil
                context.pipeline.syncOperations.fireChannelRead(NIOAny(more))
            }
        case .body(let body): parts.append("body \(String(buffer: body))")
        case .end: parts.append("end")
        }
    }
}
