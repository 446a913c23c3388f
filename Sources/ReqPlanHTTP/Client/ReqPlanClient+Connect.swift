import NIOConcurrencyHelpers
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import ReqPlanTransport

/// How `ReqPlanClient` opens a connection: TCP (to the server, or to the proxy of a tunnel), then
/// `CONNECT` through the proxy (swift-nio-extras' `NIOHTTP1ProxyConnectHandler`), then TLS
/// (`NIOSSLClientHandler` with the run's TLS configuration, offering `h2` and `http/1.1` through
/// ALPN), then HTTP/1.1 or HTTP/2 as the server chose. All of it within the connect timeout (or the
/// request's deadline, when that comes first).
///
/// As AsyncHTTPClient does it: the server name (SNI) is sent only for a DNS name, and the
/// certificate is checked against the name, or against the IP address connected to when the URL
/// names an address (NIOSSL's own check).
extension ReqPlanClient {
    /// How long opening a connection took: all of it, and its TLS handshake (nil without TLS, or
    /// through a proxy's tunnel, where the two are not told apart).
    struct Opening: Sendable {
        var connect: TimeAmount
        var tls: TimeAmount?
    }

    func connect(_ endpoint: Endpoint, deadline: NIODeadline?) async throws(ClientError) -> (Connection, Opening) {
        let start = NIODeadline.now()
        // When TCP was up (set on the event loop, read after the connection is ready).
        let tcpReady = NIOLockedValueBox<NIODeadline?>(nil)
        let connectTimeout = TimeAmount(settings.connectTimeout)
        let deadlineFirst = deadline.map { $0 - .now() < connectTimeout } ?? false
        let timeout = deadline.map { deadlineFirst ? max($0 - .now(), .zero) : connectTimeout } ?? connectTimeout
        if timeout <= .zero { throw .timeout }
        let setupDeadline = NIODeadline.now() + timeout
        let tlsContext: NIOSSLContext?
        do {
            tlsContext = endpoint.tls ? try sharedTLSContext() : nil
        } catch {
            throw .tls(error)
        }
        let maxBodySize = settings.maxBodySize
        let idleTimeout = TimeAmount(settings.idleTimeout)
        let plain = tlsContext == nil && endpoint.tunnel == nil
        // The loop asked from, when it is one of the group's: a task that runs there (`EventLoopTaskExecutor`)
        // then sends and hears on its own thread.
        let loop = group.any()
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(timeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if plain {
                        try Self.addHTTP1(to: channel, maxBodySize: maxBodySize, idleTimeout: idleTimeout, plain: true)
                    }
                }
            }
        let host = endpoint.tunnel?.host ?? endpoint.host
        let port = endpoint.tunnel?.port ?? endpoint.port
        // An IP address needs no resolver and no happy-eyeballs race (most plans name one, or localhost).
        let connected =
            if let address = try? SocketAddress(ipAddress: host, port: port) {
                bootstrap.connect(to: address)
            } else {
                bootstrap.connect(host: host, port: port)
            }
        let ready = loop.makePromise(of: Connection.self)
        connected.whenComplete { result in
            switch result {
            case .failure(let error):
                if deadlineFirst, case ChannelError.connectTimeout = error {
                    ready.fail(ClientError.timeout)
                } else {
                    ready.fail(ClientError.connect(error))
                }
            case .success(let channel):
                tcpReady.withLockedValue { $0 = NIODeadline.now() }
                if plain { return ready.completeWith(Result { .http1(try HTTP1Connection(channel)) }) }
                let setup = Setup(
                    channel: channel, endpoint: endpoint, deadline: setupDeadline,
                    deadlineFirst: deadlineFirst, maxBodySize: maxBodySize,
                    idleTimeout: idleTimeout, ready: ready)
                if let proxy = endpoint.tunnel {
                    setup.openTunnel(through: proxy, tlsContext: tlsContext)
                } else if let tlsContext {
                    setup.startTLS(tlsContext)
                }
            }
        }
        // Cancellation must not wait for a connect to a silent host to time out: the wait ends
        // at once, and a connection that still comes up later is closed.
        ready.futureResult.whenFailure { _ in connected.whenSuccess { $0.close(promise: nil) } }
        let connection: Connection
        do {
            connection = try await withTaskCancellationHandler {
                try await ready.futureResult.get()
            } onCancel: {
                ready.fail(ClientError.cancelled)
            }
        } catch {
            throw ClientError(error)
        }
        let end = NIODeadline.now()
        let tls = endpoint.tls && endpoint.tunnel == nil ? tcpReady.withLockedValue { $0 }.map { end - $0 } : nil
        opened.wrappingAdd(1, ordering: .relaxed)
        return (connection, Opening(connect: end - start, tls: tls))
    }

    /// The handlers of an HTTP/1.1 connection, after TLS if any (`plain` when there is none).
    static func addHTTP1(to channel: any Channel, maxBodySize: Int, idleTimeout: TimeAmount, plain: Bool) throws {
        let pipeline = channel.pipeline.syncOperations
        // NIO's client handlers (`addHTTPClientHandlers`), with the common response read by reqplan's decoder and
        // every other one by NIO's (`CommonResponseDecoder`, run by `CommonResponseHandler`). Not NIO's `NIOHTTPRequestHeadersValidator`: what it
        // checks of each head (header names are tokens, values hold no CR, LF or NUL, the target holds only what
        // RFC 9112 allows raw) the transport has checked, more strictly, before any head is made
        // (`RequestFraming.check`, `RequestURL`; WireTests' `requestsThatCannotBeSentAreRefusedBeforeSending`),
        // and a second look at the same bytes was a hop and a walk of every header per request (BENCHMARKS.md,
        // "Load").
        let inFlight = RequestsInFlight()
        let encoder = HTTPRequestEncoder()
        try pipeline.addHandler(encoder)
        try pipeline.addHandler(CommonResponseHandler(CommonResponseDecoder(inFlight: inFlight)))
        try pipeline.addHandler(
            ExchangeHandler(
                maxBodySize: maxBodySize, idleTimeout: idleTimeout, plain: plain, inFlight: inFlight, encoder: encoder))
    }

    /// The steps after TCP, on the connection's event loop.
    private struct Setup: Sendable {
        let channel: any Channel
        let endpoint: Endpoint
        let deadline: NIODeadline
        let deadlineFirst: Bool
        let maxBodySize: Int
        let idleTimeout: TimeAmount
        let ready: EventLoopPromise<Connection>

        /// Asks the proxy to open a tunnel to the endpoint, then starts TLS through it.
        func openTunnel(through proxy: ProxyServer, tlsContext: NIOSSLContext?) {
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: RequestURL.hostPort(endpoint.host, endpoint.port))
            if let authorization = proxy.authorization {
                headers.add(name: "Proxy-Authorization", value: authorization)
            }
            let opened = channel.eventLoop.makePromise(of: Void.self)
            let encoder = HTTPRequestEncoder()
            let decoder = ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes))
            let status = ConnectStatus()
            let connect = NIOHTTP1ProxyConnectHandler(
                targetHost: endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host,
                targetPort: endpoint.port, headers: headers, deadline: deadline, promise: opened)
            do {
                let pipeline = channel.pipeline.syncOperations
                try pipeline.addHandler(encoder)
                try pipeline.addHandler(decoder)
                try pipeline.addHandler(status)
                try pipeline.addHandler(connect)
            } catch {
                return ready.fail(ClientError.proxyHandshakeFailed(timedOut: false))
            }
            opened.futureResult.assumeIsolated().whenComplete { [self] result in
                switch result {
                case .success:
                    let pipeline = channel.pipeline.syncOperations
                    pipeline.removeHandler(status, promise: nil)
                    pipeline.removeHandler(encoder, promise: nil)
                    pipeline.removeHandler(decoder).assumeIsolated().whenComplete { _ in
                        guard let tlsContext else {
                            return ready.fail(ClientError.proxyHandshakeFailed(timedOut: false))
                        }
                        startTLS(tlsContext)
                    }
                case .failure(let error):
                    ready.fail(failure(ofConnect: error, status: status.code))
                }
            }
        }

        /// What a failed `CONNECT` means.
        private func failure(ofConnect error: any Error, status: Int?) -> ClientError {
            guard let error = error as? NIOHTTP1ProxyConnectHandler.Error else {
                return .proxyHandshakeFailed(timedOut: false)
            }
            // The error's kind is public only through its equality (its details are private).
            if error == .proxyAuthenticationRequired() { return .proxyRefused(status: 407) }
            if let status, error == .invalidProxyResponseHead(HTTPResponseHead(version: .http1_1, status: .ok)) {
                return .proxyRefused(status: status)
            }
            if error == .httpProxyHandshakeTimeout() {
                return deadlineFirst ? .timeout : .proxyHandshakeFailed(timedOut: true)
            }
            return .proxyHandshakeFailed(timedOut: false)
        }

        /// Shakes hands over TLS, then sets up HTTP/2 or HTTP/1.1 as ALPN says.
        func startTLS(_ context: NIOSSLContext) {
            let serverName = (try? SocketAddress(ipAddress: endpoint.host, port: 0)) == nil ? endpoint.host : nil
            let handshake = TLSHandshakeHandler { [self] result in
                switch result {
                case .success("h2"?):
                    let http2 = channel.eventLoop.makePromise(of: HTTP2Connection.self)
                    http2.futureResult.map { Connection.http2($0) }.cascade(to: ready)
                    do {
                        try HTTP2Connection.configure(
                            channel, maxBodySize: maxBodySize, idleTimeout: idleTimeout,
                            ready: http2)
                    } catch {
                        http2.fail(ClientError.invalid(error))
                    }
                case .success:
                    do {
                        try ReqPlanClient.addHTTP1(
                            to: channel, maxBodySize: maxBodySize, idleTimeout: idleTimeout, plain: false)
                        ready.succeed(.http1(try HTTP1Connection(channel)))
                    } catch {
                        ready.fail(ClientError.invalid(error))
                    }
                case .failure(let error):
                    ready.fail(ClientError.tls(error))
                }
            }
            let timer = channel.eventLoop.scheduleTask(deadline: deadline) { [ready, deadlineFirst] in
                ready.fail(deadlineFirst ? ClientError.timeout : ClientError.tlsHandshakeTimeout)
            }
            ready.futureResult.whenComplete { _ in timer.cancel() }
            do {
                let pipeline = channel.pipeline.syncOperations
                try pipeline.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                try pipeline.addHandler(handshake)
            } catch {
                ready.fail(ClientError.tls(error))
            }
        }
    }

    /// Remembers the status of the proxy's answer to `CONNECT` (the proxy handler's error does not
    /// say it).
    private final class ConnectStatus: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPClientResponsePart
        private(set) var code: Int?

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head(let head) = unwrapInboundIn(data) { code = Int(head.status.code) }
            context.fireChannelRead(data)
        }
    }

    /// Waits for the TLS handshake: its outcome (the ALPN protocol, or the error) goes to `done`,
    /// called at once on the event loop, so the next handlers are in place before the server's first
    /// bytes; then it leaves the pipeline.
    private final class TLSHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny
        private var done: ((Result<String?, any Error>) -> Void)?

        init(done: @escaping (Result<String?, any Error>) -> Void) {
            self.done = done
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            guard case .handshakeCompleted(let negotiated) = event as? TLSUserEvent, let done else {
                return context.fireUserInboundEventTriggered(event)
            }
            self.done = nil
            done(.success(negotiated))
            context.fireUserInboundEventTriggered(event)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            finish(.failure(error))
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            finish(.failure(ChannelError.eof))
            context.fireChannelInactive()
        }

        private func finish(_ result: Result<String?, any Error>) {
            let done = self.done
            self.done = nil
            done?(result)
        }
    }
}
