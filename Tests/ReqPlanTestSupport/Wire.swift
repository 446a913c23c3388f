import Foundation
import NIOSSL
import ReqPlanDemoAPI
import ReqPlanHTTP
import ReqPlanTransport
import ReqPlanURLSession
import Testing

/// The ways a request can go on the wire, which must behave alike: reqplan's own client over `http://`
/// (HTTP/1.1) and `https://` (HTTP/2 with the demo API, through ALPN; and HTTP/1.1 over TLS when HTTP/2
/// is not offered), AsyncHTTPClient, the library path, over both schemes, and `URLSessionTransport`
/// (FoundationNetworking, over libcurl, on Linux) over `http://`. Every transport behaviour test takes one
/// as its argument.
///
/// URLSession sits out only what FoundationNetworking cannot do (`Wire.withoutURLSession`); each test that
/// leaves it out says which of these it needs:
/// - **Trusting a certificate, or not verifying** (`https://` against the demo API): FoundationNetworking
///   verifies against the system's trust store only; it has no per-session trust roots and no way to turn
///   verification off (libcurl's CA file is read from `URLSessionCertificateAuthorityInfoFile` on Android
///   only). Over `https://` it is tested that an untrusted certificate fails as `tls`.
/// - **A connect timeout**: URLSession has none of its own (`timeoutIntervalForRequest` is an idle timeout),
///   so a silent host fails at the attempt's deadline, not at `connectTimeout`.
/// - **An idle timeout for pooled connections**: libcurl keeps its connections as it sees fit.
/// - **Not resending a non-idempotent request**: libcurl resends a request whose reused connection closed
///   before any of the response came, POST included.
/// - **A response that is not HTTP**: libcurl reads it as HTTP/0.9 rather than failing.
/// - **A GET with a body**: FoundationNetworking refuses it; the transport fails it before sending, with a
///   message saying so (`bodiesAreFramedByTheirLengthWhateverTheMethod` sends a body on DELETE only).
///
/// One difference is not tested against: URLSession adds `Content-Type: application/x-www-form-urlencoded`
/// to a request with a body and no `Content-Type`.
public struct Wire: Sendable, Hashable, CustomTestStringConvertible {
    public enum Scheme: String, Sendable {
        case http, https
    }

    public var client: HTTPClientTransport.Client
    public var scheme: Scheme
    /// Over TLS, whether HTTP/2 is offered (the demo API takes it); false: HTTP/1.1 over TLS.
    public var http2 = true
    /// Whether requests go through `URLSessionTransport` instead of `client`.
    public var urlSession = false

    /// A wire of `client` over `scheme`.
    public init(client: HTTPClientTransport.Client, scheme: Scheme, http2: Bool = true, urlSession: Bool = false) {
        self.client = client
        self.scheme = scheme
        self.http2 = http2
        self.urlSession = urlSession
    }

    public static let reqplanHTTP = Wire(client: .reqplan, scheme: .http)
    public static let reqplanHTTPS = Wire(client: .reqplan, scheme: .https)
    public static let reqplanHTTPSOverHTTP1 = Wire(client: .reqplan, scheme: .https, http2: false)
    public static let libraryHTTP = Wire(client: .asyncHTTPClient, scheme: .http)
    public static let libraryHTTPS = Wire(client: .asyncHTTPClient, scheme: .https)
    public static let urlSessionHTTP = Wire(client: .reqplan, scheme: .http, urlSession: true)
    public static let urlSessionHTTPS = Wire(client: .reqplan, scheme: .https, urlSession: true)

    /// Every client over every scheme, and reqplan's client over TLS with HTTP/1.1 (its own
    /// pipeline). AsyncHTTPClient's HTTP/1.1 over TLS is the library's own business.
    public static let withoutURLSession: [Wire] = [
        reqplanHTTP, reqplanHTTPS, reqplanHTTPSOverHTTP1, libraryHTTP, libraryHTTPS,
    ]

    /// Every way, URLSession over plain HTTP included.
    public static let allCases: [Wire] = withoutURLSession + [urlSessionHTTP]

    public var testDescription: String {
        if urlSession { return "urlsession \(scheme.rawValue)" }
        return "\(client.rawValue) \(scheme.rawValue)" + (scheme == .https ? (http2 ? " h2" : " http/1.1") : "")
    }

    /// The protocol the demo API sees (`HTTP/1.1`, `HTTP/2`).
    public var protocolVersion: String { scheme == .https && http2 ? "HTTP/2" : "HTTP/1.1" }

    /// Runs `body` with the base URL of a demo API served over this scheme.
    public func withDemo<Result: Sendable>(_ body: @escaping @Sendable (String) async throws -> Result) async throws
        -> Result
    {
        try await DemoAPI.withServer(tls: scheme == .https, body)
    }

    /// The transport's default settings for this client, trusting the demo API's certificate (as
    /// `--cacert` would).
    public func configuration() -> HTTPClientTransport.Configuration {
        var configuration = HTTPClientTransport.Configuration()
        configuration.trustRoots = Self.demoRoots
        configuration.client = client
        configuration.offersHTTP2 = http2
        return configuration
    }

    /// The demo API's self-signed certificate, as a trust root.
    public static let demoRoots = try? NIOSSLCertificate.fromPEMBytes(Array(DemoTLS.certificate.utf8))

    /// Sends one request over a transport with `configuration` (this wire's default when nil).
    public func send(
        _ request: PreparedRequest, configuration: HTTPClientTransport.Configuration? = nil,
        timeout: Duration? = nil
    ) async throws -> Result<TransportResponse, TransportError> {
        try await withTransport(configuration ?? self.configuration()) { transport in
            do throws(TransportError) {
                return .success(try await transport.send(request, timeout: timeout))
            } catch {
                return .failure(error)
            }
        }
    }
}

extension Wire {
    /// Runs `body` with this wire's transport made from `configuration`: the NIO transport, or
    /// `URLSessionTransport` with the settings it shares (redirects, body limit, deadline, pool, cookies).
    public func withTransport<Result: Sendable>(
        _ configuration: HTTPClientTransport.Configuration, _ body: (any Transport) async throws -> Result
    ) async throws -> Result {
        guard urlSession else { return try await HTTPClientTransport.with(configuration) { try await body($0) } }
        var settings = URLSessionTransport.Configuration()
        settings.followRedirects = configuration.followRedirects
        settings.maxRedirects = configuration.maxRedirects
        settings.maxBodySize = configuration.maxBodySize
        settings.requestTimeout = configuration.requestTimeout
        settings.connectionsPerHost =
            configuration.connectionsPerHost ?? HTTPClientTransport.Configuration.defaultConnectionsPerHost
        settings.cookies = configuration.cookies
        settings.secrets = configuration.secrets
        return try await URLSessionTransport.with(settings) { try await body($0) }
    }
}

/// The outcome of `Wire.send`.
extension Result where Failure == TransportError {
    /// The error, or nil on success.
    public var failure: TransportError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
