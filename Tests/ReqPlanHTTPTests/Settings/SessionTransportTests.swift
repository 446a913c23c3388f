import Foundation
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanTransport

/// Cookies, proxies and TLS settings of the transport against servers not written here: nginx,
/// tinyproxy and httpbin on loopback. Each behaviour runs with both clients, over `http://` and
/// `https://` (HTTP/2 with nginx) where the scheme matters. The tests are by concern, beside the sources:
/// `SessionTransportTests+Cookies.swift`, `+Proxies.swift` and `+TLS.swift`.
@Suite(.timeSensitive) struct SessionTransportTests {
    /// Each client over each scheme.
    static let wires = [Wire.reqplanHTTP, .reqplanHTTPS, .libraryHTTP, .libraryHTTPS]

    /// Each client over `https://`.
    static let secureWires = [Wire.reqplanHTTPS, .libraryHTTPS]

    /// Each client.
    static let clients = HTTPClientTransport.Client.allCases

    /// A transport configuration for `wire`'s client that trusts the test CA (and nothing else).
    func configuration(_ nginx: Nginx, _ wire: Wire) throws -> HTTPClientTransport.Configuration {
        var configuration = HTTPClientTransport.Configuration()
        configuration.client = wire.client
        configuration.tls = try TLSSettings(
            caFile: nginx.certificates.ca.path, certificateFile: nil, keyFile: nil,
            environment: [:])
        return configuration
    }

    func base(_ nginx: Nginx, _ wire: Wire) -> String {
        wire.scheme == .http ? nginx.plainURL : nginx.tlsURL
    }

    func request(
        _ method: HTTPMethodName = .GET, _ url: String, headers: [HeaderField] = [],
        cookies: Bool = true
    ) throws -> PreparedRequest {
        try PreparedRequest(method: method, url: url, headers: headers, body: nil, usesCookies: cookies)
    }

    func proxied(_ proxy: Tinyproxy, _ nginx: Nginx, _ wire: Wire, noProxy: String? = nil)
        throws -> HTTPClientTransport.Configuration
    {
        var configuration = try configuration(nginx, wire)
        configuration.proxies = try ProxySettings(environment: [:], proxy: proxy.url, noProxy: noProxy)
        return configuration
    }
}
