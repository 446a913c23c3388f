import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ReqPlanDemoAPI
import ReqPlanSyntax
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanRuntime

/// The transport's parts on their own: URLs on the wire, redirect rules, and the plain-HTTP client's
/// connection pool (the per-host limit, waiting for a connection), against the demo API. How the
/// transport behaves over both clients is in `WireTests`.
@Suite(.serialized) struct HTTPTransportTests {
    // MARK: Redirect rules

    private func request(_ method: HTTPMethodName, _ url: String, headers: [HeaderField] = [], body: [UInt8]? = nil)
        throws -> PreparedRequest
    {
        try PreparedRequest(method: method, url: url, headers: headers, body: body)
    }

    private func redirect(_ status: Int, to location: String?) -> TransportResponse {
        TransportResponse(status: status, headers: location.map { [HeaderField("Location", $0)] } ?? [], body: [])
    }

    @Test func redirectsChangeMethodsAsBrowsersDo() throws {
        let post = try request(
            .POST, "http://a/form",
            headers: [
                HeaderField("Content-Type", "application/json"),
                HeaderField("Content-Length", "2"),
            ], body: Array("{}".utf8))
        for status in [301, 302, 303] {
            let next = try #require(Redirect.request(following: redirect(status, to: "/done"), of: post))
            #expect(next.method == .GET && next.body == nil && next.url.text == "http://a/done", "\(status)")
            #expect(next.header("content-type") == nil && next.header("content-length") == nil)
        }
        for status in [307, 308] {
            let next = try #require(Redirect.request(following: redirect(status, to: "/done"), of: post))
            #expect(next.method == .POST && next.body == Array("{}".utf8), "\(status)")
        }
        let put = try request(.PUT, "http://a/x", body: [1])
        #expect(Redirect.request(following: redirect(302, to: "/y"), of: put)?.method == .PUT)
        #expect(Redirect.request(following: redirect(303, to: "/y"), of: put)?.method == .GET)
        let head = try request(.HEAD, "http://a/x")
        #expect(Redirect.request(following: redirect(303, to: "/y"), of: head)?.method == .HEAD)
    }

    @Test func redirectsResolveRelativeLocationsAndKeepCredentialsToTheSameOrigin() throws {
        let get = try request(
            .GET, "http://a:8080/dir/page?x=1",
            headers: [
                HeaderField("Authorization", "Bearer t"), HeaderField("Cookie", "c=1"),
                HeaderField("Accept", "application/json"),
            ])
        let sibling = try #require(Redirect.request(following: redirect(302, to: "other"), of: get))
        #expect(sibling.url.text == "http://a:8080/dir/other")
        #expect(sibling.header("authorization") == "Bearer t" && sibling.header("cookie") == "c=1")

        let elsewhere = try #require(Redirect.request(following: redirect(302, to: "https://b/login"), of: get))
        #expect(elsewhere.url.text == "https://b/login")
        #expect(elsewhere.header("authorization") == nil && elsewhere.header("cookie") == nil)
        #expect(elsewhere.header("accept") == "application/json")
        let otherPort = try #require(Redirect.request(following: redirect(302, to: "//a:9090/x"), of: get))
        #expect(otherPort.url.text == "http://a:9090/x" && otherPort.header("authorization") == nil)

        #expect(Redirect.request(following: redirect(302, to: nil), of: get) == nil)
        #expect(Redirect.request(following: redirect(302, to: "ftp://a/file"), of: get) == nil)
        #expect(Redirect.request(following: redirect(304, to: "/x"), of: get) == nil)
        #expect(Redirect.request(following: redirect(200, to: "/x"), of: get) == nil)
    }

    // MARK: The connection pool (ReqPlanClient's own; AsyncHTTPClient has its own pool)

    @Test func connectionsPerHostBoundsConnectionsAndQueuesTheRest() async throws {
        try await DemoAPI.withServer { base in
            var transport = HTTPClientTransport.Configuration()
            transport.connectionsPerHost = 3
            let start = ContinuousClock.now
            let result = try await runAgainstDemo(
                demoPlanHeader + """
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
            let client = ReqPlanClient(
                settings: .init(
                    connectTimeout: .seconds(10), maxBodySize: 1 << 20,
                    connectionsPerHost: 1))
            let target = try RequestURL(parsing: base + "/delay/1000")
            func request(_ path: String) -> ReqPlanClient.Request {
                var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
                head.headers.add(name: "Host", value: target.authority)
                return ReqPlanClient.Request(
                    endpoint: .init(host: target.host, port: target.port), head: head, body: nil, idempotent: true)
            }
            // The first request holds the only connection for a second; the second waits for it.
            async let holder = client.execute(request("/delay/1000"), deadline: nil)
            // Until the holder has the connection's slot (a fixed sleep is not enough on a loaded machine).
            while client.pool.withLockedValue({ $0.hosts[.init(host: target.host, port: target.port)]?.open ?? 0 }) == 0
            {
                try await Task.sleep(for: .milliseconds(5))
            }
            let start = ContinuousClock.now
            await #expect(throws: ReqPlanClient.Failure.self) {
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
}
