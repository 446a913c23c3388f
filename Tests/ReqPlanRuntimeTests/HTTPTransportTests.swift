import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import ReqPlanDemoAPI
import ReqPlanSyntax
import Testing

@testable import ReqPlanRuntime

/// The transport's own behaviour: URLs on the wire, redirects, and the plain-HTTP client's
/// connection pool (keep-alive, the per-host limit, closed connections), against the demo API.
@Suite(.serialized) struct HTTPTransportTests {
    // MARK: URLs on the wire

    @Test func requestTargetsSplitHostPortAndPath() throws {
        let plain = try #require(RequestTarget("http://example.com/a/b?x=1#frag"))
        #expect(plain.endpoint == .init(host: "example.com", port: 80))
        #expect(plain.hostHeader == "example.com")
        #expect(plain.path == "/a/b?x=1")

        let port = try #require(RequestTarget("http://127.0.0.1:8080"))
        #expect(port.endpoint == .init(host: "127.0.0.1", port: 8080))
        #expect(port.hostHeader == "127.0.0.1:8080")
        #expect(port.path == "/")

        let queryOnly = try #require(RequestTarget("http://h:1?q=2"))
        #expect(queryOnly.path == "/?q=2")

        let v6 = try #require(RequestTarget("http://[::1]:9000/x"))
        #expect(v6.endpoint == .init(host: "::1", port: 9000))
        #expect(v6.hostHeader == "[::1]:9000")

        let credentials = try #require(RequestTarget("http://user:secret@host:81/p"))
        #expect(credentials.endpoint == .init(host: "host", port: 81))
        #expect(credentials.hostHeader == "host:81")

        let encoded = try #require(RequestTarget("http://h/caf\u{e9}?q=a|b&r=%20"))
        #expect(encoded.path == "/caf%C3%A9?q=a%7Cb&r=%20")

        for bad in ["https://h/", "http://", "http://:80/", "http://h:0/", "http://h:65536/", "http://h:8x/",
                    "http://[::1/", "http://[::1]x/"] {
            #expect(RequestTarget(bad) == nil, "\(bad)")
        }
    }

    // MARK: Redirect rules

    private func request(_ method: HTTPMethodName, _ url: String, headers: [HeaderField] = [], body: [UInt8]? = nil)
        -> PreparedRequest
    {
        PreparedRequest(method: method, url: url, headers: headers, body: body)
    }

    private func redirect(_ status: Int, to location: String?) -> TransportResponse {
        TransportResponse(status: status, headers: location.map { [HeaderField("Location", $0)] } ?? [], body: [])
    }

    @Test func redirectsChangeMethodsAsBrowsersDo() throws {
        let post = request(.POST, "http://a/form", headers: [HeaderField("Content-Type", "application/json"),
                                                              HeaderField("Content-Length", "2")], body: Array("{}".utf8))
        for status in [301, 302, 303] {
            let next = try #require(Redirect.request(following: redirect(status, to: "/done"), of: post))
            #expect(next.method == .GET && next.body == nil && next.url == "http://a/done", "\(status)")
            #expect(next.header("content-type") == nil && next.header("content-length") == nil)
        }
        for status in [307, 308] {
            let next = try #require(Redirect.request(following: redirect(status, to: "/done"), of: post))
            #expect(next.method == .POST && next.body == Array("{}".utf8), "\(status)")
        }
        let put = request(.PUT, "http://a/x", body: [1])
        #expect(Redirect.request(following: redirect(302, to: "/y"), of: put)?.method == .PUT)
        #expect(Redirect.request(following: redirect(303, to: "/y"), of: put)?.method == .GET)
        let head = request(.HEAD, "http://a/x")
        #expect(Redirect.request(following: redirect(303, to: "/y"), of: head)?.method == .HEAD)
    }

    @Test func redirectsResolveRelativeLocationsAndKeepCredentialsToTheSameOrigin() throws {
        let get = request(.GET, "http://a:8080/dir/page?x=1",
                          headers: [HeaderField("Authorization", "Bearer t"), HeaderField("Cookie", "c=1"),
                                    HeaderField("Accept", "application/json")])
        let sibling = try #require(Redirect.request(following: redirect(302, to: "other"), of: get))
        #expect(sibling.url == "http://a:8080/dir/other")
        #expect(sibling.header("authorization") == "Bearer t" && sibling.header("cookie") == "c=1")

        let elsewhere = try #require(Redirect.request(following: redirect(302, to: "https://b/login"), of: get))
        #expect(elsewhere.url == "https://b/login")
        #expect(elsewhere.header("authorization") == nil && elsewhere.header("cookie") == nil)
        #expect(elsewhere.header("accept") == "application/json")
        let otherPort = try #require(Redirect.request(following: redirect(302, to: "//a:9090/x"), of: get))
        #expect(otherPort.url == "http://a:9090/x" && otherPort.header("authorization") == nil)

        #expect(Redirect.request(following: redirect(302, to: nil), of: get) == nil)
        #expect(Redirect.request(following: redirect(302, to: "ftp://a/file"), of: get) == nil)
        #expect(Redirect.request(following: redirect(304, to: "/x"), of: get) == nil)
        #expect(Redirect.request(following: redirect(200, to: "/x"), of: get) == nil)
    }

    @Test(arguments: Wire.allCases) func redirectsAcrossHostsDropCredentialsOverTheNetwork(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            // 127.0.0.1 and localhost are different origins on the same server.
            let other = base.replacingOccurrences(of: "127.0.0.1", with: "localhost")
            let result = try await runAgainstDemo("""
                reqplan: 1
                defaults: { base_url: "BASE_URL", headers: { Authorization: "Bearer secret-token" } }
                steps:
                  same: { request: { url: "/redirect-to?url=/echo" } }
                  cross: { request: { url: "/redirect-to?url=\(other)/echo" } }
                  see_other:
                    request: { method: POST, url: "/redirect-to?url=/echo&status=303", json: { a: 1 } }
                  temporary:
                    request: { method: POST, url: "/redirect-to?url=/echo&status=307", json: { a: 1 } }
                outputs:
                  same: ${{ contains(json(steps.same.body.headers), 'Bearer secret-token') }}
                  cross: ${{ contains(json(steps.cross.body.headers), 'Bearer secret-token') }}
                  see_other_method: ${{ steps.see_other.body.method }}
                  see_other_size: ${{ steps.see_other.body.body.size }}
                  temporary_method: ${{ steps.temporary.body.method }}
                  temporary_body: ${{ steps.temporary.body.body.text }}
                """, baseURL: base, transport: wire.configuration())
            #expect(result.exitCode == 0, "\(result.results.mapValues { $0.reason?.message ?? "" })")
            #expect(result.outputs.map(\.value) == [
                .bool(true), .bool(false), .string("GET"), .int(0), .string("POST"), .string(#"{"a":1}"#),
            ])
        }
    }

    @Test(arguments: Wire.allCases) func schemesCountOnlyAtTheStartAndInAnyCase(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            let upper = base.replacingOccurrences(of: "\(wire.rawValue)://", with: "\(wire.rawValue.uppercased())://")
            let result = try await runAgainstDemo(demoPlanHeader + """
                steps:
                  upper: { request: { url: "\(upper)/echo" } }
                  relative: { request: { url: "/echo?next=https://app.example/x" } }
                outputs:
                  next: ${{ steps.relative.body.query.params[0].value }}
                """, baseURL: base, transport: wire.configuration())
            #expect(result.results["upper"]?.state == .succeeded, "\(result.results["upper"]?.reason?.message ?? "")")
            #expect(result.outputs[0].value == .string("https://app.example/x"))
        }
    }

    @Test(arguments: Wire.allCases) func aRedirectBackToAVisitedURLFailsAtOnce(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            let result = try await runAgainstDemo(demoPlanHeader + """
                steps:
                  loop: { request: { url: /redirect-loop } }
                """, baseURL: base, transport: wire.configuration())
            let loop = try #require(result.results["loop"])
            #expect(loop.state == .failed)
            #expect(loop.reason?.message.contains("too many redirects") == true)
            #expect(loop.reason?.message.contains("redirects back to itself") == true, "\(loop.reason?.message ?? "")")
        }
    }

    // MARK: The plain-HTTP connection pool

    @Test(arguments: Wire.allCases) func keptAliveConnectionsAreReused(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            let result = try await runAgainstDemo(demoPlanHeader + """
                steps:
                  a: { request: { url: /connection/0 } }
                  b: { needs: [a], request: { url: /connection/0 } }
                  c: { needs: [b], request: { url: /connection/0 } }
                outputs:
                  a: ${{ steps.a.body.peer }}
                  b: ${{ steps.b.body.peer }}
                  c: ${{ steps.c.body.peer }}
                """, baseURL: base, transport: wire.configuration())
            #expect(result.exitCode == 0)
            let peers = result.outputs.map(\.value)
            #expect(peers.count == 3 && Set(peers).count == 1, "one connection for three requests in a row: \(peers)")
        }
    }

    @Test func connectionsPerHostBoundsConnectionsAndQueuesTheRest() async throws {
        try await DemoAPI.withServer { base in
            var transport = HTTPClientTransport.Configuration()
            transport.connectionsPerHost = 3
            let start = ContinuousClock.now
            let result = try await runAgainstDemo(demoPlanHeader + """
                steps:
                  each:
                    for_each: [1, 2, 3, 4, 5, 6, 7, 8, 9]
                    request: { url: "/connection/100?i=${{ item }}" }
                outputs:
                  peers: ${{ steps.each.results[*].body.peer }}
                """, baseURL: base, transport: transport)
            let elapsed = ContinuousClock.now - start
            #expect(result.exitCode == 0, "\(result.results["each"]?.reason?.message ?? "")")
            guard case .list(let peers) = result.outputs[0].value else { Issue.record("no peers"); return }
            #expect(peers.count == 9)
            #expect(Set(peers).count == 3, "nine requests shared three connections: \(Set(peers))")
            // Three at a time, 100 ms each: at least three rounds.
            #expect(elapsed >= .milliseconds(300))
        }
    }

    @Test func waitingForAConnectionCountsAgainstTheDeadline() async throws {
        try await DemoAPI.withServer { base in
            let client = HTTP1Client(settings: .init(connectTimeout: .seconds(10), maxBodySize: 1 << 20,
                                                     connectionsPerHost: 1))
            let target = try #require(RequestTarget(base + "/delay/1000"))
            func request(_ path: String) -> HTTP1Client.Request {
                var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
                head.headers.add(name: "Host", value: target.hostHeader)
                return HTTP1Client.Request(endpoint: target.endpoint, head: head, body: nil, idempotent: true)
            }
            // The first request holds the only connection for a second; the second waits for it.
            async let holder = client.execute(request("/delay/1000"), deadline: nil)
            try await Task.sleep(for: .milliseconds(200))
            let start = ContinuousClock.now
            await #expect(throws: HTTP1Client.Failure.self) {
                _ = try await client.execute(request("/connection/0"), deadline: .now() + .milliseconds(200))
            }
            let waited = ContinuousClock.now - start
            #expect(waited >= .milliseconds(150) && waited < .milliseconds(900), "timed out while waiting: \(waited)")
            let held = try await holder
            #expect(held.head.status == .ok)
            // The connection went back to the pool, so the next request goes at once.
            let after = try await client.execute(request("/connection/0"), deadline: .now() + .seconds(5))
            #expect(after.head.status == .ok)
            await client.shutdown()
        }
    }

    @Test(arguments: Wire.allCases) func aKeptAliveConnectionClosedUnderARequestIsRetriedOnlyWhenIdempotent(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            let result = try await runAgainstDemo(demoPlanHeader + """
                steps:
                  mark: { request: { url: /close-next } }
                  again: { needs: [mark], request: { url: /connection/0 } }
                  mark_post: { needs: [again], request: { url: /close-next } }
                  post: { needs: [mark_post], request: { method: POST, url: /delay/0 } }
                outputs:
                  marked: ${{ steps.mark.body.peer }}
                  again: ${{ steps.again.body.peer }}
                """, baseURL: base, transport: wire.configuration())
            let again = try #require(result.results["again"])
            #expect(again.state == .succeeded, "\(again.reason?.message ?? "")")
            #expect(again.attempts.count == 1, "resent by the client, not retried by the plan")
            let peers = result.outputs.map(\.value)
            #expect(peers.count == 2 && peers[0] != peers[1], "the GET went again on a new connection: \(peers)")
            // A POST may have been acted on: it fails rather than being sent twice.
            let post = try #require(result.results["post"])
            #expect(post.state == .failed)
            #expect(post.reason?.kind == .transport)
            #expect(post.reason?.message.contains("reset") == true, "\(post.reason?.message ?? "")")
        }
    }

    @Test func aBodyThatEndsWhenTheServerClosesIsReadWhole() async throws {
        // HTTP/1.0 style: no Content-Length, no chunks; the body is everything until the close.
        let response = "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{\"ok\": true, \"n\": 1}"
        try await RawServer.with(response) { base in
            let result = try await runAgainstDemo("""
                reqplan: 1
                steps:
                  old: { request: { url: "BASE_URL/x" }, expect: { body: { ok: true } } }
                  again: { needs: [old], request: { url: "BASE_URL/y" } }
                outputs:
                  n: ${{ steps.old.body.n }}
                """, baseURL: base)
            #expect(result.exitCode == 0, "\(result.results.mapValues { $0.reason?.message ?? "" })")
            #expect(result.outputs[0].value == .int(1))
            // The closed connection is not reused: the next request opens another.
            #expect(result.results["again"]?.state == .succeeded)
        }
    }

    @Test(arguments: Wire.allCases) func nonASCIIQueryTextIsPercentEncodedOnTheWire(_ wire: Wire) async throws {
        try await wire.withDemo { base in
            let result = try await runAgainstDemo(demoPlanHeader + """
                steps:
                  echo: { request: { url: "/echo?name=caf\u{e9}" } }
                outputs:
                  raw: ${{ steps.echo.body.query.raw }}
                  name: ${{ steps.echo.body.query.params[0].value }}
                """, baseURL: base, transport: wire.configuration())
            #expect(result.exitCode == 0, "\(result.results["echo"]?.reason?.message ?? "")")
            #expect(result.outputs[0].value == .string("name=caf%C3%A9"))
            #expect(result.outputs[1].value == .string("caf\u{e9}"))
        }
    }
}

/// The two clients behind the transport, which must behave alike: `http://` goes through reqplan's
/// own HTTP/1.1 client, `https://` through AsyncHTTPClient (HTTP/2 with the demo API, through ALPN).
enum Wire: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case http, https

    var testDescription: String { rawValue }

    /// The demo API's base URL over this scheme, for `body`.
    func withDemo<Result: Sendable>(_ body: @escaping @Sendable (String) async throws -> Result) async throws -> Result {
        try await DemoAPI.withServer(tls: self == .https, body)
    }

    /// The transport's default settings, trusting the demo API's certificate (as `--cacert` would).
    func configuration() -> HTTPClientTransport.Configuration {
        var configuration = HTTPClientTransport.Configuration()
        configuration.trustRoots = Self.demoRoots
        return configuration
    }

    static let demoRoots = try? NIOSSLCertificate.fromPEMBytes(Array(DemoTLS.certificate.utf8))
}

/// A raw TCP server on loopback for what the demo API cannot send: it answers each connection's
/// first bytes with `response`, exactly as given, then closes the connection.
enum RawServer {
    static func with(_ response: String, _ body: (String) async throws -> Void) async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Responder(response: response))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        do {
            try await body("http://127.0.0.1:\(port)")
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
