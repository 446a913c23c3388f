import Foundation
import Testing

/// A certificate authority made for one test with the `openssl` command, and the certificates it
/// issues: server or client certificates with the names and validity dates the test asks for, so
/// TLS failures (expired, not yet valid, wrong host, unknown issuer, a client certificate wanted)
/// can be tested against a real TLS server on loopback. Keys are P-256; files live in a temporary
/// folder of the authority's own.
///
/// `openssl` is a test tool: `.ci/run` installs it and sets `REQPLAN_REQUIRE_OPENSSL=1`, which makes
/// its absence a failure instead of a skipped test (`TestCertificateAuthority.required`).
public struct TestCertificateAuthority: Sendable {
    /// Why a certificate could not be made.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// A certificate and its private key, as PEM files.
    public struct Issued: Sendable {
        public var certificate: URL
        public var key: URL

        /// The certificate's PEM text.
        public var certificatePEM: String {
            (try? String(contentsOf: certificate, encoding: .utf8)) ?? ""
        }

        /// The private key's PEM text.
        public var keyPEM: String {
            (try? String(contentsOf: key, encoding: .utf8)) ?? ""
        }
    }

    /// The folder holding the authority's files.
    public let directory: URL
    /// The authority's own certificate (self-signed) and key.
    public let root: Issued

    /// Whether the `openssl` command is on the `PATH`.
    public static let available: Bool = (try? openssl(["version"], in: FileManager.default.temporaryDirectory)) != nil

    /// Whether a missing `openssl` fails the tests that need it (`REQPLAN_REQUIRE_OPENSSL=1`, set by CI).
    public static var required: Bool { ProcessInfo.processInfo.environment["REQPLAN_REQUIRE_OPENSSL"] == "1" }

    /// The trait of a test that makes certificates: it runs where `openssl` is installed (or required), and
    /// is skipped elsewhere with the reason and how to get it.
    public static var needed: ConditionTrait {
        .enabled(
            if: available || required,
            """
            needs the openssl command, to make the test's certificates; missing here: apt-get install openssl. \
            .ci/run installs it; REQPLAN_REQUIRE_OPENSSL=1 runs the test anyway (it fails)
            """)
    }

    /// Makes a new authority named `name`, valid from yesterday for ten years.
    public init(name: String = "reqplan test CA") throws {
        directory = TestFolders.unique("reqplan-ca")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        root = Issued(
            certificate: directory.appendingPathComponent("ca.pem"),
            key: directory.appendingPathComponent("ca.key"))
        try Self.openssl(
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", root.key.path, "-out", root.certificate.path, "-subj", "/CN=\(name)",
                "-days", "3650", "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ], in: directory)
        try "".write(to: directory.appendingPathComponent("index.txt"), atomically: true, encoding: .utf8)
        try "01\n".write(to: directory.appendingPathComponent("serial"), atomically: true, encoding: .utf8)
    }

    /// Issues a certificate signed by this authority.
    /// - Parameters:
    ///   - names: the subject alternative names: IP addresses and DNS names (the first is also the common
    ///     name); none: a certificate without the extension.
    ///   - commonName: the subject's common name, when not the first of `names`.
    ///   - notBefore: the start of validity (default: a day ago).
    ///   - notAfter: the end of validity (default: in a year).
    ///   - client: a client certificate (extended key usage `clientAuth`) instead of a server one.
    public func issue(
        names: [String] = ["127.0.0.1", "localhost"], commonName: String? = nil,
        notBefore: Date = Date(timeIntervalSinceNow: -86_400),
        notAfter: Date = Date(timeIntervalSinceNow: 365 * 86_400), client: Bool = false
    ) throws -> Issued {
        let id = UUID().uuidString
        let issued = Issued(
            certificate: directory.appendingPathComponent("\(id).pem"),
            key: directory.appendingPathComponent("\(id).key"))
        let request = directory.appendingPathComponent("\(id).csr")
        try Self.openssl(
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", issued.key.path, "-out", request.path, "-subj", "/CN=\(commonName ?? names.first ?? "test")",
            ],
            in: directory)
        let alternativeNames = names.map { name in
            name.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" } ? "IP:\(name)" : "DNS:\(name)"
        }.joined(separator: ",")
        let config = directory.appendingPathComponent("\(id).cnf")
        try """
        [ca]
        default_ca = test
        [test]
        database = index.txt
        new_certs_dir = .
        serial = serial
        default_md = sha256
        policy = any
        unique_subject = no
        [any]
        commonName = supplied
        [issued]
        basicConstraints = critical,CA:FALSE
        keyUsage = critical,digitalSignature
        extendedKeyUsage = \(client ? "clientAuth" : "serverAuth")
        \(alternativeNames.isEmpty ? "" : "subjectAltName = \(alternativeNames)")
        """.write(to: config, atomically: true, encoding: .utf8)
        try Self.openssl(
            [
                "ca", "-batch", "-config", config.path, "-cert", root.certificate.path,
                "-keyfile", root.key.path, "-in", request.path, "-out", issued.certificate.path,
                "-startdate", Self.opensslDate(notBefore), "-enddate", Self.opensslDate(notAfter),
                "-extensions", "issued", "-notext",
            ], in: directory)
        return issued
    }

    /// Deletes the authority's folder.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// `YYYYMMDDHHMMSSZ`, as `openssl ca -startdate` takes it.
    static func opensslDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss'Z'"
        return formatter.string(from: date)
    }

    @discardableResult
    static func openssl(_ arguments: [String], in directory: URL) throws -> String {
        let (status, output) = try runCommand("openssl", arguments, in: directory)
        guard status == 0 else {
            throw Failure(description: "openssl \(arguments.first ?? "") failed (\(status)): \(output)")
        }
        return output
    }
}
