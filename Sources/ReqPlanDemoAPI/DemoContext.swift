import Hummingbird
import NIOCore

/// The demo API's request context: Hummingbird's basic context, plus the HTTP version the request
/// came over. An HTTP/1.1 request arrives on the connection's channel (whose parent is the listening
/// socket); an HTTP/2 request on a stream channel one level further down.
struct DemoContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// `HTTP/2` or `HTTP/1.1`.
    let httpVersion: String
    /// The event loop serving the connection: its timers fire within microseconds (`/delay`).
    let eventLoop: any EventLoop
    /// The client's TCP connection (for HTTP/2, the connection the stream runs on).
    let connection: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.httpVersion = source.channel.parent?.parent == nil ? "HTTP/1.1" : "HTTP/2"
        self.eventLoop = source.channel.eventLoop
        self.connection = httpVersion == "HTTP/2" ? source.channel.parent ?? source.channel : source.channel
    }
}
