import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import ReqPlanTransport

/// Puts NIOHTTPCompression's `NIOHTTPResponseDecompressor` into a connection's (or an HTTP/2
/// stream's) pipeline, right after itself, when the first response that says `Content-Encoding`
/// arrives, and passes everything else through untouched.
///
/// Most responses are not compressed, and the decompressor costs about a tenth of the client's CPU
/// per small request even when it has nothing to do (HTTP/2 makes one per stream). The request's
/// `Accept-Encoding: deflate, gzip`, which the decompressor would add, is added by the transport
/// (`RequestFraming.head`).
final class ResponseDecompression: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    private var decompressorAdded = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !decompressorAdded, case .head(let head) = unwrapInboundIn(data),
            head.headers.contains(name: "content-encoding")
        {
            decompressorAdded = true
            do {
                try context.pipeline.syncOperations.addHandler(
                    NIOHTTPResponseDecompressor(limit: .ratio(100)), position: .after(self))
            } catch {
                return context.fireErrorCaught(error)
            }
        }
        context.fireChannelRead(data)
    }
}
