/// A transport that can send one request again and again on a connection of its own, each response handed
/// over on the connection's thread with no task switch per request: `reqplan load`'s iterations of a plan of
/// one request (`LoadRun`). Whatever the plain path does not cover goes back to the whole transport without
/// the request being sent twice (`continuing(after:sent:)`).
package protocol RepeatingTransport: Transport {
    /// A repeater of `request`, or nil when it cannot go on the plain path (TLS, a proxy, another client, a
    /// method that may not be sent again after a closed connection).
    func repeating(_ request: PreparedRequest, timeout: Duration?) -> (any RequestRepeater)?

    /// This transport, whose first hop of the next request is `first` (a response or a failure already
    /// received by a repeater, for a request sent at `sent`): redirects, cookies and failures then go on as for
    /// any request, within the deadline that began at `sent`, and the request is not sent again.
    func continuing(after first: Result<TransportResponse, TransportError>, sent: ContinuousClock.Instant)
        -> any Transport
}

/// Sends one request again and again on a connection of its own (`RepeatingTransport.repeating`).
package protocol RequestRepeater: Sendable {
    /// Sends the request each time `start` says so, and gives each response that ends an exchange to
    /// `finished` (on the connection's thread; neither is called again before the other returns), until one of
    /// them says to stop, or a response or failure needs the whole transport.
    /// - Returns: why it stopped.
    func run(start: @escaping @Sendable () -> Bool, finished: @escaping @Sendable (TransportResponse) -> RepeatStep)
        async -> RepeatEnd
}

/// What `RequestRepeater.run` does after a response.
package enum RepeatStep: Sendable {
    /// Sends the request again (after asking `start`).
    case again
    /// Ends with `.handOff(response)`: the response needs more than the plain path gives.
    case handOff
}

/// Why `RequestRepeater.run` stopped.
package enum RepeatEnd: Sendable {
    /// `start` said no.
    case stopped
    /// The server closed the connection after a response `finished` took: run again for a new one.
    case connectionEnded
    /// The exchange `start` began ended with a response the whole transport must go on with: a redirect to
    /// follow, cookies to keep, or what `finished` handed off (`continuing(after:sent:)`).
    case handOff(TransportResponse)
    /// The exchange `start` began failed, worded as the transport words it (`continuing(after:sent:)`).
    case failed(TransportError)
    /// The exchange `start` began was not processed (the connection could not be had, or closed before the
    /// request was read): the whole transport sends it, as a client sends it again on another connection.
    case unsent
    /// The task was cancelled while the exchange `start` began was on its way.
    case cancelled
}
