import Foundation

/// One set of certificates the third-party servers present and the tests trust, made once per
/// test process (`TestCertificates.shared()`) by two `TestCertificateAuthority`s. Server
/// certificates name `127.0.0.1`, `localhost` and `::1` unless said otherwise.
///
/// `server` is valid; `expired`, `notYetValid`, `wrongHost` (for `other.example` only) and
/// `selfSigned` (no CA) each fail verification for its own reason; `client` is a client
/// certificate the test CA signed, `otherClient` one from `otherCA`. `Nginx` serves each server
/// certificate on its own port.
public struct TestCertificates: Sendable {
    /// A certificate and its private key, as PEM files.
    public typealias Pair = TestCertificateAuthority.Issued

    /// The test CA (`--cacert`).
    public var authority: TestCertificateAuthority
    /// A second CA, trusted by nothing.
    public var otherAuthority: TestCertificateAuthority
    /// A valid server certificate.
    public var server: Pair
    /// A client certificate the test CA signed (`--cert`, `--key`); its subject is `reqplan-test-client`.
    public var client: Pair
    /// A client certificate signed by `otherCA`.
    public var otherClient: Pair
    /// Expired on 2020-02-01.
    public var expired: Pair
    /// Valid from 2100-01-01.
    public var notYetValid: Pair
    /// Valid, for `other.example` only.
    public var wrongHost: Pair
    /// Signed by itself, for the loopback names.
    public var selfSigned: Pair
    /// The client certificate and its key in one PEM file (`--cert` alone).
    public var clientCombined: URL

    /// The test CA's certificate file.
    public var ca: URL { authority.root.certificate }
    /// The other CA's certificate file.
    public var otherCA: URL { otherAuthority.root.certificate }
    /// The folder the test CA's files are in.
    public var folder: URL { authority.directory }

    private static let made = SharedResource<TestCertificates> { try TestCertificates.make() }

    /// The process's certificates, made on the first call.
    public static func shared() async throws -> TestCertificates {
        try await made.value()
    }

    /// Makes a new set.
    public static func make() throws -> TestCertificates {
        try ExternalServers.require(.openssl)
        let authority = try TestCertificateAuthority(name: "reqplan test CA")
        let other = try TestCertificateAuthority(name: "reqplan other CA")
        ServerRegistry.removeAtExit(authority.directory)
        ServerRegistry.removeAtExit(other.directory)
        let loopback = ["127.0.0.1", "localhost", "::1"]
        func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text + "T00:00:00Z") ?? Date() }
        let client = try authority.issue(names: ["reqplan-test-client"], client: true)
        let combined = authority.directory.appendingPathComponent("client-combined.pem")
        try (client.certificatePEM + client.keyPEM).write(to: combined, atomically: true, encoding: .utf8)
        return TestCertificates(
            authority: authority, otherAuthority: other,
            server: try authority.issue(names: loopback),
            client: client,
            otherClient: try other.issue(names: ["reqplan-other-client"], client: true),
            expired: try authority.issue(names: loopback, notBefore: date("2020-01-01"), notAfter: date("2020-02-01")),
            notYetValid: try authority.issue(
                names: loopback, notBefore: date("2100-01-01"), notAfter: date("2101-01-01")),
            wrongHost: try authority.issue(names: ["other.example"]),
            selfSigned: try selfSigned(names: loopback, in: authority.directory),
            clientCombined: combined)
    }

    /// A certificate for `names` signed by its own key.
    private static func selfSigned(names: [String], in folder: URL) throws -> Pair {
        let pair = Pair(
            certificate: folder.appendingPathComponent("self-signed.pem"),
            key: folder.appendingPathComponent("self-signed.key"))
        let alternativeNames = names.map { $0.contains(where: \.isLetter) ? "DNS:\($0)" : "IP:\($0)" }
        try TestCertificateAuthority.openssl(
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", pair.key.path, "-out", pair.certificate.path, "-days", "365", "-subj", "/CN=\(names[0])",
                "-addext", "subjectAltName=\(alternativeNames.joined(separator: ","))",
            ], in: folder)
        return pair
    }
}
