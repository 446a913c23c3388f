import Foundation
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanRuntime

/// Cookies, proxies and TLS settings of the transport against servers not written here: nginx,
/// tinyproxy and httpbin on loopback. Each behaviour runs with both clients, over `http://` and
/// `https://` (HTTP/2 with nginx) where the scheme matters.
@Suite struct SessionTransportTests {
    /// Each client over each scheme.
    static let wires = [Wire.reqplanHTTP, .reqplanHTTPS, .libraryHTTP, .libraryHTTPS]
    /// Each client over `https://`.
    static let secureWires = [Wire.reqplanHTTPS, .libraryHTTPS]
    /// Each client.
    static let clients = HTTPClientTransport.Client.allCases

    /// A transport configuration for `wire`'s client that trusts the test CA (and nothing else).
    private func configuration(_ nginx: Nginx, _ wire: Wire) throws -> HTTPClientTransport.Configuration {
        var configuration = HTTPClientTransport.Configuration()
        configuration.client = wire.client
        configuration.tls = try TLSSettings(
            caFile: nginx.certificates.ca.path, certificateFile: nil, keyFile: nil,
            environment: [:])
        return configuration
    }

    private func base(_ nginx: Nginx, _ wire: Wire) -> String {
        wire.scheme == .http ? nginx.plainURL : nginx.tlsURL
    }

    private func request(
        _ method: HTTPMethodName = .GET, _ url: String, headers: [HeaderField] = [],
        cookies: Bool = true
    ) throws -> PreparedRequest {
        try PreparedRequest(method: method, url: url, headers: headers, body: nil, usesCookies: cookies)
    }

    // MARK: Cookies

    @Test(.enabled(if: ExternalServers.canRun(.nginx, .openssl)), arguments: wires)
    func aSessionCookieFromALoginIsSentBackWithoutACookieHeaderWritten(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        let configuration = try configuration(nginx, wire)
        try await HTTPClientTransport.with(configuration) { transport in
            let before = try await transport.send(request(.GET, "\(base(nginx, wire))/me"), timeout: .seconds(10))
            #expect(before.status == 401)
            let login = try await transport.send(request(.POST, "\(base(nginx, wire))/login"), timeout: .seconds(10))
            #expect(login.status == 200)
            #expect(login.setCookies == [HeaderField("session", nginx.sessionToken)])
            let me = try await transport.send(request(.GET, "\(base(nginx, wire))/me"), timeout: .seconds(10))
            #expect(me.status == 200 && String(decoding: me.body, as: UTF8.self) == #"{"user":"alice"}"#)
            let logout = try await transport.send(request(.GET, "\(base(nginx, wire))/logout"), timeout: .seconds(10))
            #expect(logout.setCookies == [HeaderField("session", "")])
            let after = try await transport.send(request(.GET, "\(base(nginx, wire))/me"), timeout: .seconds(10))
            #expect(after.status == 401, "Max-Age=0 deleted the session")
        }
        #expect(configuration.secrets.all.contains(nginx.sessionToken))
    }

    @Test(.enabled(if: ExternalServers.canRun(.nginx, .openssl)), arguments: wires)
    func aCookieSetByARedirectIsSentOnTheNextHop(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        try await HTTPClientTransport.with(try configuration(nginx, wire)) { transport in
            let response = try await transport.send(
                request(.POST, "\(base(nginx, wire))/login-and-go"),
                timeout: .seconds(10))
            #expect(response.status == 200, "303 to /me, which saw the cookie the 303 set")
            #expect(response.setCookies == [HeaderField("session", nginx.sessionToken)])
        }
    }

    @Test(.enabled(if: ExternalServers.canRun(.nginx, .openssl)), arguments: wires)
    func withCookiesOffNothingIsStoredButTheCookiesSetAreStillReported(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        let configuration = try configuration(nginx, wire)
        try await HTTPClientTransport.with(configuration) { transport in
            let login = try await transport.send(
                request(.POST, "\(base(nginx, wire))/login", cookies: false),
                timeout: .seconds(10))
            #expect(login.setCookies == [HeaderField("session", nginx.sessionToken)])
            let me = try await transport.send(request(.GET, "\(base(nginx, wire))/me"), timeout: .seconds(10))
            #expect(me.status == 401)
        }
        #expect(configuration.cookies.isEmpty)
    }

    @Test(.enabled(if: ExternalServers.canRun(.nginx, .openssl)), arguments: wires)
    func aRequestWithCookiesOffDoesNotSendTheJars(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        try await HTTPClientTransport.with(try configuration(nginx, wire)) { transport in
            _ = try await transport.send(request(.POST, "\(base(nginx, wire))/login"), timeout: .seconds(10))
            let me = try await transport.send(
                request(.GET, "\(base(nginx, wire))/me", cookies: false),
                timeout: .seconds(10))
            #expect(me.status == 401)
        }
    }

    @Test(.enabled(if: ExternalServers.canRun(.httpbin)), arguments: clients)
    func anExplicitCookieHeaderIsSentFirstAndMergedWithTheJarsIntoOneHeader(client: HTTPClientTransport.Client)
        async throws
    {
        let httpbin = try await Httpbin.shared()
        var configuration = HTTPClientTransport.Configuration()
        configuration.client = client
        try await HTTPClientTransport.with(configuration) { transport in
            // /cookies/set answers 302 to /cookies: the cookies it set go on the next hop.
            let set = try await transport.send(
                request(.GET, "\(httpbin.url)/cookies/set?jar=1&both=jar"),
                timeout: .seconds(10))
            #expect(set.status == 200)
            #expect(set.setCookies.map(\.name).sorted() == ["both", "jar"])
            #expect(String(decoding: set.body, as: UTF8.self).contains(#""jar": "1""#))
            let echoed = try await transport.send(
                request(.GET, "\(httpbin.url)/headers", headers: [HeaderField("Cookie", "mine=2; both=plan")]),
                timeout: .seconds(10))
            let body = try JSONSerialization.jsonObject(with: Data(echoed.body)) as? [String: [String: String]]
            #expect(body?["headers"]?["Cookie"] == "mine=2; both=plan; jar=1")
        }
    }

    // MARK: Proxies

    private func proxied(_ proxy: Tinyproxy, _ nginx: Nginx, _ wire: Wire, noProxy: String? = nil)
        throws -> HTTPClientTransport.Configuration
    {
        var configuration = try configuration(nginx, wire)
        configuration.proxies = try ProxySettings(environment: [:], proxy: proxy.url, noProxy: noProxy)
        return configuration
    }

    @Test(.enabled(if: ExternalServers.canRun(.nginx, .openssl, .tinyproxy)), arguments: wires)
    func requestsGoThroughTheProxyInAbsoluteFormOrThroughConnect(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        let proxy = try await Tinyproxy.start()
        defer { proxy.stop() }
        try await HTTPClientTransport.with(try proxied(proxy, nginx, wire)) { transport in
            // tinyproxy closes its client connection after each response without saying so: the
            // POST after the GET must not go on that connection.
            let first = try await transport.send(request(.GET, "\(base(nginx, wire))/json"), timeout: .seconds(10))
            #expect(first.status == 200)
            let login = try await transport.send(request(.POST, "\(base(nginx, wire))/login"), timeout: .seconds(10))
            #expect(login.status == 200)
            let me = try await transport.send(
                request(.GET, "\(base(nginx, wire))/me?via=proxy"), timeout: .seconds(10))
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

    @Test(.enabled(if: ExternalServers.canRun(.nginx, .openssl, .tinyproxy)), arguments: wires)
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
            let response = try await transport.send(request(.GET, "\(base(nginx, wire))/json"), timeout: .seconds(10))
            #expect(response.status == 200)
        }
        #expect(configuration.secrets.all.contains("pr0xy-pass"))
        #expect(configuration.secrets.all.contains(Data("agent:pr0xy-pass".utf8).base64EncodedString()))
        // Without them: plain HTTP gets the proxy's 407 as the response; CONNECT fails, naming it.
        try await HTTPClientTransport.with(try proxied(proxy, nginx, wire)) { transport in
            switch wire.scheme {
            case .http:
                let response = try await transport.send(request(.GET, "\(nginx.plainURL)/json"), timeout: .seconds(10))
                #expect(response.status == 407)
            case .https:
                let error = await #expect(throws: TransportError.self) {
                    try await transport.send(request(.GET, "\(nginx.tlsURL)/json"), timeout: .seconds(10))
                }
                #expect(
                    error?.message == "proxy \(proxy.hostPort) refused CONNECT to 127.0.0.1:\(nginx.tlsPort) with 407 "
                        + "(it wants credentials: http://user:password@host:port)")
            }
        }
    }

    @Test(.enabled(if: ExternalServers.canRun(.nginx, .openssl)), arguments: wires)
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
                try await transport.send(request(.GET, "\(base(nginx, wire))/json"), timeout: .seconds(10))
            }
            #expect(error?.kind == .connect)
            #expect(error?.message == "cannot connect to proxy 127.0.0.1:\(port): connection refused")
        }
    }

    @Test(.enabled(if: ExternalServers.canRun(.nginx, .openssl, .tinyproxy)), arguments: secureWires)
    func aProxyThatRefusesConnectIsNamedWithItsStatus(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        let proxy = try await Tinyproxy.start(connectPorts: [443])
        defer { proxy.stop() }
        try await HTTPClientTransport.with(try proxied(proxy, nginx, wire)) { transport in
            let error = await #expect(throws: TransportError.self) {
                try await transport.send(request(.GET, "\(nginx.tlsURL)/json"), timeout: .seconds(10))
            }
            #expect(error?.kind == .connect)
            #expect(error?.message == "proxy \(proxy.hostPort) refused CONNECT to 127.0.0.1:\(nginx.tlsPort) with 403")
        }
    }

    @Test(.enabled(if: ExternalServers.canRun(.nginx, .openssl, .tinyproxy)), arguments: wires)
    func hostsInNoProxyAreReachedDirectly(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        let proxy = try await Tinyproxy.start()
        defer { proxy.stop() }
        try await HTTPClientTransport.with(try proxied(proxy, nginx, wire, noProxy: "example.com, 127.0.0.0/8")) {
            transport in
            let response = try await transport.send(request(.GET, "\(base(nginx, wire))/json"), timeout: .seconds(10))
            #expect(response.status == 200)
        }
        #expect(proxy.requests.isEmpty)
    }

    // MARK: TLS

    @Test(.enabled(if: ExternalServers.canRun(.nginx, .openssl)), arguments: secureWires)
    func theTestCAIsTrustedOnlyWhenGiven(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        try await HTTPClientTransport.with(try configuration(nginx, wire)) { transport in
            let response = try await transport.send(request(.GET, "\(nginx.tlsURL)/json"), timeout: .seconds(10))
            #expect(response.status == 200)
        }
        var system = HTTPClientTransport.Configuration()
        system.client = wire.client
        try await HTTPClientTransport.with(system) { transport in
            let error = await #expect(throws: TransportError.self) {
                try await transport.send(request(.GET, "\(nginx.tlsURL)/json"), timeout: .seconds(10))
            }
            #expect(error?.kind == .tls)
        }
    }

    @Test(.enabled(if: ExternalServers.canRun(.nginx, .openssl)), arguments: secureWires)
    func sslCertFileAndSSLCertDirReplaceTheSystemRoots(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        // `openssl rehash` names a folder's certificates by their subject hash, as SSL_CERT_DIR needs.
        let folder = try ExternalServers.makeTemporaryFolder("cadir")
        try FileManager.default.copyItem(at: nginx.certificates.ca, to: folder.appendingPathComponent("ca.pem"))
        try #require(try runCommand("openssl", ["rehash", folder.path]).status == 0)
        for environment in [
            ["SSL_CERT_FILE": nginx.certificates.ca.path], ["SSL_CERT_DIR": folder.path],
            ["SSL_CERT_FILE": nginx.certificates.otherCA.path, "SSL_CERT_DIR": folder.path],
        ] {
            var configuration = HTTPClientTransport.Configuration()
            configuration.client = wire.client
            configuration.tls = try TLSSettings(
                caFile: nil, certificateFile: nil, keyFile: nil, environment: environment)
            try await HTTPClientTransport.with(configuration) { transport in
                let response = try await transport.send(request(.GET, "\(nginx.tlsURL)/json"), timeout: .seconds(10))
                #expect(response.status == 200, "\(environment)")
            }
        }
        var other = HTTPClientTransport.Configuration()
        other.client = wire.client
        other.tls = try TLSSettings(
            caFile: nil, certificateFile: nil, keyFile: nil,
            environment: ["SSL_CERT_FILE": nginx.certificates.otherCA.path])
        try await HTTPClientTransport.with(other) { transport in
            let error = await #expect(throws: TransportError.self) {
                try await transport.send(request(.GET, "\(nginx.tlsURL)/json"), timeout: .seconds(10))
            }
            #expect(error?.kind == .tls)
        }
    }

    @Test(.enabled(if: ExternalServers.canRun(.nginx, .openssl)), arguments: secureWires)
    func aClientCertificateIsPresentedToAServerThatWantsOne(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        let certificates = nginx.certificates
        for (certificate, key) in [
            (certificates.client.certificate.path, Optional(certificates.client.key.path)),
            (certificates.clientCombined.path, nil),
        ] {
            var configuration = HTTPClientTransport.Configuration()
            configuration.client = wire.client
            configuration.tls = try TLSSettings(
                caFile: certificates.ca.path, certificateFile: certificate,
                keyFile: key, environment: [:])
            try await HTTPClientTransport.with(configuration) { transport in
                let response = try await transport.send(request(.GET, "\(nginx.mtlsURL)/"), timeout: .seconds(10))
                #expect(response.status == 200)
                #expect(String(decoding: response.body, as: UTF8.self).contains("reqplan-test-client"))
            }
        }
        try await HTTPClientTransport.with(try configuration(nginx, wire)) { transport in
            let response = try await transport.send(request(.GET, "\(nginx.mtlsURL)/"), timeout: .seconds(10))
            #expect(response.status == 400, "nginx answers 400 (no required SSL certificate) at the HTTP level")
        }
    }

    @Test(.enabled(if: ExternalServers.canRun(.openssl)), arguments: secureWires)
    func aServerThatRequiresAClientCertificateInTheHandshakeFailsWithoutOneAsTLS(wire: Wire) async throws {
        let server = try await HandshakeClientCertificateServer.start()
        defer { server.stop() }
        let certificates = server.certificates
        var configuration = HTTPClientTransport.Configuration()
        configuration.client = wire.client
        configuration.tls = try TLSSettings(
            caFile: certificates.ca.path, certificateFile: certificates.client.certificate.path,
            keyFile: certificates.client.key.path, environment: [:])
        try await HTTPClientTransport.with(configuration) { transport in
            let response = try await transport.send(request(.GET, "\(server.url)/"), timeout: .seconds(10))
            #expect(response.status == 200)
        }
        configuration.tls = try TLSSettings(
            caFile: certificates.ca.path, certificateFile: nil, keyFile: nil,
            environment: [:])
        try await HTTPClientTransport.with(configuration) { transport in
            let error = await #expect(throws: TransportError.self) {
                try await transport.send(request(.GET, "\(server.url)/"), timeout: .seconds(10))
            }
            #expect(error?.kind == .tls, "\(String(describing: error))")
        }
    }

    @Test(.enabled(if: ExternalServers.canRun(.openssl)))
    func unusableTLSFilesAreRefusedBeforeAnythingIsSent() async throws {
        let certificates = try await TestCertificates.shared()
        let folder = try ExternalServers.makeTemporaryFolder("tls-files")
        let garbage = folder.appendingPathComponent("garbage.pem")
        try "not a certificate".write(to: garbage, atomically: true, encoding: .utf8)
        let encrypted = folder.appendingPathComponent("encrypted.key")
        try #require(
            try runCommand(
                "openssl",
                [
                    "pkey", "-in", certificates.client.key.path, "-aes256",
                    "-passout", "pass:x", "-out", encrypted.path,
                ]
            ).status == 0)
        let cases: [(String?, String?, String?, [String: String], String)] = [
            (
                folder.appendingPathComponent("missing.pem").path, nil, nil, [:],
                "the CA file `\(folder.path)/missing.pem`: no such file"
            ),
            (folder.path, nil, nil, [:], "is a folder"),
            (garbage.path, nil, nil, [:], "holds no PEM certificate"),
            (
                nil, certificates.client.certificate.path, nil, [:],
                "holds no private key: give it with the client key file"
            ),
            (nil, certificates.client.certificate.path, encrypted.path, [:], "holds an encrypted private key"),
            (
                nil, certificates.client.certificate.path, certificates.server.key.path, [:],
                "does not belong to the certificate"
            ),
            (nil, nil, certificates.client.key.path, [:], "needs the client certificate file"),
            (
                nil, nil, nil, ["SSL_CERT_FILE": garbage.path],
                "SSL_CERT_FILE `\(garbage.path)` holds no PEM certificate"
            ),
            (
                nil, nil, nil, ["SSL_CERT_DIR": garbage.path],
                "SSL_CERT_DIR names `\(garbage.path)`, which is not a folder"
            ),
        ]
        for (ca, certificate, key, environment, message) in cases {
            #expect {
                try TLSSettings(caFile: ca, certificateFile: certificate, keyFile: key, environment: environment)
            } throws: { error in
                (error as? TLSSettings.Failure)?.message.contains(message) == true
            }
        }
    }
}
