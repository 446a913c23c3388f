#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation

/// A loopback port that never answers a connection attempt, like a host that drops SYNs: a
/// listening socket with a backlog of 0 whose accept queue is filled by connections nobody
/// accepts, so the kernel drops every further SYN and a client's connect waits until its own
/// timeout. With `connecting`, a server that hangs after the handshake instead: connections
/// complete (the kernel queues them; nobody accepts them) and a request sent on one is never
/// answered. Closed by `close()`.
public final class SilentPort: @unchecked Sendable {
    /// Why the port could not be made.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The port on 127.0.0.1.
    public let port: Int
    private let listener: CInt
    /// The connections that fill the queue.
    private var fillers: [CInt] = []

    public init(connecting: Bool = false) throws {
        let listener = socket(AF_INET, Self.streamType, 0)
        self.listener = listener
        guard listener >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, connecting ? 16 : 0) == 0
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            closeDescriptor(listener)
            throw Failure(description: "bind/listen: \(String(cString: strerror(errno)))")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        if connecting { return }
        // Connect until a connection no longer completes: the queue is full from then on.
        for _ in 0..<16 {
            let filler = socket(AF_INET, Self.streamType, 0)
            guard filler >= 0 else { break }
            _ = fcntl(filler, F_SETFL, fcntl(filler, F_GETFL) | O_NONBLOCK)
            var target = address
            let started = withUnsafePointer(to: &target) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                    connect(filler, target, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard started == 0 || errno == EINPROGRESS else {
                closeDescriptor(filler)
                break
            }
            var poller = pollfd(fd: filler, events: Int16(POLLOUT), revents: 0)
            if poll(&poller, 1, 200) == 1 {
                fillers.append(filler)
            } else {
                // This SYN was dropped: the queue is full.
                closeDescriptor(filler)
                return
            }
        }
        close()
        throw Failure(description: "the listening socket's queue did not fill up")
    }

    /// Closes the listener and the connections that filled its queue.
    public func close() {
        for filler in fillers { closeDescriptor(filler) }
        fillers = []
        closeDescriptor(listener)
    }

    #if canImport(Glibc)
        private static let streamType = CInt(SOCK_STREAM.rawValue)
    #else
        private static let streamType = SOCK_STREAM
    #endif
}

/// `close(2)` (the name is taken inside `SilentPort`).
private func closeDescriptor(_ descriptor: CInt) {
    _ = close(descriptor)
}
