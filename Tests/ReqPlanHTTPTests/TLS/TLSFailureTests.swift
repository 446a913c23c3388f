import Foundation
import NIOPosix
import NIOSSL
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanTransport

/// TLS failures name their cause in plain words, each against a real TLS server on loopback whose
/// certificate is made for the test (`openssl`): unknown issuer, expired, not yet valid, host name
/// mismatch, a client certificate wanted (TLS 1.3 and 1.2) or refused, no cipher in common. The same
/// words through reqplan's client and through AsyncHTTPClient.
@Suite(.serialized, .timeSensitive) struct TLSFailureTests {
    /// The authority the transport trusts, and one it does not.
    let trusted: TestCertificateAuthority
    let unknown: TestCertificateAuthority

    init() throws {
        trusted = try TestCertificateAuthority(name: "reqplan trusted test CA")
        unknown = try TestCertificateAuthority(name: "reqplan unknown test CA")
    }

    /// The transport's settings for `client`, trusting `trusted` only.
    func configuration(_ client: HTTPClientTransport.Client) throws -> HTTPClientTransport.Configuration {
        var configuration = HTTPClientTransport.Configuration()
        configuration.client = client
        configuration.trustRoots = try NIOSSLCertificate.fromPEMFile(trusted.root.certificate.path)
        configuration.connectTimeout = .seconds(30)
        return configuration
    }

    /// The failure of one GET to `url` through `client`, or nil when it succeeded.
    func failure(_ url: String, _ client: HTTPClientTransport.Client) async throws -> TransportError? {
        try await HTTPClientTransport.with(configuration(client)) { transport -> TransportError? in
            do {
                _ = try await transport.send(
                    try PreparedRequest(method: .GET, url: url, headers: [], body: nil),
                    timeout: .seconds(60))
                return nil
            } catch {
                return error as? TransportError
            }
        }
    }

    func server(_ issued: TestCertificateAuthority.Issued, _ adjust: (inout TLSConfiguration) throws -> Void = { _ in })
        throws -> TLSConfiguration
    {
        var configuration = try TLSTestServer.configuration(presenting: issued)
        try adjust(&configuration)
        return configuration
    }

    @Test(TestCertificateAuthority.needed, arguments: HTTPClientTransport.Client.allCases)
    func aTrustedCertificateWorks(_ client: HTTPClientTransport.Client) async throws {
        let error = try await TLSTestServer.with(server(try trusted.issue())) { base in
            try await failure(base + "/", client)
        }
        #expect(error == nil)
    }

    @Test(TestCertificateAuthority.needed, arguments: HTTPClientTransport.Client.allCases)
    func anUnknownIssuerIsNamed(_ client: HTTPClientTransport.Client) async throws {
        let error = try await TLSTestServer.with(server(try unknown.issue())) { base in
            try await failure(base + "/", client)
        }
        #expect(error?.kind == .tls)
        #expect(error?.message.hasPrefix("the TLS certificate of 127.0.0.1:") == true, "\(error?.message ?? "")")
        #expect(
            error?.message.hasSuffix(
                "is not trusted: its issuer is unknown (a private CA or a self-signed certificate)") == true,
            "\(error?.message ?? "")")
    }

    @Test(TestCertificateAuthority.needed, arguments: HTTPClientTransport.Client.allCases)
    func anExpiredCertificateIsNamedWithItsDate(_ client: HTTPClientTransport.Client) async throws {
        let end = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 86_400).rounded(.down) * 86_400 - 86_400)
        let issued = try trusted.issue(notBefore: end.addingTimeInterval(-30 * 86_400), notAfter: end)
        let error = try await TLSTestServer.with(server(issued)) { base in try await failure(base + "/", client) }
        #expect(error?.kind == .tls)
        #expect(error?.message.hasSuffix("expired on \(TransportError.format(end))") == true, "\(error?.message ?? "")")
    }

    @Test(TestCertificateAuthority.needed, arguments: HTTPClientTransport.Client.allCases)
    func aCertificateNotYetValidIsNamedWithItsDate(_ client: HTTPClientTransport.Client) async throws {
        let start = Date(
            timeIntervalSince1970: (Date().timeIntervalSince1970 / 86_400).rounded(.down) * 86_400 + 2 * 86_400)
        let issued = try trusted.issue(notBefore: start, notAfter: start.addingTimeInterval(30 * 86_400))
        let error = try await TLSTestServer.with(server(issued)) { base in try await failure(base + "/", client) }
        #expect(error?.kind == .tls)
        #expect(
            error?.message.hasSuffix("is not valid until \(TransportError.format(start))") == true,
            "\(error?.message ?? "")")
    }

    @Test(TestCertificateAuthority.needed, arguments: HTTPClientTransport.Client.allCases, ["127.0.0.1", "localhost"])
    func aCertificateForAnotherHostIsAMismatch(_ client: HTTPClientTransport.Client, _ host: String) async throws {
        let issued = try trusted.issue(names: ["app.example"])
        let error = try await TLSTestServer.with(server(issued)) { base in
            try await failure(base.replacingOccurrences(of: "127.0.0.1", with: host) + "/", client)
        }
        #expect(error?.kind == .tls)
        #expect(
            error?.message.hasSuffix("is for another host name (host name mismatch)") == true, "\(error?.message ?? "")"
        )
    }

    /// A certificate naming its host in the subject CN only (no subjectAltName), which curl accepts.
    @Test(TestCertificateAuthority.needed, arguments: HTTPClientTransport.Client.allCases)
    func aCertificateWithoutSubjectAlternativeNamesSaysSoAndWhatToDo(_ client: HTTPClientTransport.Client)
        async throws
    {
        let issued = try trusted.issue(names: [], commonName: "127.0.0.1")
        let error = try await TLSTestServer.with(server(issued)) { base in try await failure(base + "/", client) }
        #expect(error?.kind == .tls)
        #expect(
            error?.message.hasSuffix(
                "has no subjectAltName, and its subject CN is never matched against an IP address: reissue it with "
                    + "`IP:127.0.0.1` in a subjectAltName (its issuer trusted with the CA file), or turn certificate "
                    + "verification off (verifyCertificates = false)") == true, "\(error?.message ?? "")")
        // The command line names its options.
        let named = TransportError.tls(
            "h:1", .noSubjectAlternativeName(host: "h", isAddress: false),
            names: .init(caFile: "--cacert", insecure: "--insecure"))
        #expect(
            named.message.hasSuffix(
                "`DNS:h` in a subjectAltName (its issuer trusted with --cacert), or turn "
                    + "certificate verification off (--insecure)"), "\(named.message)")
    }

    @Test(
        TestCertificateAuthority.needed, arguments: HTTPClientTransport.Client.allCases, [TLSVersion.tlsv13, .tlsv12])
    func aServerWantingAClientCertificateSaysSo(_ client: HTTPClientTransport.Client, _ version: TLSVersion)
        async throws
    {
        let roots = trusted.root.certificate.path
        let error = try await TLSTestServer.with(
            server(try trusted.issue()) { tls in
                tls.certificateVerification = .fullVerification
                tls.trustRoots = .file(roots)
                tls.maximumTLSVersion = version
            }
        ) { base in try await failure(base + "/", client) }
        #expect(error?.kind == .tls)
        #expect(
            error?.message.hasSuffix("wants a TLS client certificate, and none was given") == true,
            "\(error?.message ?? "")")
    }

    /// A TLS 1.3 server checks the client certificate after the handshake, then sends an alert and closes;
    /// when the close reaches the client as a reset before the alert is read (the kernel drops what was
    /// unread), the reset is diagnosed by handshakes, not by the lost alert (a full suite under load saw
    /// "connection reset" here once). A reset from a server that wants no certificate stays a reset.
    @Test(TestCertificateAuthority.needed)
    func aResetOverTLSIsDiagnosedAsTheClientCertificateTheServerWanted() async throws {
        let roots = trusted.root.certificate.path
        for wantsCertificate in [true, false] {
            let diagnosed = try await TLSTestServer.with(
                server(try trusted.issue()) { tls in
                    if wantsCertificate {
                        tls.certificateVerification = .fullVerification
                        tls.trustRoots = .file(roots)
                    }
                    tls.maximumTLSVersion = .tlsv13
                }
            ) { base in
                let url = try RequestURL(parsing: base + "/")
                return try await HTTPClientTransport.with(configuration(.reqplan)) { transport in
                    await transport.diagnosingReset(.reset(url.authority), url: url, host: url.authority, deadline: nil)
                }
            }
            if wantsCertificate {
                #expect(diagnosed.kind == .tls)
                #expect(
                    diagnosed.message.hasSuffix("wants a TLS client certificate, and none was given"), "\(diagnosed)")
            } else {
                #expect(diagnosed.kind == .reset, "\(diagnosed)")
            }
        }
    }

    @Test(TestCertificateAuthority.needed, arguments: [TLSVersion.tlsv13, .tlsv12])
    func aClientCertificateTheServerRefusesIsNamed(_ version: TLSVersion) async throws {
        let roots = trusted.root.certificate.path
        // The client's certificate comes from an authority the server does not trust.
        let client = try unknown.issue(client: true)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(roots)
        tls.certificateChain = try NIOSSLCertificate.fromPEMFile(client.certificate.path).map { .certificate($0) }
        tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: client.key.path, format: .pem))
        let cause = try await TLSTestServer.with(
            server(try trusted.issue()) { tls in
                tls.certificateVerification = .fullVerification
                tls.trustRoots = .file(roots)
                tls.maximumTLSVersion = version
            }
        ) { base in
            let port = try #require(URL(string: base)?.port)
            return await TLSDiagnosis.cause(
                of: NIOSSLError.handshakeFailed(.sslError([])), host: "127.0.0.1", port: port,
                configuration: tls, connectTimeout: .seconds(30),
                group: MultiThreadedEventLoopGroup.singleton)
        }
        #expect(cause == .clientCertificateRefused)
        #expect(TransportError.tls("h", cause).message == "h did not accept the TLS client certificate")
    }

    /// A server that closes the diagnosis's own connection without a word of TLS (as one shedding load does) says
    /// nothing of TLS versions or ciphers: the cause is unknown, not "no TLS version or cipher suite in common".
    @Test func aProbeClosedWithoutATLSAlertLeavesTheCauseUnknown() async throws {
        // Answers the probe's ClientHello with nothing, and closes.
        let cause = try await RawServer.with("") { base in
            let port = try #require(URL(string: base)?.port)
            return await TLSDiagnosis.cause(
                of: NIOSSLError.handshakeFailed(.sslError([])), host: "127.0.0.1", port: port,
                configuration: .makeClientConfiguration(), connectTimeout: .seconds(30),
                group: MultiThreadedEventLoopGroup.singleton)
        }
        #expect(cause == .unknown)
    }

    /// An `https://` URL for nginx's plain HTTP port (a slip every user makes) is named as such, not as a cipher
    /// mismatch: nginx answers the ClientHello with an HTTP 400, and the diagnosis reads the server's first bytes.
    /// A server of another protocol is told apart from both.
    @Test(ExternalServers.needed(.nginx), arguments: HTTPClientTransport.Client.allCases)
    func aPlainHTTPServerOrAnotherProtocolIsNamedAsSuch(_ client: HTTPClientTransport.Client) async throws {
        let nginx = try await Nginx.shared()
        let plain = try await failure("https://127.0.0.1:\(nginx.plainPort)/", client)
        #expect(plain?.kind == .tls)
        #expect(
            plain?.message == "127.0.0.1:\(nginx.plainPort) answered in plain HTTP, not TLS: the URL may want "
                + "`http://`, or the port of the server's TLS listener", "\(plain?.message ?? "")")
        // An SSH server's banner.
        let (other, port) = try await RawServer.with("SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n") { base in
            (
                try await failure(base.replacingOccurrences(of: "http://", with: "https://") + "/", client),
                try #require(URL(string: base)?.port)
            )
        }
        #expect(other?.kind == .tls)
        #expect(
            other?.message == "127.0.0.1:\(port) did not answer in TLS: is the port another protocol's?",
            "\(other?.message ?? "")")
    }

    @Test(TestCertificateAuthority.needed, arguments: HTTPClientTransport.Client.allCases)
    func noCipherInCommonIsAHandshakeFailure(_ client: HTTPClientTransport.Client) async throws {
        let error = try await TLSTestServer.with(
            server(try trusted.issue()) { tls in
                tls.maximumTLSVersion = .tlsv12
                tls.cipherSuites = "DES-CBC3-SHA"  // a cipher reqplan does not offer
            }
        ) { base in try await failure(base + "/", client) }
        #expect(error?.kind == .tls)
        #expect(
            error?.message.hasSuffix("failed: no TLS version or cipher suite in common") == true,
            "\(error?.message ?? "")")
    }
}
