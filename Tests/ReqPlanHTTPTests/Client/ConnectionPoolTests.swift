import NIOCore
import NIOHTTP1
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanTransport

/// The plain-HTTP client's connection pool (`ReqPlanClient`'s own; AsyncHTTPClient has its own pool), against
/// the demo API. The per-host limit seen from a plan is in `TransportRunTests` (ReqPlanRuntimeTests).
@Suite(.timeSensitive) struct ConnectionPoolTests {
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
            await #expect(throws: ReqPlanClient.ClientError.self) {
                _ = try await client.execute(request("/connection/0"), deadline: .now() + .milliseconds(200))
            }
            let waited = ContinuousClock.now - start
            // Had the wait not counted, the request would have had the connection when the holder gave it back
            // (after a second) and not failed at all; the upper bound only catches a hang (a loaded machine
            // delivers the deadline's timer late).
            #expect(waited >= .milliseconds(150) && waited < .seconds(60), "timed out while waiting: \(waited)")
            let held = try await holder
            #expect(held.head.status == .ok)
            // The connection went back to the pool, so the next request goes at once.
            let after = try await client.execute(request("/connection/0"), deadline: .now() + .seconds(5))
            #expect(after.head.status == .ok)
            await client.shutdown()
        }
    }
}
