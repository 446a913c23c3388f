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
            timeout: .init(connect: .nanoseconds(Int64(configuration.connectTimeout.milliseconds) * 1_000_000)),
            decompression: .enabled(limit: .ratio(100)))
        clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = configuration.connectionsPerHost
        // The executor retries by policy; a refused connection must fail at once, not after the connect timeout.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        clientConfiguration.httpVersion = .automatic
        return try await HTTPClient.withHTTPClient(configuration: clientConfiguration) { client in
            try await body(HTTPClientTransport(client: client, configuration: configuration))
        }
    }

    public func send(_ request: PreparedRequest, timeout: Duration?) async throws(TransportError) -> TransportResponse {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let deadline: NIODeadline = timeout.map { .now() + .milliseconds($0.milliseconds) } ?? .distantFuture
        let client = self.client
        let limit = configuration.maxBodySize
        let prepared = outgoing
        // The attempt's timeout covers the whole response, body included: AsyncHTTPClient's
        // deadline ends at the head, so the body is raced against the same deadline.
        let attempt: @Sendable () async throws -> TransportResponse = {
            let response = try await client.execute(prepared, deadline: deadline)
            let buffer = try await response.body.collect(upTo: limit)
            return TransportResponse(
                status: Int(response.status.code),
                headers: response.headers.map { HeaderField($0.name, $0.value) },
                body: Array(buffer.readableBytesView))
        }
        do {
            guard let timeout else { return try await attempt() }
            return try await withThrowingTaskGroup(of: TransportResponse?.self) { group in
                group.addTask { try await attempt() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw HTTPClientError.deadlineExceeded
                }
                return response
            }
        } catch {
            throw Self.classify(error, host: request.host, timeout: timeout, limit: limit)
        }
    }

    /// Names the cause the way a person would: refused, reset, timed out, TLS.
    static func classify(_ error: any Error, host: String, timeout: Duration?, limit: Int) -> TransportError {
        if error is CancellationError { return TransportError(.cancelled, "cancelled") }
        if error is NIOTooManyBytesError {
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
