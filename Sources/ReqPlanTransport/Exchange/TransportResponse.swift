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
    /// The exchanges before this one when redirects were followed, in order (empty otherwise).
    public var redirects: [RedirectHop] = []
    /// The request this response answers as it went on the wire: the last hop's, the jar's cookies
    /// included; nil when the transport does not say.
    public var sentRequest: PreparedRequest?
    /// When this exchange started and how long it took (set by the transport around each hop).
    public var timing: ExchangeTiming?
    /// The protocol the response came over (`HTTP/1.1`, `HTTP/2.0`), when the client says.
    public var httpVersion: String?

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
