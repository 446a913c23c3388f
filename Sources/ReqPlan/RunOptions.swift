import Foundation
import ReqPlanHTTP
import ReqPlanTransport
import ReqPlanRuntime
import ReqPlanURLSession

/// How a plan's requests are sent: over SwiftNIO (reqplan's own client, or AsyncHTTPClient), over
/// Foundation's `URLSession`, or over any `Transport` the program brings.
public struct PlanTransport: Sendable {
    enum Choice: Sendable {
        case nio(HTTPClientTransport.Configuration)
        case urlSession(URLSessionTransport.Configuration)
        case custom(any Transport)
    }

    let choice: Choice

    /// The SwiftNIO transport `reqplan run` uses: HTTP/1.1, HTTP/2 over TLS, its own proxies and trust roots.
    /// - Parameter configuration: its settings (defaults: verify certificates, follow redirects, 64 MiB
    ///   bodies, 10 s to connect, 60 s per attempt).
    public static func nio(_ configuration: HTTPClientTransport.Configuration = .init()) -> PlanTransport {
        PlanTransport(choice: .nio(configuration))
    }

    /// Foundation's `URLSession`: the system's proxies and trust store on Apple platforms;
    /// FoundationNetworking (libcurl) on Linux.
    public static func urlSession(_ configuration: URLSessionTransport.Configuration = .init()) -> PlanTransport {
        PlanTransport(choice: .urlSession(configuration))
    }

    /// A transport of the program's own; it stays the program's to shut down.
    public static func custom(_ transport: any Transport) -> PlanTransport {
        PlanTransport(choice: .custom(transport))
    }
}

/// Settings of one run of a plan, with documented defaults.
public struct RunOptions: Sendable {
    /// How requests are sent (default: the SwiftNIO transport with its defaults).
    public var transport: PlanTransport = .nio()
    /// The most requests in flight at once, over the plan's own `concurrency` (default: the plan's).
    public var concurrency: Int?
    /// The environment variables the plan's inputs may read (`env:`); default: the process's.
    public var environment: [String: String] = ProcessInfo.processInfo.environment
    /// The most progress events held for a reader that falls behind; older ones are dropped past it
    /// (default 65,536).
    public var eventBufferSize = 65_536

    /// The default settings.
    public init() {}

    /// Settings with the given transport.
    public init(transport: PlanTransport) {
        self.transport = transport
    }
}
