import CFuzzerDriver
import Glibc
import NIOCore
import NIOEmbedded
import NIOHTTP1
import ReqPlanSyntax
import ReqPlanTransport
import ReqPlanTestSupport

@testable import ReqPlanHTTP

// libFuzzer entry point: the input is what a server sends on an HTTP/1.1 connection. The first
// byte picks the request (GET or HEAD), whether a GET went before it (for the decoders' comparison
// below) and how the rest arrives (in reads of 1 to 63 bytes, or in one); the rest goes, as raw
// bytes, into an `EmbeddedChannel` whose pipeline is the one `ReqPlanClient` builds for an HTTP/1.1
// connection (`ReqPlanClient.addHTTP1`: NIO's request encoder, reqplan's `CommonResponseDecoder` in its
// `CommonResponseHandler`, `ExchangeHandler`, which puts NIO's decompressor in front of itself at the first response that says
// `Content-Encoding`), after one request went out; then the connection
// closes. The exchange must end with a response or a typed `ReqPlanClient.ClientError`, never crash or
// stay unanswered; a response's body is then read as JSON, as `json()` reads it.
//
// Then the same bytes, in the same reads, go through `CommonResponseDecoder` in its `CommonResponseHandler` and
// through NIO's `HTTPResponseDecoder` alone, in NIO's `ByteToMessageHandler`: both must give the same heads, bodies and ends, and the same error
// (`ResponseDecoding`, as `CommonResponseDecoderTests` compares them). Built in debug (`@testable`
// reaches the internal pipeline).

/// One input; libFuzzer calls it.
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    guard let control = input.first else { return 0 }
    let bytes = input.dropFirst()
    let method: HTTPMethod = control & 0x80 == 0 ? .GET : .HEAD
    let chunk = control & 0x3F == 0 ? max(bytes.count, 1) : Int(control & 0x3F)

    let channel = EmbeddedChannel()
    do {
        try ReqPlanClient.addHTTP1(to: channel, maxBodySize: 64 * 1024, idleTimeout: .seconds(60), plain: true)
    } catch {
        fatalError("the pipeline: \(error)")
    }
    // Connected, as a pooled connection is (an inactive channel refuses the request's write).
    do {
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 80)).wait()
    } catch {
        fatalError("connecting the embedded channel: \(error)")
    }
    let answered = channel.eventLoop.makePromise(of: ReqPlanClient.Response.self)
    var head = HTTPRequestHead(version: .http1_1, method: method, uri: "/")
    head.headers.add(name: "Host", value: "fuzz.test")
    head.headers.add(name: "Accept-Encoding", value: RequestFraming.acceptEncoding)
    channel.writeAndFlush(
        Exchange(head: head, body: nil, deadline: nil, keep: 64 * 1024, promise: answered), promise: nil)
    while (try? channel.readOutbound(as: ByteBuffer.self)) != nil {}

    var index = bytes.startIndex
    while index < bytes.endIndex, channel.isActive {
        let end = min(index + chunk, bytes.endIndex)
        do {
            try channel.writeInbound(ByteBuffer(bytes: bytes[index..<end]))
        } catch {
            // An error the pipeline passed on past its last handler: the exchange must have failed by now.
            break
        }
        index = end
    }
    _ = try? channel.finish(acceptAlreadyClosed: true)

    var outcome: Result<ReqPlanClient.Response, any Error>?
    answered.futureResult.whenComplete { outcome = $0 }
    switch outcome {
    case nil:
        fatalError("the exchange was never answered")
    case .failure(let error):
        guard error is ReqPlanClient.ClientError else { fatalError("an untyped failure: \(error)") }
    case .success(let response):
        if response.body.count > 64 * 1024 { fatalError("a body over the limit: \(response.body.count) bytes") }
        _ = try? Value.parseJSON(bytes: response.body)
    }

    let methods: [HTTPMethod] = control & 0x40 == 0 ? [method] : [.GET, method]
    let ours: ResponseDecoding
    let nios: ResponseDecoding
    do {
        let inFlight = RequestsInFlight()
        for method in methods { inFlight.wrote(method) }
        ours = try ResponseDecoding.run(
            handler: CommonResponseHandler(CommonResponseDecoder(inFlight: inFlight)), bytes, reads: chunk,
            methods: methods)
        nios = try ResponseDecoding.run(
            HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes), bytes, reads: chunk, methods: methods)
    } catch {
        fatalError("the decoders' channels: \(error)")
    }
    if ours != nios { fatalError("the decoders differ\n  reqplan's: \(ours)\n  NIO's:     \(nios)") }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzz($0, $1) })
