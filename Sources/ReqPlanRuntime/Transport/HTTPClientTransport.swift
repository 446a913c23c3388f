import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// The production transport: one shared AsyncHTTPClient per run, with connection
/// pooling, HTTP/1.1 and HTTP/2, redirects, decompression, TLS verification and a
/// response size cap.
public struct HTTPClientTransport: Transport {
    /// Settings, with documented defaults.
    public struct Configuration: Sendable {
        /// Verify TLS certificates (off only with `--insecure`).
        public var verifyCertificates = true
        /// Redirects followed before giving up.
        public var maxRedirects = 10
        /// The largest response body accepted, in bytes (default 64 MiB).
        public var maxBodySize = 64 << 20
        /// Time allowed to open a connection.
        public var connectTimeout: Duration = .seconds(10)
        /// Connections kept per host (raise with the plan's concurrency).
        public var connectionsPerHost = 64

        public init() {}
    }

    let client: HTTPClient
    let configuration: Configuration

    /// Runs `body` with a transport whose client is shut down when `body` returns, in every path.
    public static func with<Result: Sendable>(
        _ configuration: Configuration, _ body: (HTTPClientTransport) async throws -> Result
    ) async throws -> Result {
        var tls = TLSConfiguration.makeClientConfiguration()
        if !configuration.verifyCertificates { tls.certificateVerification = .none }
        var clientConfiguration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .follow(max: configuration.maxRedirects, allowCycles: false),
            timeout: .init(connect: TimeAmount(configuration.connectTimeout)),
            decompression: .enabled(limit: .ratio(100)))
        clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = configuration.connectionsPerHost
        // The executor retries by policy; a refused connection must fail at once, not after the connect timeout.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        clientConfiguration.httpVersion = .automatic
        // No distributed tracing: a span per request costs about 5 % of a small request's CPU.
        clientConfiguration.tracing.tracer = nil
        return try await HTTPClient.withHTTPClient(configuration: clientConfiguration) { client in
            try await body(HTTPClientTransport(client: client, configuration: configuration))
        }
    }

    public func send(_ request: PreparedRequest, timeout: Duration?) async throws(TransportError) -> TransportResponse {
        let limit = min(configuration.maxBodySize, Int(UInt32.max))
        do {
            var headers = HTTPHeaders()
            for header in request.headers { headers.add(name: header.name, value: header.value) }
            let outgoing = try HTTPClient.Request(
                url: request.url, method: HTTPMethod(rawValue: request.method.rawValue), headers: headers,
                body: request.body.map { .bytes($0) })
            // The delegate API collects the body on the event loop and answers once, and its deadline
            // covers the whole response, body included: one hand-off per request instead of one per
            // body part, and no timer task racing the request.
            let task = client.execute(
                request: outgoing, delegate: ResponseAccumulator(request: outgoing, maxBodySize: limit),
                deadline: timeout.map { .now() + TimeAmount($0) })
            let response = try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
            return TransportResponse(
                status: Int(response.status.code),
                headers: response.headers.map { HeaderField($0.name, $0.value) },
                body: response.body.map { Array($0.readableBytesView) } ?? [])
        } catch {
            throw Self.classify(error, host: request.host, timeout: timeout, limit: limit)
        }
    }

    /// Names the cause the way a person would: refused, reset, timed out, TLS.
    static func classify(_ error: any Error, host: String, timeout: Duration?, limit: Int) -> TransportError {
        if error is CancellationError { return TransportError(.cancelled, "cancelled") }
        if error is NIOTooManyBytesError || error is ResponseAccumulator.ResponseTooBigError {
            return TransportError(.bodyTooLarge, "the response from \(host) is larger than \(limit) bytes")
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return TransportError(.cancelled, "cancelled")
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                let after = timeout.map { " after \(Self.format($0))" } ?? ""
                return TransportError(.timeout, "request to \(host) timed out\(after)")
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return TransportError(.connect, "connecting to \(host) timed out")
            case .remoteConnectionClosed:
                return TransportError(.reset, "connection to \(host) was closed before the response ended")
            case .tlsHandshakeTimeout:
                return TransportError(.tls, "TLS handshake with \(host) timed out")
            case .redirectLimitReached, .redirectCycleDetected:
                return TransportError(.other, "too many redirects from \(host)")
            case .invalidURL, .emptyHost, .emptyScheme:
                return TransportError(.other, "invalid URL for \(host)")
            default:
                return TransportError(.other, "request to \(host) failed: \(error)")
            }
        }
        if let error = error as? NIOSSLError {
            return TransportError(.tls, "TLS with \(host) failed: \(error)")
        }
        if error is NIOSSLExtraError {
            return TransportError(.tls, "TLS with \(host) failed: \(error)")
        }
        let text = "\(error)"
        if text.contains("refused") || text.contains("ECONNREFUSED") || text.contains("connect") {
            return TransportError(.connect, "connection to \(host) refused")
        }
        if text.contains("reset") || text.contains("ECONNRESET") || text.contains("EOF")
            || text.contains("unexpected time") || text.contains("closed")
        {
            return TransportError(.reset, "connection to \(host) was reset")
        }
        if text.contains("certificate") || text.contains("SSL") || text.contains("TLS") {
            return TransportError(.tls, "TLS with \(host) failed: \(text)")
        }
        return TransportError(.other, "request to \(host) failed: \(text)")
    }

    static func format(_ duration: Duration) -> String {
        let milliseconds = duration.milliseconds
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    }
}

extension TimeAmount {
    /// A duration as SwiftNIO's time amount, to the millisecond.
    init(_ duration: Duration) {
        self = .milliseconds(duration.milliseconds)
    }
}
