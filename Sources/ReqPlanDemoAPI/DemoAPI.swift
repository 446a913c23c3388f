import Foundation
import Hummingbird
import Logging
import HummingbirdHTTP2
import NIOCore
import ServiceLifecycle
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
        try await application(host: host, port: port, tls: tls, logLevel: logLevel, onReady: onReady).run()
    }

    /// Starts the server on a free loopback port, runs `body` with its base URL, then stops the server.
    ///
    /// The server stops by a graceful shutdown, not by cancelling its task: cancelling can drop a
    /// connection that NIO has accepted but not yet handed to the server, which NIO traps on ("Deinited
    /// NIOAsyncWriter without calling finish()", swift-nio#2637 and #3481; seen in this suite after a test
    /// whose client was still connecting when the test ended). The shutdown closes the listening socket
    /// and hands over what was accepted at once; requests still running after 250 ms (a `/delay` whose
    /// client gave up) are then cancelled.
    /// - Parameter tls: serve HTTPS with the demo's self-signed certificate (`https://127.0.0.1:port`).
    public static func withServer<Result: Sendable>(
        tls: Bool = false, _ body: @escaping @Sendable (String) async throws -> Result
    ) async throws -> Result {
        let ready = AsyncStream<Int>.makeStream()
        let app = try application(
            host: "127.0.0.1", port: 0, tls: tls, logLevel: .critical,
            onReady: { port in
                ready.continuation.yield(port)
                ready.continuation.finish()
            })
        var configuration = ServiceGroupConfiguration(services: [app], logger: Logger(label: "reqplan-demo"))
        configuration.maximumGracefulShutdownDuration = .milliseconds(250)
        let server = ServiceGroup(configuration: configuration)
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                try await server.run()
                return nil
            }
            var iterator = ready.stream.makeAsyncIterator()
            guard let port = await iterator.next() else {
                await server.triggerGracefulShutdown()
                throw DemoAPIError.didNotStart
            }
            let outcome: Swift.Result<Result, any Error>
            do {
                outcome = .success(try await body((tls ? "https" : "http") + "://127.0.0.1:\(port)"))
            } catch {
                outcome = .failure(error)
            }
            await server.triggerGracefulShutdown()
            while let next = try await group.next() { _ = next }
            return try outcome.get()
        }
    }

    /// The demo's application (HTTP/1.1, or HTTPS with HTTP/2 and HTTP/1.1).
    private static func application(
        host: String, port: Int, tls: Bool, logLevel: Logger.Level,
        onReady: @escaping @Sendable (Int) async -> Void
    ) throws -> any Service {
        var logger = Logger(label: "reqplan-demo")
        logger.logLevel = logLevel
        let router = Router(context: DemoContext.self, options: .autoGenerateHeadEndpoints)
        DemoRoutes(state: DemoState()).register(on: router)
        let configuration = ApplicationConfiguration(address: .hostname(host, port: port), serverName: "reqplan-demo")
        let onServerRunning: @Sendable (any Channel) async -> Void = { channel in
            await onReady(channel.localAddress?.port ?? port)
        }
        if tls {
            return Application(
                router: router, server: try .http2Upgrade(tlsConfiguration: try DemoTLS.configuration()),
                configuration: configuration, onServerRunning: onServerRunning, logger: logger)
        }
        return Application(
            router: router, configuration: configuration, onServerRunning: onServerRunning, logger: logger)
    }
}

/// Why the demo API could not be used.
public enum DemoAPIError: Error {
    case didNotStart
}
