import Foundation
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanTransport

/// Proxies: absolute form and `CONNECT` through tinyproxy, credentials, refusals, `no_proxy`.
extension SessionTransportTests {
    @Test(ExternalServers.needed(.nginx, .openssl, .tinyproxy), arguments: wires)
    func requestsGoThroughTheProxyInAbsoluteFormOrThroughConnect(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        let proxy = try await Tinyproxy.start()
        defer { proxy.stop() }
        try await HTTPClientTransport.with(try proxied(proxy, nginx, wire)) { transport in
            // tinyproxy closes its client connection after each response without saying so: the
            // POST after the GET must not go on that connection.
            let first = try await transport.send(request(.GET, "\(base(nginx, wire))/json"), timeout: .seconds(60))
            #expect(first.status == 200)
            let login = try await transport.send(request(.POST, "\(base(nginx, wire))/login"), timeout: .seconds(60))
            #expect(login.status == 200)
            let me = try await transport.send(
                request(.GET, "\(base(nginx, wire))/me?via=proxy"), timeout: .seconds(60))
            #expect(me.status == 200, "the session cookie went through the proxy too")
        }
        switch wire.scheme {
        case .http:
            #expect(
                proxy.requests == [
                    "GET \(nginx.plainURL)/json HTTP/1.1", "POST \(nginx.plainURL)/login HTTP/1.1",
                    "GET \(nginx.plainURL)/me?via=proxy HTTP/1.1",
                ])
        case .https:
            #expect(proxy.requests.first == "CONNECT 127.0.0.1:\(nginx.tlsPort) HTTP/1.1")
            #expect(proxy.requests.allSatisfy { $0.hasPrefix("CONNECT ") })
        }
    }

    @Test(ExternalServers.needed(.nginx, .openssl, .tinyproxy), arguments: wires)
    func proxyCredentialsAreSentAndKeptSecret(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        let proxy = try await Tinyproxy.start(credentials: ("agent", "pr0xy-pass"))
        defer { proxy.stop() }
        var configuration = HTTPClientTransport.Configuration()
        configuration.client = wire.client
        try configuration.apply(
            ConnectionOptions(
                proxy: "http://agent:pr0xy-pass@\(proxy.hostPort)",
                caFile: nginx.certificates.ca.path), environment: [:])
        try await HTTPClientTransport.with(configuration) { transport in
            let response = try await transport.send(request(.GET, "\(base(nginx, wire))/json"), timeout: .seconds(60))
            #expect(response.status == 200)
        }
        #expect(configuration.secrets.all.contains("pr0xy-pass"))
        #expect(configuration.secrets.all.contains(Data("agent:pr0xy-pass".utf8).base64EncodedString()))
        // Without them: plain HTTP gets the proxy's 407 as the response; CONNECT fails, naming it.
        try await HTTPClientTransport.with(try proxied(proxy, nginx, wire)) { transport in
            switch wire.scheme {
            case .http:
                let response = try await transport.send(request(.GET, "\(nginx.plainURL)/json"), timeout: .seconds(60))
                #expect(response.status == 407)
            case .https:
                let error = await #expect(throws: TransportError.self) {
                    try await transport.send(request(.GET, "\(nginx.tlsURL)/json"), timeout: .seconds(60))
                }
                #expect(
                    error?.message == "proxy \(proxy.hostPort) refused CONNECT to 127.0.0.1:\(nginx.tlsPort) with 407 "
                        + "(it wants credentials: http://user:password@host:port)")
            }
        }
    }

    @Test(ExternalServers.needed(.nginx, .openssl), arguments: wires)
    func aProxyThatRefusesTheConnectionIsNamed(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        let port = try ExternalServers.freePorts(1)[0]
        var configuration = try configuration(nginx, wire)
        configuration.proxies = try ProxySettings(
            environment: [
                "http_proxy": "127.0.0.1:\(port)",
                "https_proxy": "127.0.0.1:\(port)",
            ],
            proxy: nil, noProxy: nil)
        try await HTTPClientTransport.with(configuration) { transport in
            let error = await #expect(throws: TransportError.self) {
                try await transport.send(request(.GET, "\(base(nginx, wire))/json"), timeout: .seconds(60))
            }
            #expect(error?.kind == .connect)
            #expect(error?.message == "cannot connect to proxy 127.0.0.1:\(port): connection refused")
        }
    }

    @Test(ExternalServers.needed(.nginx, .openssl, .tinyproxy), arguments: secureWires)
    func aProxyThatRefusesConnectIsNamedWithItsStatus(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        let proxy = try await Tinyproxy.start(connectPorts: [443])
        defer { proxy.stop() }
        try await HTTPClientTransport.with(try proxied(proxy, nginx, wire)) { transport in
            let error = await #expect(throws: TransportError.self) {
                try await transport.send(request(.GET, "\(nginx.tlsURL)/json"), timeout: .seconds(60))
            }
            #expect(error?.kind == .connect)
            #expect(error?.message == "proxy \(proxy.hostPort) refused CONNECT to 127.0.0.1:\(nginx.tlsPort) with 403")
        }
    }

    @Test(ExternalServers.needed(.nginx, .openssl, .tinyproxy), arguments: wires)
    func hostsInNoProxyAreReachedDirectly(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        let proxy = try await Tinyproxy.start()
        defer { proxy.stop() }
        try await HTTPClientTransport.with(try proxied(proxy, nginx, wire, noProxy: "example.com, 127.0.0.0/8")) {
            transport in
            let response = try await transport.send(request(.GET, "\(base(nginx, wire))/json"), timeout: .seconds(60))
            #expect(response.status == 200)
        }
        #expect(proxy.requests.isEmpty)
    }
}
