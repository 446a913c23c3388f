import Foundation
import NIOSSL
import ReqPlanSyntax
import ReqPlanTransport

/// The certificates a run trusts and presents over `https://`, read and checked before anything
/// is sent:
/// - `--cacert FILE` (a PEM bundle) replaces the system's trust roots, as with curl;
/// - without it, `SSL_CERT_FILE` (a PEM bundle) and `SSL_CERT_DIR` (folders of certificates
///   named by subject hash, as `openssl rehash` and Debian's `/etc/ssl/certs` have them,
///   separated by `:`) replace them, as OpenSSL and curl read them; both may be given. They
///   are read at the first TLS connection (a plain-HTTP run never reads them);
/// - otherwise the system's roots are trusted;
/// - `--cert FILE` (a PEM certificate, its chain may follow) and `--key FILE` (its unencrypted
///   PEM private key; may be left out when the certificate file holds the key too, as curl
///   allows) are presented to servers that ask for a client certificate (mTLS).
public struct TLSSettings: Sendable {
    /// Why the files cannot be used: a sentence naming the option and the file.
    public struct LoadError: Error, Sendable {
        /// The reason, as a sentence.
        public var message: String
        /// The file at fault.
        public var file: String

        init(_ message: String, file: String) {
            self.message = message
            self.file = file
        }
    }

    var trustRoots: NIOSSLTrustRoots = .default
    var additionalTrustRoots: [NIOSSLAdditionalTrustRoots] = []
    var certificateChain: [NIOSSLCertificate] = []
    var privateKey: NIOSSLPrivateKey?

    /// The system's trust roots and no client certificate.
    public init() {}

    /// Reads the files the options and the environment name (see the type's documentation).
    /// - Throws: a `LoadError` for a file that is missing, unreadable, not PEM, holds no
    ///   certificate or an encrypted key, or a key that does not belong to the certificate.
    /// - Parameter names: how messages name the files.
    public init(
        caFile: String?, certificateFile: String?, keyFile: String?, environment: [String: String],
        names: ConnectionOptions.SettingNames = ConnectionOptions.SettingNames()
    ) throws(LoadError) {
        if let caFile {
            trustRoots = .certificates(try Self.certificates(in: caFile, named: names.caFile))
        } else {
            // The variables often name the system's own bundle and folder (hundreds of
            // certificates): they are checked here but read when the first TLS connection is made,
            // so a plain-HTTP run pays nothing for them.
            let bundle = environment["SSL_CERT_FILE"].flatMap { $0.isEmpty ? nil : $0 }
            let folders = (environment["SSL_CERT_DIR"] ?? "").split(separator: ":").map(String.init)
            for folder in folders {
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                    throw LoadError("SSL_CERT_DIR names `\(folder)`, which is not a folder", file: folder)
                }
            }
            if let bundle {
                let bytes = try Self.read(bundle, named: "SSL_CERT_FILE")
                guard bytes.starts(with: Self.certificateMarker) || Self.contains(bytes, Self.certificateMarker) else {
                    throw LoadError(
                        "SSL_CERT_FILE `\(bundle)` holds no PEM certificate (`-----BEGIN CERTIFICATE-----`)",
                        file: bundle)
                }
            }
            // A folder is looked up by subject hash (as OpenSSL does) only as the main root; a
            // bundle is read whole as an additional one; further folders are read at once.
            if let first = folders.first {
                trustRoots = .file(first)
                additionalTrustRoots = bundle.map { [.file($0)] } ?? []
                let more = folders.dropFirst().flatMap(Self.certificates(inFolder:))
                if !more.isEmpty { additionalTrustRoots.append(.certificates(more)) }
            } else if let bundle {
                trustRoots = .file(bundle)
            }
        }
        if let certificateFile {
            certificateChain = try Self.certificates(in: certificateFile, named: names.certificateFile)
            privateKey = try Self.privateKey(
                in: keyFile ?? certificateFile, named: keyFile == nil ? names.certificateFile : names.keyFile,
                inCertificateFile: keyFile == nil, keyName: names.keyFile)
            // A key that does not belong to the certificate fails here, not at the first handshake.
            var check = TLSConfiguration.makeClientConfiguration()
            check.trustRoots = .certificates([])  // the roots are not what is checked; loading them costs
            check.certificateChain = certificateChain.map { .certificate($0) }
            check.privateKey = privateKey.map { .privateKey($0) }
            do {
                _ = try NIOSSLContext(configuration: check)
            } catch {
                throw LoadError(
                    "the key in `\(keyFile ?? certificateFile)` does not belong to the certificate in "
                        + "`\(certificateFile)`", file: keyFile ?? certificateFile)
            }
        } else if let keyFile {
            throw LoadError(
                "\(names.keyFile) `\(keyFile)` needs \(names.certificateFile) (the certificate it belongs to)",
                file: keyFile)
        }
    }

    /// Puts the trust roots and client certificate into a TLS configuration.
    func apply(to configuration: inout TLSConfiguration) {
        configuration.trustRoots = trustRoots
        configuration.additionalTrustRoots = additionalTrustRoots
        if let privateKey, !certificateChain.isEmpty {
            configuration.certificateChain = certificateChain.map { .certificate($0) }
            configuration.privateKey = .privateKey(privateKey)
        }
    }

    /// The most bytes a PEM file may hold (a system's whole CA bundle is about 200 KiB).
    static let maxPEMFileSize = 8 << 20

    private static func read(_ path: String, named option: String) throws(LoadError) -> [UInt8] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw LoadError("\(option) `\(path)`: no such file", file: path)
        }
        guard !isFolder.boolValue else {
            throw LoadError("\(option) `\(path)` is a folder, not a PEM file", file: path)
        }
        switch FileReader.bytes(atPath: path, origin: .user, limit: maxPEMFileSize, what: "\(option) `\(path)`") {
        case .success(let bytes): return bytes
        case .failure(let failure): throw LoadError("\(option): \(failure.text)", file: path)
        }
    }

    /// The start of a PEM certificate.
    private static let certificateMarker = Array("-----BEGIN CERTIFICATE-----".utf8)

    private static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, bytes.count >= needle.count else { return false }
        var index = 0
        while let found = bytes[index...].firstIndex(of: first), found + needle.count <= bytes.count {
            if bytes[found..<found + needle.count].elementsEqual(needle) { return true }
            index = found + 1
        }
        return false
    }

    /// Every PEM certificate in the files of `folder`, duplicates (hashed links to the same
    /// file) dropped. NIOSSL loads a folder only as the main trust root and reads
    /// `additionalTrustRoots` as files, so a further folder is read here.
    private static func certificates(inFolder folder: String) -> [NIOSSLCertificate] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var seen = Set<NIOSSLCertificate>()
        return names.sorted().flatMap { name -> [NIOSSLCertificate] in
            guard
                case .success(let bytes) = FileReader.bytes(
                    atPath: folder + "/" + name, origin: .user, limit: maxPEMFileSize, what: "a certificate")
            else { return [] }
            return (try? NIOSSLCertificate.fromPEMBytes(bytes)) ?? []
        }.filter { seen.insert($0).inserted }
    }

    private static func certificates(in path: String, named option: String) throws(LoadError) -> [NIOSSLCertificate] {
        let bytes = try read(path, named: option)
        guard let certificates = try? NIOSSLCertificate.fromPEMBytes(bytes), !certificates.isEmpty else {
            throw LoadError("\(option) `\(path)` holds no PEM certificate (`-----BEGIN CERTIFICATE-----`)", file: path)
        }
        return certificates
    }

    /// - Parameters:
    ///   - inCertificateFile: the key is looked for in the certificate's file (no key file given).
    ///   - keyName: how messages name the key file.
    private static func privateKey(in path: String, named option: String, inCertificateFile: Bool, keyName: String)
        throws(LoadError) -> NIOSSLPrivateKey
    {
        let bytes = try read(path, named: option)
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains("PRIVATE KEY-----") else {
            throw LoadError(
                inCertificateFile
                    ? "\(option) `\(path)` holds no private key: give it with \(keyName)"
                    : "\(option) `\(path)` holds no PEM private key (`-----BEGIN PRIVATE KEY-----`)", file: path)
        }
        guard !text.contains("ENCRYPTED") else {
            throw LoadError(
                "\(option) `\(path)` holds an encrypted private key; reqplan reads unencrypted keys only "
                    + "(`openssl pkey -in KEY -out PLAIN.key` decrypts one)", file: path)
        }
        do {
            return try NIOSSLPrivateKey(bytes: bytes, format: .pem)
        } catch {
            throw LoadError("\(option) `\(path)`: the private key cannot be read", file: path)
        }
    }
}

extension HTTPClientTransport.Configuration {
    /// The TLS configuration of the run's connections, whichever client makes them (each adds its
    /// ALPN protocols): `tls`'s trust roots and client certificate, verification unless `--insecure`.
    var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        tls.apply(to: &configuration)
        if !verifyCertificates {
            configuration.certificateVerification = .none
            // NIOSSL reads additional roots when it makes its context, verifying or not.
            configuration.additionalTrustRoots = []
        }
        return configuration
    }
}
