import ReqPlanSyntax

/// A request as outputs show it: `***` where a secret went in (`PreparedRequest.shown`).
public struct ShownRequest: Sendable, Hashable {
    /// What every output shows in place of a secret.
    public static let secretMarker = "***"

    /// The URL, with its query.
    public var url: String
    /// The headers, in order.
    public var headers: [HeaderField]
    /// The body.
    public var body: [UInt8]?
    /// Whether a secret went into the body: its `Content-Length` is then shown as `***`, as the length would
    /// tell the secret's (whatever the secret, even one that reads `***`, outputs are the same).
    public var bodyCarriesSecret: Bool

    /// Creates a shown request.
    public init(url: String, headers: [HeaderField], body: [UInt8]?, bodyCarriesSecret: Bool = false) {
        self.url = url
        self.headers = headers
        self.body = body
        self.bodyCarriesSecret = bodyCarriesSecret
    }
}

/// A request ready to send: everything evaluated, the body encoded.
public struct PreparedRequest: Sendable, Hashable {
    public var method: HTTPMethodName
    /// The absolute URL with its query, parsed once (`RequestURL`) and read by every hop.
    public var url: RequestURL
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
    public var shownURL: String { shown?.url ?? url.text }
    /// The headers as every output shows them (before headers secret by name are hidden).
    public var shownHeaders: [HeaderField] { shown?.headers ?? headers }
    /// The body as every output shows it.
    public var shownBody: [UInt8]? { shown.map(\.body) ?? body }
    /// The head's headers as reqplan's client sends them (`Host`, the framing's `Content-Length` and
    /// `Accept-Encoding` included) and as every output shows them (before headers secret by name are hidden).
    public var shownHeadersAsSent: [HeaderField] { RequestFraming.shownHead(self) }

    public init(
        method: HTTPMethodName, url: RequestURL, headers: [HeaderField], body: [UInt8]?,
        followRedirects: Bool? = nil, usesCookies: Bool = true
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.followRedirects = followRedirects
        self.usesCookies = usesCookies
    }

    /// A request to the URL `text` (for programs that build requests themselves).
    /// - Throws: why `text` is not an absolute http(s) URL.
    public init(
        method: HTTPMethodName, url text: String, headers: [HeaderField], body: [UInt8]?,
        followRedirects: Bool? = nil, usesCookies: Bool = true
    ) throws(RequestURL.Problem) {
        self.init(
            method: method, url: try RequestURL(parsing: text), headers: headers, body: body,
            followRedirects: followRedirects, usesCookies: usesCookies)
    }

    /// The value of a header (case-insensitive), if set.
    public func header(_ name: String) -> String? {
        headers.last { $0.name.equalsIgnoringCase(name) }?.value
    }

    /// The URL's authority as written (`host[:port]`), for messages.
    public var host: String { url.authority }
}
