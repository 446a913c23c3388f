import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL

/// AsyncHTTPClient, the library path (`--http-client asynchttpclient`): made on the first request
/// that uses it, so a run on reqplan's own client never starts (or stops) it.
final class AsyncHTTPClientPath: Sendable {
    private struct State {
        /// The client for direct requests, once made.
        var direct: HTTPClient?
        /// A client per proxy (AsyncHTTPClient takes its proxy in its configuration), once made.
        var proxied: [ProxyServer: HTTPClient] = [:]
        /// After shutdown, when no new client is made.
        var closed = false
    }

    private let configuration: HTTPClient.Configuration
    private let state = NIOLockedValueBox(State())

    init(_ settings: HTTPClientTransport.Configuration) {
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: settings.tlsConfiguration,
            redirectConfiguration: .disallow,  // followed in `HTTPClientTransport.send`, for both clients alike
            timeout: .init(connect: TimeAmount(settings.connectTimeout)),
            decompression: .enabled(limit: .ratio(100)))
        configuration.connectionPool.idleTimeout = TimeAmount(settings.idleTimeout)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit =
            settings.connectionsPerHost ?? HTTPClientTransport.Configuration.defaultConnectionsPerHost
        // The executor retries by policy; a refused connection must fail at once, not after the connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.httpVersion = settings.offersHTTP2 ? .automatic : .http1Only
        // No distributed tracing: a span per request costs about 5 % of a small request's CPU.
        configuration.tracing.tracer = nil
        self.configuration = configuration
    }

    /// The client for requests through `proxy` (nil: direct), made on first use; nil after `shutdown()`.
    func client(through proxy: ProxyServer? = nil) -> HTTPClient? {
        state.withLockedValue { state in
            if state.closed { return nil }
            guard let proxy else {
                if let client = state.direct { return client }
                let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
                state.direct = client
                return client
            }
            if let client = state.proxied[proxy] { return client }
            var configuration = configuration
            let authorization = proxy.username.map {
                HTTPClient.Authorization.basic(username: $0, password: proxy.password ?? "")
            }
            configuration.proxy = .server(host: proxy.host, port: proxy.port, authorization: authorization)
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            state.proxied[proxy] = client
            return client
        }
    }

    /// How long `shutdown()` waits for a client to shut down.
    static let shutdownLimit = TimeAmount.seconds(2)

    /// Shuts the clients down, waiting at most `shutdownLimit` for each. AsyncHTTPClient 1.37.0's
    /// shutdown sometimes never returns after HTTP/2 connections to two names of one server
    /// (`127.0.0.1` and `localhost`; every request answered, yet in one run in 5 to 40 of
    /// `WireTests.redirectsAcrossHostsDropCredentialsOverTheNetwork` the test hung there): a run must
    /// not hang on it, so it is left to finish in the background.
    func shutdown() async {
        let clients = state.withLockedValue { state in
            state.closed = true
            return [state.direct].compactMap { $0 } + state.proxied.values
        }
        for client in clients {
            let loop = client.eventLoopGroup.any()
            let done = loop.makePromise(of: Void.self)
            client.shutdown().whenComplete { _ in done.succeed() }
            let limit = loop.scheduleTask(in: Self.shutdownLimit) { done.succeed() }
            try? await done.futureResult.get()
            limit.cancel()
        }
    }
}

extension HTTPClientTransport {
    /// One request over AsyncHTTPClient. As reqplan's client does, a request whose connection
    /// closed before any of the response came goes again when its method is idempotent; a TLS
    /// failure is diagnosed (`TLSDiagnosis`) to name its cause.
    func sendWithAsyncHTTPClient(
        _ request: PreparedRequest, deadline: NIODeadline?, timeout: Duration?,
        proxy: ProxyServer? = nil
    ) async throws(TransportError) -> TransportResponse {
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headers.count + 1)
        try RequestFraming.add(request, to: &headers)
        var attemptsLeft = request.method.isIdempotent ? 3 : 1
        while true {
            attemptsLeft -= 1
            let collector = ResponseCollector(
                method: request.method, limit: responseLimit, keep: request.keepsResponseBody ?? .max)
            do {
                return try await exchange(
                    request, headers: headers, deadline: deadline, collector: collector,
                    proxy: proxy)
            } catch {
                if let proxy,
                    let failure = await proxyFailure(error, proxy: proxy, request: request, deadline: deadline)
                {
                    throw failure
                }
                var failure = TransportError.classify(
                    error, failureContext(request, timeout: timeout),
                    responseStarted: collector.responseStarted)
                if failure.kind == .cancelled, !Task.isCancelled {
                    // Not this task's cancellation: AsyncHTTPClient cancelled the request because its
                    // connection went away.
                    failure = collector.responseStarted ? .closedEarly(request.host) : .reset(request.host)
                }
                if failure.kind == .reset, !collector.responseStarted, attemptsLeft > 0, !Task.isCancelled { continue }
                guard TLSDiagnosis.isTLSFailure(error) else {
                    guard proxy == nil, !collector.responseStarted else { throw failure }
                    throw await diagnosingReset(failure, url: request.url, host: request.host, deadline: deadline)
                }
                let target = request.url
                // The diagnosis shakes hands with the server directly, which a proxy may not allow.
                if proxy != nil { throw .tls(request.host, .unknown) }
                throw await .tls(
                    request.host, diagnose(error, host: target.host, port: target.port, deadline: deadline),
                    names: configuration.settingNames)
            }
        }
    }

    /// One exchange over AsyncHTTPClient.
    private func exchange(
        _ request: PreparedRequest, headers: HTTPHeaders, deadline: NIODeadline?,
        collector: ResponseCollector, proxy: ProxyServer?
    ) async throws -> TransportResponse {
        let outgoing = try HTTPClient.Request(
            url: request.url.text, method: HTTPMethod(rawValue: request.method.rawValue), headers: headers,
            body: request.body.map { .bytes($0) })
        // The delegate API collects the body on the event loop and answers once, and its deadline
        // covers the whole response, body included: one hand-off per request instead of one per
        // body part, and no timer task racing the request.
        guard let client = library.client(through: proxy) else { throw CancellationError() }
        let task = client.execute(request: outgoing, delegate: collector, deadline: deadline)
        return try await withTaskCancellationHandler {
            try await task.futureResult.get()
        } onCancel: {
            task.cancel()
        }
    }
}
