import NIOCore
import ReqPlanTransport

/// The pool of `ReqPlanClient`: per endpoint, its HTTP/1.1 connections (idle ones, how many are
/// open, the requests waiting for one) or its one HTTP/2 connection and how many of its streams are
/// in use. Only touched under the client's lock.
///
/// An endpoint over TLS may answer HTTP/2 or HTTP/1.1 (ALPN). While its first connection is being
/// made, further requests wait for it to say which, rather than each opening a connection: with
/// HTTP/2 they take a stream on it; with HTTP/1.1 they open their own, up to the limit.
///
/// An HTTP/2 connection takes as many streams at once as the server allows
/// (`SETTINGS_MAX_CONCURRENT_STREAMS`, 100 when it does not say); further requests wait in the queue
/// for a stream to end. So at a GOAWAY only the streams in flight can be above its last stream, and
/// the queue goes to the next connection.
extension ReqPlanClient {
    /// What a request gets from the pool.
    enum Lease {
        /// An idle HTTP/1.1 connection.
        case reuse(HTTP1Connection)
        /// Leave to open a connection (its slot is taken).
        case connect
        /// A stream on the endpoint's HTTP/2 connection.
        case stream(HTTP2Connection)
    }

    struct Waiter {
        var id: Int
        var continuation: CheckedContinuation<Lease, any Error>
        /// Fails the wait at the request's deadline.
        var timer: Scheduled<Void>?

        /// Ends the wait (and its deadline's timer).
        func resume(_ result: Result<Lease, any Error>) {
            timer?.cancel()
            continuation.resume(with: result)
        }
    }

    struct Host {
        var idle: [HTTP1Connection] = []
        /// Connections open or opening, idle ones and the HTTP/2 one included.
        var open = 0
        var waiters: [Waiter] = []
        /// The HTTP/2 connection new streams go on, while it takes them.
        var http2: HTTP2Connection?
        /// Streams of `http2` in use, and how many it takes at once.
        var streamsInUse = 0
        var streamLimit = 0
        /// Whether the endpoint answered HTTP/2 (nil: not known yet).
        var speaksHTTP2: Bool?
    }

    struct Pool {
        var hosts: [Endpoint: Host] = [:]
        /// HTTP/2 connections that take no new streams (GOAWAY) but still finish theirs, until closed.
        var draining: [ObjectIdentifier: HTTP2Connection] = [:]
        var isShutDown = false
        var nextWaiterID = 0

        mutating func makeWaiterID() -> Int {
            nextWaiterID += 1
            return nextWaiterID
        }

        /// `body` on the host's entry, in place (a copy would copy its arrays on every change).
        mutating func withHost<Result>(_ endpoint: Endpoint, _ body: (inout Host) -> Result) -> Result {
            body(&hosts[endpoint, default: Host()])
        }

        /// A stream on the HTTP/2 connection, an idle connection (one on `loop` first, the event loop the
        /// request is made from, if any), or leave to open one; nil when the request must wait (the host is
        /// at its limit, or its protocol is being learnt).
        mutating func lease(
            _ endpoint: Endpoint, limit: Int, mayUseHTTP2: Bool, on loop: (any EventLoop)? = nil
        ) -> Result<Lease?, ClientError> {
            if isShutDown { return .failure(.cancelled) }
            return withHost(endpoint) { host in
                if let http2 = host.http2 {
                    guard host.streamsInUse < host.streamLimit else { return .success(nil) }
                    host.streamsInUse += 1
                    return .success(.stream(http2))
                }
                // One on the loop asked from first (`EventLoopTaskExecutor`), else the last one freed.
                if let loop, let index = host.idle.lastIndex(where: { $0.channel.eventLoop === loop }) {
                    let connection = host.idle.remove(at: index)
                    if connection.channel.isActive { return .success(.reuse(connection)) }
                    host.open -= 1
                }
                while let connection = host.idle.popLast() {
                    if connection.channel.isActive { return .success(.reuse(connection)) }
                    host.open -= 1
                }
                // A connection being made will say whether it speaks HTTP/2: wait for it.
                if mayUseHTTP2, host.speaksHTTP2 != false, host.open > 0 { return .success(nil) }
                guard host.open < limit else { return .success(nil) }
                host.open += 1
                return .success(.connect)
            }
        }

        mutating func enqueue(_ waiter: Waiter, for endpoint: Endpoint) {
            hosts[endpoint, default: Host()].waiters.append(waiter)
        }

        /// Gives a waiter its deadline's timer; false when it no longer waits.
        mutating func attach(_ timer: Scheduled<Void>, toWaiter id: Int, of endpoint: Endpoint) -> Bool {
            guard let index = hosts[endpoint]?.waiters.firstIndex(where: { $0.id == id }) else { return false }
            hosts[endpoint]?.waiters[index].timer = timer
            return true
        }

        mutating func removeWaiter(_ id: Int, of endpoint: Endpoint) -> Waiter? {
            guard let index = hosts[endpoint]?.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return hosts[endpoint]?.waiters.remove(at: index)
        }

        /// A new connection came up speaking HTTP/2 (`http2`, its first stream taken by the request
        /// that opened it) or HTTP/1.1 (nil). The waiters it serves: with HTTP/2, as many as it has
        /// streams for (a stream each); with HTTP/1.1, as many as may open a connection of their own
        /// within `limit` (their slots taken).
        mutating func learned(_ endpoint: Endpoint, http2: HTTP2Connection?, limit: Int) -> [Waiter] {
            let shutDown = isShutDown
            return withHost(endpoint) { host in
                host.speaksHTTP2 = http2 != nil
                if let http2 {
                    if shutDown {
                        http2.close()
                        return []
                    }
                    host.http2 = http2
                    host.streamLimit = http2.initialStreamLimit
                    host.streamsInUse = 1
                    return Self.grantStreams(&host)
                }
                let count = min(host.waiters.count, max(0, limit - host.open))
                host.open += count
                defer { host.waiters.removeFirst(count) }
                return Array(host.waiters.prefix(count))
            }
        }

        /// Streams for the first waiters, while the HTTP/2 connection has some free.
        private static func grantStreams(_ host: inout Host) -> [Waiter] {
            let count = min(host.waiters.count, max(0, host.streamLimit - host.streamsInUse))
            host.streamsInUse += count
            defer { host.waiters.removeFirst(count) }
            return Array(host.waiters.prefix(count))
        }

        /// A stream of `connection` ended: to the first waiter, or free. Nil when nobody gets it
        /// (or the connection takes no more streams).
        mutating func streamEnded(on connection: HTTP2Connection, of endpoint: Endpoint) -> Waiter? {
            withHost(endpoint) { host in
                guard host.http2 === connection else { return nil }
                if host.streamsInUse <= host.streamLimit, !host.waiters.isEmpty { return host.waiters.removeFirst() }
                host.streamsInUse -= 1
                return nil
            }
        }

        /// The server changed how many streams `connection` takes at once: the waiters that get one now.
        mutating func streamLimitChanged(to limit: Int, on connection: HTTP2Connection, of endpoint: Endpoint)
            -> [Waiter]
        {
            withHost(endpoint) { host in
                guard host.http2 === connection else { return [] }
                host.streamLimit = limit
                return Self.grantStreams(&host)
            }
        }

        /// The HTTP/2 connection takes no more streams (GOAWAY, or closed): its slot is free, and the
        /// first waiter, if any, opens the next connection (the others wait to learn its protocol).
        /// Until it closes, it is closed at shutdown.
        mutating func forget(_ connection: HTTP2Connection, of endpoint: Endpoint) -> Waiter? {
            if connection.channel.isActive, !isShutDown { draining[ObjectIdentifier(connection)] = connection }
            return withHost(endpoint) { host in
                guard host.http2 === connection else { return nil }
                host.http2 = nil
                host.streamsInUse = 0
                host.streamLimit = 0
                guard !host.waiters.isEmpty else {
                    host.open -= 1
                    return nil
                }
                return host.waiters.removeFirst()
            }
        }

        /// The HTTP/2 connection closed.
        mutating func closed(_ connection: HTTP2Connection) {
            draining[ObjectIdentifier(connection)] = nil
        }

        /// A connection is back: to the first waiter, or idle; a closed one frees its slot.
        mutating func release(_ connection: HTTP1Connection, of endpoint: Endpoint, kept: Bool) -> (Waiter, Lease)? {
            let open = !isShutDown
            return withHost(endpoint) { host in
                if kept && open {
                    if host.waiters.isEmpty {
                        host.idle.append(connection)
                        return nil
                    }
                    return (host.waiters.removeFirst(), .reuse(connection))
                }
                if kept { connection.channel.close(promise: nil) }
                guard !host.waiters.isEmpty else {
                    host.open -= 1
                    return nil
                }
                return (host.waiters.removeFirst(), .connect)
            }
        }

        /// A connection could not be made: its slot goes to the first waiter (`next`), unless the
        /// waiters were waiting to learn the endpoint's protocol from it and `failingLearners`:
        /// then they fail with it (`failed`).
        mutating func giveUpSlot(_ endpoint: Endpoint, failingLearners: Bool, mayUseHTTP2: Bool)
            -> (next: Waiter?, failed: [Waiter])
        {
            withHost(endpoint) { host in
                let learning = mayUseHTTP2 && host.speaksHTTP2 != false && host.http2 == nil
                if learning && failingLearners && host.open == 1 {
                    host.open = 0
                    defer { host.waiters = [] }
                    return (nil, host.waiters)
                }
                guard !host.waiters.isEmpty else {
                    host.open -= 1
                    return (nil, [])
                }
                return (host.waiters.removeFirst(), [])
            }
        }

        /// Every idle connection and HTTP/2 connection to close, and the waiters to fail.
        mutating func shutDown() -> (channels: [any Channel], waiters: [Waiter]) {
            isShutDown = true
            defer { hosts = [:] }
            defer { draining = [:] }
            let channels =
                hosts.values.flatMap { $0.idle.map(\.channel) } + hosts.values.compactMap(\.http2?.channel)
                + draining.values.map(\.channel)
            return (channels, hosts.values.flatMap(\.waiters))
        }
    }
}
