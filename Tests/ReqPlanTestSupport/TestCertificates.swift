import Foundation

/// A test certificate authority and certificates it signed, made with the `openssl` command in
/// a temporary folder, once per test process (`TestCertificates.shared()`). Keys are EC P-256,
/// unencrypted PEM. Server certificates name `127.0.0.1`, `::1` and `localhost` unless said
/// otherwise.
///
/// For TLS tests: `server` is valid; `expired`, `notYetValid`, `wrongHost` (for
/// `other.example` only) and `selfSigned` (no CA) each fail verification for its own reason;
/// `client` is a client certificate the test CA signed, `otherClient` one from `otherCA`.
/// `Nginx` serves each of them on its own port.
public struct TestCertificates: Sendable {
    /// A certificate and its private key, as PEM files.
    public struct Pair: Sendable {
        public var certificate: URL
        public var key: URL
    }

    /// The folder they are in.
    public var folder: URL
    /// The test CA's certificate (`--cacert`).
    public var ca: URL
    /// A second CA, trusted by nothing.
    public var otherCA: URL
    /// A valid server certificate.
    public var server: Pair
    /// A client certificate the test CA signed (`--cert`, `--key`).
    public var client: Pair
    /// A client certificate signed by `otherCA`.
    public var otherClient: Pair
    /// Expired on 2020-02-01.
    public var expired: Pair
    /// Valid from 2100-01-01.
    public var notYetValid: Pair
    /// Valid, for `other.example` only.
    public var wrongHost: Pair
    /// Signed by itself, for 127.0.0.1 and localhost.
    public var selfSigned: Pair
    /// The client certificate and its key in one PEM file (`--cert` alone).
    public var clientCombined: URL

    private static let made = SharedResource<TestCertificates> { try TestCertificates.make() }

    /// The process's certificates, made on the first call.
    public static func shared() async throws -> TestCertificates {
        try await made.value()
    }

    /// Makes a new set in a new temporary folder.
    public static func make() throws -> TestCertificates {
        try ExternalServers.require(.openssl)
        let folder = try ExternalServers.makeTemporaryFolder("certs")
        let maker = Maker(folder: folder)
        try maker.makeCA("ca", name: "reqplan test CA")
        try maker.makeCA("other-ca", name: "reqplan other CA")
        let hosts = "IP:127.0.0.1, IP:::1, DNS:localhost"
        let server = try maker.issue("server", by: "ca", names: hosts, usage: "serverAuth")
        let client = try maker.issue("client", by: "ca", names: nil, usage: "clientAuth")
        let otherClient = try maker.issue("other-client", by: "other-ca", names: nil, usage: "clientAuth")
        let expired = try maker.issue("expired", by: "ca", names: hosts, usage: "serverAuth",
                                      from: "20200101000000Z", until: "20200201000000Z")
        let notYetValid = try maker.issue("not-yet-valid", by: "ca", names: hosts, usage: "serverAuth",
                                          from: "21000101000000Z", until: "21010101000000Z")
        let wrongHost = try maker.issue("wrong-host", by: "ca", names: "DNS:other.example", usage: "serverAuth")
        let selfSigned = try maker.selfSigned("self-signed", names: hosts)
        let combined = folder.appendingPathComponent("client-combined.pem")
        let text = try String(contentsOf: client.certificate, encoding: .utf8)
            + String(contentsOf: client.key, encoding: .utf8)
        try text.write(to: combined, atomically: true, encoding: .utf8)
        return TestCertificates(
            folder: folder, ca: folder.appendingPathComponent("ca.pem"),
            otherCA: folder.appendingPathComponent("other-ca.pem"), server: server, client: client,
            otherClient: otherClient, expired: expired, notYetValid: notYetValid, wrongHost: wrongHost,
            selfSigned: selfSigned, clientCombined: combined)
    }

    /// Runs `openssl` in the folder.
    private struct Maker {
        var folder: URL

        func openssl(_ arguments: [String]) throws {
            guard let program = ExternalServers.executable("openssl") else {
                throw ServerError("openssl is not installed")
            }
            let (status, output) = try ExternalServers.runToEnd(program, arguments, in: folder)
            guard status == 0 else { throw ServerError("openssl \(arguments.joined(separator: " ")) failed: \(output)") }
        }

        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

        func newKey(_ name: String, subject: String) throws {
            try openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                         "-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(subject)"])
        }

        func makeCA(_ name: String, name subject: String) throws {
            try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                         "-keyout", "\(name).key", "-out", "\(name).pem", "-days", "3650", "-subj", "/CN=\(subject)",
                         "-addext", "basicConstraints=critical,CA:TRUE",
                         "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
            // `openssl ca` (unlike `openssl x509` in OpenSSL 3.0) takes any start and end date,
            // which the expired and not-yet-valid certificates need.
            try "".write(toFile: path("\(name).index"), atomically: true, encoding: .utf8)
            try "1000\n".write(toFile: path("\(name).serial"), atomically: true, encoding: .utf8)
            let config = """
                [ ca ]
                default_ca = this_ca
                [ this_ca ]
                database = \(name).index
                new_certs_dir = .
                certificate = \(name).pem
                private_key = \(name).key
                serial = \(name).serial
                default_md = sha256
                policy = any_name
                unique_subject = no
                copy_extensions = none
                [ any_name ]
                commonName = supplied
                """
            try config.write(toFile: path("\(name).cnf"), atomically: true, encoding: .utf8)
        }

        func issue(_ name: String, by ca: String, names: String?, usage: String,
                   from start: String? = nil, until end: String? = nil) throws -> Pair
        {
            try newKey(name, subject: names == nil ? "reqplan test client" : "127.0.0.1")
            var extensions = """
                [ leaf ]
                basicConstraints = CA:FALSE
                keyUsage = critical, digitalSignature
                extendedKeyUsage = \(usage)

                """
            if let names { extensions += "subjectAltName = \(names)\n" }
            try extensions.write(toFile: path("\(name).ext"), atomically: true, encoding: .utf8)
            let now = Date()
            let start = start ?? Self.asn1Time(now.addingTimeInterval(-86_400))
            let end = end ?? Self.asn1Time(now.addingTimeInterval(365 * 86_400))
            try openssl(["ca", "-batch", "-notext", "-config", "\(ca).cnf", "-extfile", "\(name).ext",
                         "-extensions", "leaf", "-startdate", start, "-enddate", end,
                         "-in", "\(name).csr", "-out", "\(name).pem"])
            return Pair(certificate: folder.appendingPathComponent("\(name).pem"),
                        key: folder.appendingPathComponent("\(name).key"))
        }

        func selfSigned(_ name: String, names: String) throws -> Pair {
            try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                         "-keyout", "\(name).key", "-out", "\(name).pem", "-days", "365", "-subj", "/CN=127.0.0.1",
                         "-addext", "subjectAltName=\(names)"])
            return Pair(certificate: folder.appendingPathComponent("\(name).pem"),
                        key: folder.appendingPathComponent("\(name).key"))
        }

        /// `YYYYMMDDHHMMSSZ`, in UTC.
        static func asn1Time(_ date: Date) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyyMMddHHmmss'Z'"
            return formatter.string(from: date)
        }
    }
}
