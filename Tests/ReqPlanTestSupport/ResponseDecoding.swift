import NIOCore
import NIOEmbedded
import NIOHTTP1

/// What an HTTP/1.1 response decoder made of a connection's bytes: the parts it passed on (heads, each body joined,
/// ends) and the error it raised, if any. Two decoders given the same bytes must give equal outcomes: the
/// differential test of `CommonResponseDecoder` against NIO's `HTTPResponseDecoder` (`CommonResponseDecoderTests`
/// and the `http1-response` fuzz target).
public struct ResponseDecoding: Equatable, CustomStringConvertible, Sendable {
    public var parts: [String] = []
    public var error: String?
    public var description: String { parts.joined(separator: " | ") + (error.map { " ! \($0)" } ?? "") }

    /// Runs `decoder` in a `ByteToMessageHandler` of an `EmbeddedChannel`, after request heads of `methods` went
    /// out (a decoder that observes writes, as NIO's does, sees them), on `bytes` given in reads of `reads` bytes,
    /// then the connection's end.
    public static func run<Decoder: ByteToMessageDecoder>(
        _ decoder: Decoder, _ bytes: some Collection<UInt8>, reads: Int, methods: [HTTPMethod]
    ) throws -> ResponseDecoding
    where Decoder.InboundOut == HTTPClientResponsePart {
        try run(handler: ByteToMessageHandler(decoder), bytes, reads: reads, methods: methods)
    }

    /// As `run(_:_:reads:methods:)`, with `handler` in the channel in place of NIO's `ByteToMessageHandler`: a
    /// handler that reads bytes and passes on `HTTPClientResponsePart`s.
    public static func run(
        handler: any ChannelHandler, _ bytes: some Collection<UInt8>, reads: Int, methods: [HTTPMethod]
    ) throws -> ResponseDecoding {
        let channel = EmbeddedChannel()
        // Closed whatever happens: an embedded channel left open keeps its pipeline, and the pipeline it.
        defer { _ = try? channel.finish(acceptAlreadyClosed: true) }
        try channel.pipeline.syncOperations.addHandler(handler)
        for method in methods {
            try channel.writeOutbound(
                HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: method, uri: "/")))
            _ = try channel.readOutbound(as: HTTPClientRequestPart.self)
        }
        var outcome = ResponseDecoding()
        var body: [UInt8] = []
        func drain() throws {
            while let part = try channel.readInbound(as: HTTPClientResponsePart.self) {
                switch part {
                case .head(let head):
                    let headers = head.headers.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
                    // Whether the connection stays open after it, as NIO reads the head (its own parser's verdict
                    // for a head NIO's decoder read, the `Connection` values for one reqplan's read).
                    let keepAlive = head.isKeepAlive ? "keep-alive" : "close"
                    outcome.parts.append("head \(head.version) \(head.status.code) \(keepAlive) [\(headers)]")
                case .body(var buffer):
                    body += buffer.readBytes(length: buffer.readableBytes) ?? []
                case .end(let trailers):
                    outcome.parts.append("body \(String(decoding: body, as: UTF8.self))")
                    outcome.parts.append("end \(trailers.map { "\($0)" } ?? "-")")
                    body = []
                }
            }
        }
        let bytes = Array(bytes)
        var index = 0
        do {
            while index < bytes.count {
                let end = min(index + max(reads, 1), bytes.count)
                try channel.writeInbound(ByteBuffer(bytes: bytes[index..<end]))
                try drain()
                index = end
            }
            _ = try channel.finish()
            try drain()
        } catch {
            try? drain()
            outcome.error = "\(error)"
        }
        if !body.isEmpty { outcome.parts.append("body (unended) \(String(decoding: body, as: UTF8.self))") }
        return outcome
    }
}
