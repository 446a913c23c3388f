import ReqPlanSyntax

/// A request as outputs show it: `***` where a secret went in (`PreparedRequest.shown`).
public struct ShownRequest: Sendable, Hashable {
    /// The URL, with its query.
    public var url: String
    /// The headers, in order.
    public var headers: [HeaderField]
    /// The body.
    public var body: [UInt8]?

    /// Creates a shown request.
    public init(url: String, headers: [HeaderField], body: [UInt8]?) {
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// A request ready to send: everything evaluated, the body encoded.
public struct PreparedRequest: Sendable, Hashable {
    public var method: HTTPMethodName
    /// The absolute URL with its query.
    public var url: String
    /// Headers in order; names as written.
    public var headers: [HeaderField]
    /// The encoded body, if any.
    public var body: [UInt8]?
    /// Whether 3xx redirects are followed (`follow_redirects`); nil: the transport's default.
    public var followRedirects: Bool?
    /// Whether the run's cookie jar applies: its cookies are sent and the response's stored (`cookies`).
    public var usesCookies: Bool
    /// How much of the response body to keep: nil keeps it whole; a number keeps that many first bytes
    /// (what `--verbose` and the reports show) and counts the rest as it arrives without holding it, for
    /// a response nothing reads. `--max-response-size` applies to the whole body either way.
    public var keepsResponseBody: Int? = nil
    /// How the request is shown in every output when that differs from what is sent: `***` wherever a
    /// secret went into its URL, headers or body (`SecretFlow`). nil: shown as sent (headers whose names
    /// are secret are hidden by name, whatever their value).
    public var shown: ShownRequest?

    /// The URL as every output shows it.
    public var shownURL: String { shown?.url ?? url }
    /// The headers as every output shows them (before headers secret by name are hidden).
    public var shownHeaders: [HeaderField] { shown?.headers ?? headers }
    /// The body as every output shows it.
    public var shownBody: [UInt8]? { shown.map(\.body) ?? body }

    public init(
        method: HTTPMethodName, url: String, headers: [HeaderField], body: [UInt8]?,
        followRedirects: Bool? = nil, usesCookies: Bool = true
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.followRedirects = followRedirects
        self.usesCookies = usesCookies
    }

    /// The value of a header (case-insensitive), if set.
    public func header(_ name: String) -> String? {
        headers.last { $0.name.equalsIgnoringCase(name) }?.value
    }

    /// The host part of the URL, for messages.
    public var host: String {
        guard let colon = url.utf8.firstIndex(of: UInt8(ascii: ":")), url.utf8[colon...].starts(with: "://".utf8) else {
            return url
        }
        let rest = url.utf8[colon...].dropFirst(3)
        return String(
            Substring(rest.prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }))
    }
}

extension String {
    /// Whether two header names are the same, ignoring ASCII case (no allocation).
    func equalsIgnoringCase(_ other: String) -> Bool {
        utf8.elementsEqual(other.utf8) { a, b in
            (a >= 65 && a <= 90 ? a | 0x20 : a) == (b >= 65 && b <= 90 ? b | 0x20 : b)
        }
    }
}

/// One header.
public struct HeaderField: Sendable, Hashable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// What came back.
public struct TransportResponse: Sendable {
    public var status: Int
    /// Headers as they came, in order, repeated ones repeated.
    public var headers: [HeaderField]
    /// The body, or its first bytes when the request kept only those (`PreparedRequest.keepsResponseBody`).
    public var body: [UInt8]
    /// The body's whole size in bytes (larger than `body.count` when only its start was kept).
    public var size: Int
    /// The cookies this response and the redirects followed to reach it set (`Set-Cookie`), as
    /// name → value in the order they came; `steps.X.cookies`.
    public var setCookies: [HeaderField]

    /// - Parameter size: the body's whole size, when only its start is given (default: `body.count`).
    public init(status: Int, headers: [HeaderField], body: [UInt8], size: Int? = nil, setCookies: [HeaderField] = []) {
        self.status = status
        self.headers = headers
        self.body = body
        self.size = size ?? body.count
        self.setCookies = setCookies
    }

    /// The value of a header (case-insensitive), if present.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringCase(name) }?.value
    }
}

/// Why no response came.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Kinds of transport failure; `retry.on` names some of them.
    public enum Kind: String, Sendable, Hashable {
        /// The connection could not be made (refused, DNS, unreachable).
        case connect
        /// The connection broke (reset, closed early).
        case reset
        /// TLS failed (certificate, handshake).
        case tls
        /// The attempt's deadline passed.
        case timeout
        /// The response body was larger than the limit.
        case bodyTooLarge = "body_too_large"
        /// The task was cancelled.
        case cancelled
        /// Anything else (malformed response, bad URL).
        case other
    }

    public var kind: Kind
    /// A sentence naming the host and the cause.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// Sends prepared requests. The executor only knows this protocol, so the
/// scheduler can be tested with an in-memory transport and run for real over
/// AsyncHTTPClient.
public protocol Transport: Sendable {
    /// Sends one request and returns the whole response.
    /// - Parameters:
    ///   - request: the request.
    ///   - timeout: the attempt's deadline, if any.
    /// - Throws: `TransportError`; `.cancelled` when the task is cancelled.
    func send(_ request: PreparedRequest, timeout: Duration?) async throws(TransportError) -> TransportResponse
}
