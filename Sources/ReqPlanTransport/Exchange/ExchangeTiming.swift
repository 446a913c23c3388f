/// When one exchange on the wire (one hop of a request) started and how long it took, with its phases
/// when the client measured them: what a HAR file's `timings` hold.
public struct ExchangeTiming: Sendable, Hashable {
    /// The phases of an exchange as reqplan's own client measures them (HAR 1.2's `timings`).
    public struct Phases: Sendable, Hashable {
        /// Waiting for a connection: a free one of the pool, or a slot to open one (the time spent
        /// opening it is `connect`).
        public var blocked: Duration
        /// Opening the connection: TCP, the proxy's tunnel and TLS; nil when a pooled one was reused.
        public var connect: Duration?
        /// The TLS handshake, part of `connect`; nil for plain HTTP, a reused connection, or a tunnel
        /// through a proxy (whose `CONNECT` and handshake are not told apart).
        public var tls: Duration?
        /// Writing the request, until its last byte was handed to the socket.
        public var send: Duration
        /// From the request sent to the first byte of the response.
        public var wait: Duration
        /// From the first byte of the response to its last.
        public var receive: Duration

        /// Creates the phases of an exchange.
        public init(
            blocked: Duration, connect: Duration?, tls: Duration?, send: Duration, wait: Duration,
            receive: Duration
        ) {
            self.blocked = blocked
            self.connect = connect
            self.tls = tls
            self.send = send
            self.wait = wait
            self.receive = receive
        }
    }

    /// When the exchange started (the transport took the request).
    public var start: ContinuousClock.Instant
    /// How long the exchange took, the response body included.
    public var total: Duration
    /// Its phases, when the client measured them (reqplan's own client does, the library paths do not).
    public var phases: Phases?

    /// Creates a timing.
    public init(start: ContinuousClock.Instant, total: Duration, phases: Phases? = nil) {
        self.start = start
        self.total = total
        self.phases = phases
    }
}
