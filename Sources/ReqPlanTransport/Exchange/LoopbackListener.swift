/// A request that came to a `LoopbackListener`: its method and its target (the path and query, as sent).
public struct LoopbackRequest: Sendable, Hashable {
    public var method: String
    public var target: String

    public init(method: String, target: String) {
        self.method = method
        self.target = target
    }
}

/// What a `LoopbackListener` answers a request with (a small plain-text page), and whether that request is the
/// one waited for.
public struct LoopbackAnswer: Sendable, Hashable {
    public var status: Int
    /// Headers beside `Content-Type`, `Content-Length`, `Cache-Control` and `Connection` (a `Location`).
    public var headers: [HeaderField]
    /// The page, as plain text.
    public var text: String
    /// Whether this request ends the wait.
    public var ends: Bool

    public init(status: Int, headers: [HeaderField] = [], text: String, ends: Bool = false) {
        self.status = status
        self.headers = headers
        self.text = text
        self.ends = ends
    }
}

/// Listens on `127.0.0.1` for what a browser sends back to the run: the redirect of an OAuth 2.0 authorization
/// request (RFC 8252 §7.3). The runtime is given one, as it is given its transport: it links no networking.
public protocol LoopbackListener: Sendable {
    /// Listens on `127.0.0.1` at `port` (nil: a port the system picks), tells `listening` the port once it
    /// listens, then answers each request with what `answer` says until an answer ends the wait: that request
    /// is returned, after its page was written, and the listener and every connection to it are closed.
    ///
    /// A request it cannot read (malformed, a head larger than it takes) is answered 400 and ends nothing; a
    /// connection that sends nothing is closed after a while. Nothing a client sends ends the wait but what
    /// `answer` accepts.
    /// - Throws: `TransportError` (`.connect`) when it cannot listen (the port is taken), `CancellationError`
    ///   when the task is cancelled (the listener is closed at once), or what `listening` throws.
    func receive(
        port: Int?, listening: @escaping @Sendable (Int) async throws -> Void,
        answer: @escaping @Sendable (LoopbackRequest) -> LoopbackAnswer
    ) async throws -> LoopbackRequest
}
