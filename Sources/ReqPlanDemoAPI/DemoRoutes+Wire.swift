import HTTPTypes
import Hummingbird
import NIOCore

extension DemoRoutes {
    /// Endpoints for the transport's wire tests: a body without a length, and one whose coding is broken.
    func registerWire(on router: Router<DemoContext>) {
        /// `GET /stream?kb=N` — N KiB (default 1, at most 1048576) of `x`, streamed in 1 KiB chunks
        /// without a Content-Length (chunked over HTTP/1.1), so a client learns its size only by reading it.
        router.get("/stream") { request, _ in
            let kilobytes = try Self.queryInteger(request, "kb", in: 0...1_048_576) ?? 1
            let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 1024)
            return Response(
                status: .ok, headers: [.contentType: "text/plain"],
                body: ResponseBody { writer in
                    for _ in 0..<kilobytes { try await writer.write(chunk) }
                    try await writer.finish(nil)
                })
        }

        /// `GET /bad-gzip` — `Content-Encoding: gzip` on a body that is not gzip.
        router.get("/bad-gzip") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/json", .contentEncoding: "gzip"],
                body: .init(byteBuffer: ByteBuffer(string: "this is not gzip, whatever the header says")))
        }
    }
}
