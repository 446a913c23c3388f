#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NIOCore
import NIOHTTP1
import NIOPosix

/// Ends the process with `code`.
public func exitWithCode(_ code: Int32) -> Never {
    exit(code)
}

/// Fetches an `http://HOST[:PORT][/PATH]` URL over one HTTP/1.1 connection with NIO's client codec, prints the
/// response's status, and answers 0 for a 2xx status, 1 otherwise (and for a failure, which it prints).
public func fetchAndPrint(_ url: String) async -> Int32 {
    do {
        return try await fetch(url)
    } catch {
        print("floor: \(error)")
        return 1
    }
}

private func fetch(_ url: String) async throws -> Int32 {
    guard url.hasPrefix("http://") else {
        print("only http:// URLs")
        return 2
    }
    let rest = url.dropFirst("http://".count)
    let authority = rest.prefix { $0 != "/" }
    let path = rest.dropFirst(authority.count)
    let hostAndPort = authority.split(separator: ":", maxSplits: 1)
    let host = String(hostAndPort.first ?? "")
    let port = hostAndPort.count == 2 ? Int(hostAndPort[1]) ?? 80 : 80
    let group = MultiThreadedEventLoopGroup.singleton
    let done = group.next().makePromise(of: Int.self)
    let channel = try await ClientBootstrap(group: group)
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                try channel.pipeline.syncOperations.addHandler(StatusHandler(done: done))
            }
        }
        .connect(host: host, port: port)
        .get()
    var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path.isEmpty ? "/" : String(path))
    head.headers.add(name: "Host", value: String(authority))
    channel.write(HTTPClientRequestPart.head(head), promise: nil)
    channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
    let status = try await done.futureResult.get()
    try await channel.close()
    print(status)
    return (200..<300).contains(status) ? 0 : 1
}

/// Keeps the response's status and reads its body to the end.
private final class StatusHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let done: EventLoopPromise<Int>
    private var status = 0

    init(done: EventLoopPromise<Int>) {
        self.done = done
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): status = Int(head.status.code)
        case .body: break
        case .end: done.succeed(status)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        done.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        done.fail(ChannelError.eof)
    }
}
