#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import ReqPlanTransport

/// Requests through a forward proxy: plain `http://` in absolute form on a connection to the
/// proxy, `https://` through a `CONNECT` tunnel. With reqplan's client the pool keeps the proxy's
/// connections under the proxy, and tunnels under the server and the proxy (the tunnel is made by
/// `NIOHTTP1ProxyConnectHandler`); with AsyncHTTPClient, its own proxy support, one client per proxy.
/// Either way, credentials in the proxy's URL go as `Proxy-Authorization`, and a proxy that cannot
/// be reached or refuses `CONNECT` is named in the failure.
extension HTTPClientTransport {
    /// The proxy `request` goes through, or nil to go directly. Nothing is parsed when the run
    /// has no proxy.
    func proxy(for request: PreparedRequest) -> ProxyServer? {
        guard configuration.proxies.isEnabled else { return nil }
        return configuration.proxies.server(for: request.url)
    }

    /// A request as it goes through `proxy`: over TLS, through a tunnel to the server; plain HTTP
    /// sent to the proxy, the request target in absolute form (`GET http://host:port/path HTTP/1.1`),
    /// `Proxy-Authorization` from the proxy's credentials unless the plan wrote one.
    static func throughProxy(_ outgoing: inout ReqPlanClient.Request, url: RequestURL, proxy: ProxyServer) {
        if url.isHTTPS {
            outgoing.endpoint.tunnel = proxy
            return
        }
        outgoing.endpoint = proxy.endpoint
        outgoing.viaProxy = true
        outgoing.head.uri = "http://" + url.authority + url.target
        if let authorization = proxy.authorization, !outgoing.head.headers.contains(name: "proxy-authorization") {
            outgoing.head.headers.add(name: "Proxy-Authorization", value: authorization)
        }
    }

    /// Why a request through `proxy` with reqplan's client failed, when the proxy is the cause: it
    /// could not be reached, or it did not open the tunnel. Nil for any other failure (the server's
    /// TLS or HTTP failed), which is worded as without a proxy.
    func proxyFailure(_ error: ReqPlanClient.ClientError, proxy: ProxyServer, url: RequestURL) -> TransportError? {
        let server = url.hostPort
        switch error {
        case .connect(let cause):
            return .proxyUnreachable(proxy, cause, connectTimeout: configuration.connectTimeout)
        case .proxyRefused(let status):
            return .proxyRefused(proxy, target: server, status: status)
        case .proxyHandshakeFailed(timedOut: true):
            return TransportError(.connect, "proxy \(proxy.hostPort) did not answer CONNECT to \(server) in time")
        case .proxyHandshakeFailed(timedOut: false):
            return TransportError(
                .connect,
                "proxy \(proxy.hostPort) closed the connection instead of answering "
                    + "CONNECT to \(server)")
        default:
            return nil
        }
    }

    /// Why an `https://` request through `proxy` with AsyncHTTPClient failed, when the proxy is the
    /// cause: it could not be reached, or it answered `CONNECT` with an error. Nil for any other
    /// failure (the tunnel was made and the server's TLS or HTTP failed), which is worded as without
    /// a proxy.
    func proxyFailure(_ error: any Error, proxy: ProxyServer, request: PreparedRequest, deadline: NIODeadline?)
        async -> TransportError?
    {
        let target = request.url.hostPort
        if let error = error as? HTTPClientError {
            switch error {
            case .proxyAuthenticationRequired:
                return .proxyRefused(proxy, target: target, status: 407)
            case .invalidProxyResponse:
                // AsyncHTTPClient reports every CONNECT answer but 407 this way, without its status;
                // the proxy is asked once more, to name it.
                let status = await connectStatus(through: proxy, to: target, deadline: deadline)
                return .proxyRefused(proxy, target: target, status: status)
            case .httpProxyHandshakeTimeout:
                return TransportError(.connect, "proxy \(proxy.hostPort) did not answer CONNECT to \(target) in time")
            case .connectTimeout:
                return .proxyUnreachable(
                    proxy, ChannelError.connectTimeout(TimeAmount(configuration.connectTimeout)),
                    connectTimeout: configuration.connectTimeout)
            default:
                return nil
            }
        }
        switch error {
        case is NIOConnectionError, ChannelError.connectTimeout:
            return .proxyUnreachable(proxy, error, connectTimeout: configuration.connectTimeout)
        case let error as IOError where [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, ETIMEDOUT].contains(error.errnoCode):
            return .proxyUnreachable(proxy, error, connectTimeout: configuration.connectTimeout)
        default:
            return nil
        }
    }

    /// The status the proxy answers `CONNECT target` with (a second ask, for the message), or nil
    /// when it cannot be had within five seconds (a loaded machine can take two).
    private func connectStatus(through proxy: ProxyServer, to target: String, deadline: NIODeadline?) async -> Int? {
        var head = HTTPRequestHead(version: .http1_1, method: .CONNECT, uri: target)
        head.headers.add(name: "Host", value: target)
        if let authorization = proxy.authorization {
            head.headers.add(name: "Proxy-Authorization", value: authorization)
        }
        let soon = NIODeadline.now() + .seconds(5)
        let request = ReqPlanClient.Request(endpoint: proxy.endpoint, head: head, body: nil, idempotent: false)
        guard let response = try? await own.execute(request, deadline: min(deadline ?? soon, soon)),
            !(200..<300).contains(response.head.status.code)
        else { return nil }
        return Int(response.head.status.code)
    }
}

extension ProxyServer {
    /// Where `ReqPlanClient` connects to reach it (its pool keeps the proxy's connections under it).
    var endpoint: ReqPlanClient.Endpoint {
        ReqPlanClient.Endpoint(host: host, port: port)
    }
}

extension HTTPResponseHead {
    /// Whether the response says its connection stays open (`Connection: keep-alive`, or the
    /// older `Proxy-Connection: keep-alive`), rather than leaving it to HTTP/1.1's default.
    var announcesKeepAlive: Bool {
        (headers[canonicalForm: "connection"] + headers[canonicalForm: "proxy-connection"])
            .contains { $0.lowercased() == "keep-alive" }
    }
}

extension TransportError {
    /// A proxy that answered `CONNECT target` with `status` (nil: not known) instead of opening a tunnel.
    static func proxyRefused(_ proxy: ProxyServer, target: String, status: Int?) -> TransportError {
        var message = "proxy \(proxy.hostPort) refused CONNECT to \(target)" + (status.map { " with \($0)" } ?? "")
        if status == 407 {
            message +=
                proxy.authorization == nil
                ? " (it wants credentials: http://user:password@host:port)" : " (its credentials were not accepted)"
        }
        return TransportError(.connect, message)
    }

    /// A proxy that could not be reached, named as one ("cannot connect to proxy 127.0.0.1:3128:
    /// connection refused"); `cause` is SwiftNIO's error, told apart by its type.
    static func proxyUnreachable(_ proxy: ProxyServer, _ cause: any Error, connectTimeout: Duration) -> TransportError {
        let reason: String
        switch cause {
        case let error as NIOConnectionError:
            // Every address tried failed: the first one's error says why; none tried: DNS did.
            if let first = error.connectionErrors.first {
                return proxyUnreachable(proxy, first.error, connectTimeout: connectTimeout)
            }
            reason = "its name \(proxy.host) cannot be resolved"
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED: reason = "connection refused"
            case ENETUNREACH, EHOSTUNREACH: reason = "it is unreachable"
            case ETIMEDOUT: reason = "timed out after \(format(connectTimeout))"
            default: reason = systemMessage(error.errnoCode)
            }
        case ChannelError.connectTimeout:
            reason = "timed out after \(format(connectTimeout))"
        default:
            reason = "the connection failed"
        }
        return TransportError(.connect, "cannot connect to proxy \(proxy.hostPort): \(reason)")
    }
}
