/// A transport that can send one request again and again on a connection of its own, each response handed
/// over on the connection's thread with no task switch per request: `reqplan load`'s iterations of a plan of
/// one request (`LoadRun`). Whatever the plain path does not cover goes back to the whole transport without
/// the request being sent twice (`continuing(after:sent:)`).
package protocol RepeatingTransport: Transport {
    /// A repeater of `request`, or nil when it cannot go on the plain path (a proxy, another client, cookies of
    /// the jar to send).
    func repeating(_ request: PreparedRequest, timeout: Duration?) -> (any RequestRepeater)?

    /// This transport, whose first hop of the next request is `first` (a response or a failure already
    /// received by a repeater, for a request sent at `sent`): redirects, cookies and failures then go on as for
    /// any request, within the deadline that began at `sent`, and the request is not sent again.
    func continuing(after first: Result<TransportResponse, TransportError>, sent: ContinuousClock.Instant)
        -> any Transport
}

/// Sends one request again and again on a connection of its own (`RepeatingTransport.repeating`).
package protocol RequestRepeater: Sendable {
    /// Whether a run repeats the request on a connection of its own: false once the server has answered in HTTP/2,
    /// whose requests each go through the whole transport (every run then ends `.unsent` at once).
    var repeats: Bool { get }

    /// Sends the request each time `start` says so, and gives each response that ends an exchange to
    /// `finished` (on the connection's thread; neither is called again before the other returns), until one of
    /// them says to stop, or a response or failure needs the whole transport. When `start` says to wait, the
    /// connection is kept idle until the waker it was given is woken, and `start` is asked again then.
    /// `connected` is called once the run has its connection, before its first exchange goes (never when it
    /// cannot have one).
    /// - Returns: why it stopped.
    func run(
        start: @escaping @Sendable (any RepeatWaker) -> RepeatStart,
        connected: @escaping @Sendable () -> Void,
        finished: @escaping @Sendable (TransportResponse) -> RepeatStep
    ) async -> RepeatEnd
}

/// Wakes a `RequestRepeater.run` whose `start` said `.wait`: `start` is asked again, on the connection's
/// thread. A wake that comes while the repeater is still getting its connection is kept for when it has it;
/// waking one that is not waiting does nothing.
package protocol RepeatWaker: AnyObject, Sendable {
    /// - Returns: false when the run has ended (nothing will ask `start` for this wake).
    func wake() -> Bool
}

/// What `RequestRepeater.run` does when `start` is asked.
package enum RepeatStart: Sendable {
    /// Sends the request now.
    case send
    /// Keeps the connection and waits to be woken (`RepeatWaker`).
    case wait
    /// Stops (`RepeatEnd.stopped`).
    case stop
}

/// What `RequestRepeater.run` does after a response.
package enum RepeatStep: Sendable {
    /// Goes on: `start` is asked again.
    case again
    /// Ends with `.handOff(response)`: the response needs more than the plain path gives.
    case handOff
}

/// Why `RequestRepeater.run` stopped.
package enum RepeatEnd: Sendable {
    /// `start` said to stop, or the task was cancelled while it was waiting to be woken.
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
