/// One exchange of a request that a redirect followed: the request as it went on the wire (the jar's
/// cookies included) and the 3xx response that sent it on. `TransportResponse.redirects` holds them in
/// order, so the outputs that show traffic (a HAR file) show every hop, not only the last.
public struct RedirectHop: Sendable {
    /// The request as sent.
    public var request: PreparedRequest
    /// The redirect response (its own `redirects` empty), with its timing.
    public var response: TransportResponse

    /// Creates a hop.
    public init(request: PreparedRequest, response: TransportResponse) {
        self.request = request
        self.response = response
    }
}
