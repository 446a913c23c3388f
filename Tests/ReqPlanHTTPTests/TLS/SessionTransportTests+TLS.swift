import Foundation
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanTransport

/// TLS settings: trust roots (`--cacert`, `SSL_CERT_FILE`, `SSL_CERT_DIR`), client certificates, unusable files.
extension SessionTransportTests {
    @Test(ExternalServers.needed(.nginx, .openssl), arguments: secureWires)
    func theTestCAIsTrustedOnlyWhenGiven(wire: Wire) async throws {
        let nginx = try await Nginx.shared()
        try await HTTPClientTransport.with(try configuration(nginx, wire)) { transport in
            let response = try await transport.send(request(.GET, "\(nginx.tlsURL)/json"), timeout: .seconds(60))
            #expect(response.status == 200)
        }
        var system = HTTPClientTransport.Configuration()
        system.client = wire.client
        try await HTTPClientTransport.with(system) { transport in
            let error = await #expect(throws: TransportError.self) {
                try await transport.send(request(.GET, "\(nginx.tlsURL)/json"), timeout: .seconds(60))
            }
            #expect(error?.kind == .tls)
        }
    }

    @Test(ExternalServers.needed(.nginx, .openssl), arguments: secureWires)
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
                let response = try await transport.send(request(.GET, "\(nginx.tlsURL)/json"), timeout: .seconds(60))
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
                try await transport.send(request(.GET, "\(nginx.tlsURL)/json"), timeout: .seconds(60))
            }
            #expect(error?.kind == .tls)
        }
    }

    @Test(ExternalServers.needed(.nginx, .openssl), arguments: secureWires)
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
                let response = try await transport.send(request(.GET, "\(nginx.mtlsURL)/"), timeout: .seconds(60))
                #expect(response.status == 200)
                #expect(String(decoding: response.body, as: UTF8.self).contains("reqplan-test-client"))
            }
        }
        try await HTTPClientTransport.with(try configuration(nginx, wire)) { transport in
            let response = try await transport.send(request(.GET, "\(nginx.mtlsURL)/"), timeout: .seconds(60))
            #expect(response.status == 400, "nginx answers 400 (no required SSL certificate) at the HTTP level")
        }
    }

    @Test(ExternalServers.needed(.openssl), arguments: secureWires)
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
            let response = try await transport.send(request(.GET, "\(server.url)/"), timeout: .seconds(60))
            #expect(response.status == 200)
        }
        configuration.tls = try TLSSettings(
            caFile: certificates.ca.path, certificateFile: nil, keyFile: nil,
            environment: [:])
        try await HTTPClientTransport.with(configuration) { transport in
            let error = await #expect(throws: TransportError.self) {
                try await transport.send(request(.GET, "\(server.url)/"), timeout: .seconds(60))
            }
            #expect(error?.kind == .tls, "\(String(describing: error))")
        }
    }

    @Test(ExternalServers.needed(.openssl))
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
                (error as? TLSSettings.LoadError)?.message.contains(message) == true
            }
        }
    }
}
