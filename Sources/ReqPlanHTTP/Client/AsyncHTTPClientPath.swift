import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL
import ReqPlanTransport

/// AsyncHTTPClient, the library path (`--http-client asynchttpclient`): made on the first request
/// that uses it, so a run on reqplan's own client never starts (or stops) it.
///
/// Each client is pinned to one event loop, so that a request's task and its connection share a loop.
/// On a group of several loops, AsyncHTTPClient 1.37.0 makes a request's promises on one loop and may give
/// it a connection on another; a request whose response ends before its body is sent (a redirect or a
/// refusal answered at once) then tells its pool the connection is idle one hop later, and if the
/// connection closed in between, the pool traps ("A connection that we don't know was released?") and
/// the process ends (`EarlyAnswerTests`, ReqPlanHTTPTests).
///
/// HTTP/1.1 requests are dealt to one client per loop (`Shard`), to the least loaded for its share of the
/// per-host limit: one pinned client took 11–19 % more time for many small requests on two cores.
/// Requests that may go over HTTP/2 (`https://` when it is offered) share one client, so that a host gets
/// one connection, as with reqplan's own client.
final class AsyncHTTPClientPath: Sendable {
    /// Which client: one per loop for HTTP/1.1 (`shard`, an index of `shards`), or the one for requests that
    /// may go over HTTP/2 (nil); direct or through a proxy.
    struct Lease: Hashable {
        let shard: Int?
        let proxy: ProxyServer?
    }

    private struct Shard {
        let loop: any EventLoop
        let configuration: HTTPClient.Configuration
        /// This shard's share of the per-host limit.
        let limit: Int
    }

    private struct State {
        /// The clients made so far.
        var clients: [Lease: HTTPClient] = [:]
        /// Requests under way, per shard.
        var inFlight: [Int]
        /// After shutdown, when no new client is made.
        var closed = false
    }

    /// The HTTP/1.1 clients' loops and configurations: the per-host limit is shared among them, so together
    /// they keep no more connections to a host than it says (a limit below the number of loops takes fewer
    /// loops).
    private let shards: [Shard]
    /// The configuration of the client for requests that may go over HTTP/2: the whole limit, the first loop.
    private let whole: HTTPClient.Configuration
    /// Whether HTTP/2 is offered over TLS (`HTTPClientTransport.Configuration.offersHTTP2`).
    private let offersHTTP2: Bool
    private let state: NIOLockedValueBox<State>

    init(_ settings: HTTPClientTransport.Configuration) {
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: settings.tlsConfiguration,
            redirectConfiguration: .disallow,  // followed in `HTTPClientTransport.send`, for both clients alike
            timeout: .init(connect: TimeAmount(settings.connectTimeout)),
            decompression: .enabled(limit: .ratio(100)))
        configuration.connectionPool.idleTimeout = TimeAmount(settings.idleTimeout)
        // The executor retries by policy; a refused connection must fail at once, not after the connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.httpVersion = settings.offersHTTP2 ? .automatic : .http1Only
        // No distributed tracing: a span per request costs about 5 % of a small request's CPU.
        configuration.tracing.tracer = nil
        let limit = max(1, settings.connectionsPerHost ?? HTTPClientTransport.Configuration.defaultConnectionsPerHost)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = limit
        whole = configuration
        offersHTTP2 = settings.offersHTTP2
        let loops = Array(HTTPClient.defaultEventLoopGroup.makeIterator().prefix(limit))
        shards = loops.indices.map { index in
            var shard = configuration
            let share = limit / loops.count + (index < limit % loops.count ? 1 : 0)
            shard.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = share
            return Shard(loop: loops[index], configuration: shard, limit: share)
        }
        state = NIOLockedValueBox(State(inFlight: Array(repeating: 0, count: shards.count)))
    }

    /// The client for a request to `url` through `proxy` (nil: direct), made on first use, and the lease to
    /// give back with `finished(_:)` when the request ends; nil after `shutdown()`.
    func client(for url: RequestURL, through proxy: ProxyServer? = nil) -> (HTTPClient, Lease)? {
        state.withLockedValue { state in
            if state.closed { return nil }
            var lease = Lease(shard: nil, proxy: proxy)
            if !(url.isHTTPS && offersHTTP2) {
                // The least loaded for its share: in-flight / limit, compared without division. `shards` is
                // never empty (a limit of at least 1, a group of at least one loop).
                let index =
                    shards.indices.min {
                        (state.inFlight[$0] + 1) * shards[$1].limit < (state.inFlight[$1] + 1) * shards[$0].limit
                    } ?? 0
                lease = Lease(shard: index, proxy: proxy)
                state.inFlight[index] += 1
            }
            if let client = state.clients[lease] { return (client, lease) }
            var configuration = lease.shard.map { shards[$0].configuration } ?? whole
            if let proxy {
                let authorization = proxy.username.map {
                    HTTPClient.Authorization.basic(username: $0, password: proxy.password ?? "")
                }
                configuration.proxy = .server(host: proxy.host, port: proxy.port, authorization: authorization)
            }
            let loop = shards[lease.shard ?? 0].loop
            let client = HTTPClient(eventLoopGroup: loop, configuration: configuration)
            state.clients[lease] = client
            return (client, lease)
        }
    }

    /// A request on `lease`'s client has ended.
    func finished(_ lease: Lease) {
        guard let shard = lease.shard else { return }
        state.withLockedValue { $0.inFlight[shard] -= 1 }
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
            return Array(state.clients.values)
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
        // The head reqplan's client writes, `Host` and `Accept-Encoding` included: AsyncHTTPClient then adds
        // neither (it adds `host` only to a head without one, and leaves out a default port the URL writes; its
        // decompressor adds `Accept-Encoding` only to a head without one), so both clients send what the
        // outputs show.
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headers.count + 3)
        try RequestFraming.head(request) { headers.add(name: $0, value: $1) }
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
        guard let (client, lease) = library.client(for: request.url, through: proxy) else {
            throw CancellationError()
        }
        defer { library.finished(lease) }
        let task = client.execute(request: outgoing, delegate: collector, deadline: deadline)
        return try await withTaskCancellationHandler {
            try await task.futureResult.get()
        } onCancel: {
            task.cancel()
        }
    }
}
