import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import ReqPlanDemoAPI
import ReqPlanSyntax
import ReqPlanURLSession
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanRuntime

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
struct Wire: Sendable, Hashable, CustomTestStringConvertible {
    enum Scheme: String, Sendable {
        case http, https
    }

    var client: HTTPClientTransport.Client
    var scheme: Scheme
    /// Over TLS, whether HTTP/2 is offered (the demo API takes it); false: HTTP/1.1 over TLS.
    var http2 = true
    /// Whether requests go through `URLSessionTransport` instead of `client`.
    var urlSession = false

    static let reqplanHTTP = Wire(client: .reqplan, scheme: .http)
    static let reqplanHTTPS = Wire(client: .reqplan, scheme: .https)
    static let reqplanHTTPSOverHTTP1 = Wire(client: .reqplan, scheme: .https, http2: false)
    static let libraryHTTP = Wire(client: .asyncHTTPClient, scheme: .http)
    static let libraryHTTPS = Wire(client: .asyncHTTPClient, scheme: .https)
    static let urlSessionHTTP = Wire(client: .reqplan, scheme: .http, urlSession: true)
    static let urlSessionHTTPS = Wire(client: .reqplan, scheme: .https, urlSession: true)

    /// Every client over every scheme, and reqplan's client over TLS with HTTP/1.1 (its own
    /// pipeline). AsyncHTTPClient's HTTP/1.1 over TLS is the library's own business.
    static let withoutURLSession: [Wire] = [
        reqplanHTTP, reqplanHTTPS, reqplanHTTPSOverHTTP1, libraryHTTP, libraryHTTPS,
    ]

    /// Every way, URLSession over plain HTTP included.
    static let allCases: [Wire] = withoutURLSession + [urlSessionHTTP]

    var testDescription: String {
        if urlSession { return "urlsession \(scheme.rawValue)" }
        return "\(client.rawValue) \(scheme.rawValue)" + (scheme == .https ? (http2 ? " h2" : " http/1.1") : "")
    }

    /// The protocol the demo API sees (`HTTP/1.1`, `HTTP/2`).
    var protocolVersion: String { scheme == .https && http2 ? "HTTP/2" : "HTTP/1.1" }

    /// Runs `body` with the base URL of a demo API served over this scheme.
    func withDemo<Result: Sendable>(_ body: @escaping @Sendable (String) async throws -> Result) async throws -> Result
    {
        try await DemoAPI.withServer(tls: scheme == .https, body)
    }

    /// The transport's default settings for this client, trusting the demo API's certificate (as
    /// `--cacert` would).
    func configuration() -> HTTPClientTransport.Configuration {
        var configuration = HTTPClientTransport.Configuration()
        configuration.trustRoots = Self.demoRoots
        configuration.client = client
        configuration.offersHTTP2 = http2
        return configuration
    }

    /// The demo API's self-signed certificate, as a trust root.
    static let demoRoots = try? NIOSSLCertificate.fromPEMBytes(Array(DemoTLS.certificate.utf8))

    /// Sends one request over a transport with `configuration` (this wire's default when nil).
    func send(
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
    func withTransport<Result: Sendable>(
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

/// Runs a plan against a server (`BASE_URL` in the plan is replaced by its address) over `wire`.
func runAgainstDemo(
    _ yaml: String, baseURL: String, wire: Wire, planDirectory: URL = URL(fileURLWithPath: NSTemporaryDirectory())
) async throws -> RunResult {
    try await wire.withTransport(wire.configuration()) { transport in
        try await runPlan(yaml, baseURL: baseURL, over: transport, planDirectory: planDirectory)
    }
}

extension Result where Failure == TransportError {
    /// The error, or nil on success.
    var failure: TransportError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// What the demo API's `/echo` saw.
struct Echo {
    var method: String
    var protocolVersion: String
    /// Header names in lower case, in the order received.
    var headers: [(name: String, value: String)]
    var body: String

    init(_ response: TransportResponse) throws {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            "not an echo: \(String(decoding: response.body, as: UTF8.self))")
        method = object["method"] as? String ?? ""
        protocolVersion = object["protocol"] as? String ?? ""
        headers = (object["headers"] as? [[String: String]] ?? []).map { ($0["name"] ?? "", $0["value"] ?? "") }
        body = (object["body"] as? [String: Any])?["text"] as? String ?? ""
    }

    /// The values of header `name` (lower case).
    func header(_ name: String) -> [String] {
        headers.filter { $0.name == name }.map(\.value)
    }
}

/// A raw TCP server on loopback for what the demo API cannot send: it answers each connection's
/// first bytes with `response`, exactly as given, then closes the connection. Over `https` it
/// presents the demo API's certificate.
enum RawServer {
    static func with(_ response: String, wire: Wire = .reqplanHTTP, _ body: (String) async throws -> Void)
        async throws
    {
        let context = try wire.scheme == .https ? NIOSSLContext(configuration: DemoTLS.configuration()) : nil
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    }
                    try channel.pipeline.syncOperations.addHandler(Responder(response: response))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        do {
            try await body("\(wire.scheme.rawValue)://127.0.0.1:\(port)")
        } catch {
            try? await server.close()
            throw error
        }
        try await server.close()
    }

    final class Responder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let response: String
        var answered = false

        init(response: String) { self.response = response }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !answered else { return }
            answered = true
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: response)), promise: written)
        }
    }
}
