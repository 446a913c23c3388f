import Foundation
import NIOSSL
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanTransport
@testable import ReqPlanRuntime

/// Settings and failures of the transport as a plan sees them through the executor: the per-host
/// connection limit under a `for_each`, and a certificate failure that `retry` does not repeat. The transport
/// on its own is tested in ReqPlanHTTPTests (`ConnectionPoolTests`, `TLSFailureTests`).
@Suite(.serialized, .timeSensitive) struct TransportRunTests {
    /// Over both clients: AsyncHTTPClient's requests are dealt among a client per event loop
    /// (`AsyncHTTPClientPath`), which share the limit.
    @Test(arguments: HTTPClientTransport.Client.allCases)
    func connectionsPerHostBoundsConnectionsAndQueuesTheRest(_ client: HTTPClientTransport.Client) async throws {
        try await DemoAPI.withServer { base in
            var transport = HTTPClientTransport.Configuration()
            transport.client = client
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

    @Test(TestCertificateAuthority.needed, arguments: HTTPClientTransport.Client.allCases)
    func certificateFailuresAreNotRetried(_ client: HTTPClientTransport.Client) async throws {
        let trusted = try TestCertificateAuthority(name: "reqplan trusted test CA")
        let unknown = try TestCertificateAuthority(name: "reqplan unknown test CA")
        var configuration = HTTPClientTransport.Configuration()
        configuration.client = client
        configuration.trustRoots = try NIOSSLCertificate.fromPEMFile(trusted.root.certificate.path)
        configuration.connectTimeout = .seconds(30)
        try await TLSTestServer.with(try TLSTestServer.configuration(presenting: try unknown.issue())) { base in
            let result = try await runAgainstDemo(
                """
                reqplan: 1
                steps:
                  home: { retry: 3, request: { url: "\(base)/" } }
                """, baseURL: base, transport: configuration)
            let home = try #require(result.results["home"])
            #expect(home.state == .failed)
            #expect(home.attempts.count == 1, "a certificate failure is not retried")
        }
    }
}
