import Foundation
import Hummingbird
import Logging
import HummingbirdHTTP2
import NIOCore
import Synchronization

/// The demo API: a Hummingbird application on loopback that serves every example
/// in `plans/` and fault endpoints for tests. Tests start it in-process on port 0.
public enum DemoAPI {
    /// Runs the server until the calling task is cancelled.
    /// - Parameters:
    ///   - host: the address to bind (loopback by default).
    ///   - port: the port, `0` for any free one.
    ///   - tls: serve HTTPS (HTTP/2 and HTTP/1.1 through ALPN) with the demo's self-signed certificate.
    ///   - onReady: called with the bound port once the server accepts connections.
    ///   - logLevel: what the server logs to standard error (default: only critical problems, so
    ///     tests and `reqplan demo` stay quiet).
    public static func run(
        host: String = "127.0.0.1", port: Int = 0, tls: Bool = false,
        logLevel: Logger.Level = .critical,
        onReady: @escaping @Sendable (Int) async -> Void
    ) async throws {
        var logger = Logger(label: "reqplan-demo")
        logger.logLevel = logLevel
        let router = Router(context: DemoContext.self, options: .autoGenerateHeadEndpoints)
        DemoRoutes(state: DemoState()).register(on: router)
        let configuration = ApplicationConfiguration(address: .hostname(host, port: port), serverName: "reqplan-demo")
        let onServerRunning: @Sendable (any Channel) async -> Void = { channel in
            await onReady(channel.localAddress?.port ?? port)
        }
        if tls {
            let app = Application(
                router: router, server: try .http2Upgrade(tlsConfiguration: try DemoTLS.configuration()),
                configuration: configuration, onServerRunning: onServerRunning, logger: logger)
            try await app.run()
        } else {
            let app = Application(
                router: router, configuration: configuration, onServerRunning: onServerRunning,
                logger: logger)
            try await app.run()
        }
    }

    /// Starts the server on a free loopback port, runs `body` with its base URL, then stops the server.
    /// - Parameter tls: serve HTTPS with the demo's self-signed certificate (`https://127.0.0.1:port`).
    public static func withServer<Result: Sendable>(
        tls: Bool = false, _ body: @escaping @Sendable (String) async throws -> Result
    ) async throws -> Result {
        let ready = AsyncStream<Int>.makeStream()
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                try await run(
                    tls: tls,
                    onReady: { port in
                        ready.continuation.yield(port)
                        ready.continuation.finish()
                    })
                return nil
            }
            var iterator = ready.stream.makeAsyncIterator()
            guard let port = await iterator.next() else {
                group.cancelAll()
                throw DemoAPIError.didNotStart
            }
            let result = try await body((tls ? "https" : "http") + "://127.0.0.1:\(port)")
            group.cancelAll()
            while let next = try await group.next() { _ = next }
            return result
        }
    }
}

/// Why the demo API could not be used.
public enum DemoAPIError: Error {
    case didNotStart
}
