import Foundation
import ReqPlanHTTP
import ReqPlanTransport
import ReqPlanSyntax
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport over Foundation's `URLSession`, beside the SwiftNIO one (`HTTPClientTransport`), for a
/// program that embeds reqplan and wants the system's HTTP stack: on Apple platforms that means the
/// system's proxy settings and trust store; on Linux it is FoundationNetworking, over libcurl.
///
/// Requests are framed (`RequestFraming`), cookies kept and redirects followed (`RequestHops`) as the
/// NIO transport does, so plans behave alike; each hop is one `URLSession` data task, its body collected
/// up to `maxBodySize`, under the attempt's deadline. What FoundationNetworking cannot do on Linux (per-
/// session trust roots, turning verification off, a connect timeout, an idle timeout, HTTP/2) is listed
/// in docs/library.md.
public struct URLSessionTransport: Transport {
    /// Settings, with documented defaults.
    public struct Configuration: Sendable {
        /// Whether 3xx redirects are followed when the request does not say (`follow_redirects`).
        public var followRedirects = true
        /// Redirects followed before giving up.
        public var maxRedirects = 10
        /// The largest response body accepted, in bytes (default 64 MiB).
        public var maxBodySize = 64 << 20
        /// The deadline of an attempt whose step sets no `timeout`: the whole exchange, the body
        /// included. Nil: none.
        public var requestTimeout: Duration? = .seconds(60)
        /// Connections kept per host (`URLSessionConfiguration.httpMaximumConnectionsPerHost`).
        public var connectionsPerHost = 64
        /// The run's cookie jar (the session's own cookie storage is not used).
        public var cookies = CookieJar()
        /// Where the transport records secrets it learns (cookie values), so every output hides them.
        public var secrets = SecretStore()

        /// The default settings.
        public init() {}
    }

    /// The settings this transport was made with.
    public let configuration: Configuration
    private let session: URLSession
    private let delegate: SessionDelegate

    private init(_ configuration: Configuration) {
        self.configuration = configuration
        let settings = URLSessionConfiguration.ephemeral
        settings.httpCookieStorage = nil
        settings.httpShouldSetCookies = false
        settings.httpCookieAcceptPolicy = .never
        settings.urlCache = nil
        settings.requestCachePolicy = .reloadIgnoringLocalCacheData
        settings.httpMaximumConnectionsPerHost = configuration.connectionsPerHost
        // The attempt's deadline is enforced here, around the task; the session's own timers only
        // catch a stalled transfer.
        settings.timeoutIntervalForRequest = 24 * 3600
        settings.timeoutIntervalForResource = 24 * 3600
        let delegate = SessionDelegate(limit: configuration.maxBodySize)
        self.delegate = delegate
        self.session = URLSession(configuration: settings, delegate: delegate, delegateQueue: nil)
    }

    /// Runs `body` with a transport whose session is invalidated when `body` returns, in every path.
    /// - Parameters:
    ///   - configuration: the transport's settings.
    ///   - body: what to do with it.
    /// - Returns: what `body` returns.
    public static func with<Result: Sendable>(
        _ configuration: Configuration, _ body: (URLSessionTransport) async throws -> Result
    ) async throws -> Result {
        let transport = URLSessionTransport(configuration)
        defer { transport.session.invalidateAndCancel() }
        return try await body(transport)
    }

    /// Sends one request, following redirects, under the attempt's deadline.
    public func send(_ request: PreparedRequest, timeout: Duration?) async throws(TransportError) -> TransportResponse {
        let timeout = timeout ?? configuration.requestTimeout
        let deadline = timeout.map { ContinuousClock.now + $0 }
        let hops = RequestHops(
            followRedirects: configuration.followRedirects,
            maxRedirects: configuration.maxRedirects, cookies: configuration.cookies,
            secrets: configuration.secrets)
        return try await hops.send(request) { hop async throws(TransportError) in
            try await sendOnce(hop, deadline: deadline, timeout: timeout)
        }
    }

    /// One exchange, no redirect followed, raced against the deadline.
    private func sendOnce(_ request: PreparedRequest, deadline: ContinuousClock.Instant?, timeout: Duration?)
        async throws(TransportError) -> TransportResponse
    {
        let outgoing = try urlRequest(for: request)
        let outcome: Result<TransportResponse, TransportError> = await withTaskGroup(
            of: Result<TransportResponse, TransportError>?.self
        ) { group in
            group.addTask {
                await exchange(
                    outgoing, host: request.host, timeout: timeout, keep: request.keepsResponseBody ?? .max)
            }
            if let deadline {
                group.addTask {
                    // Cancelled once the exchange ends first.
                    guard (try? await Task.sleep(until: deadline)) != nil else { return nil }
                    return .failure(.timedOut(request.host, after: timeout))
                }
            }
            while let next = await group.next() {
                guard let next else { continue }
                group.cancelAll()
                return next
            }
            return .failure(.cancelled)
        }
        return try outcome.get()
    }

    /// The request as `URLSession` takes it: the method, the framed headers, the body.
    private func urlRequest(for request: PreparedRequest) throws(TransportError) -> URLRequest {
        // The request's URL is parsed already (`RequestURL`); URLSession takes it as Foundation's `URL`,
        // built from the request target so that what goes on the wire is what reqplan's client sends.
        let text = (request.url.isHTTPS ? "https://" : "http://") + request.url.authority + request.url.target
        guard let url = URL(string: text) else { throw .invalidURL(request.host) }
        if request.method == .GET, request.body?.isEmpty == false {
            // FoundationNetworking refuses it ("GET method must not have a body").
            throw TransportError(.other, "a GET request with a body cannot be sent over URLSession")
        }
        var outgoing = URLRequest(url: url)
        outgoing.httpMethod = request.method.rawValue
        outgoing.httpShouldHandleCookies = false
        try RequestFraming.frame(request) { name, value in outgoing.addValue(value, forHTTPHeaderField: name) }
        if let body = request.body { outgoing.httpBody = Data(body) }
        return outgoing
    }

    /// One data task, its body collected by the session's delegate; cancelling the calling task cancels it.
    private func exchange(_ request: URLRequest, host: String, timeout: Duration?, keep: Int)
        async -> Result<TransportResponse, TransportError>
    {
        let task = session.dataTask(with: request)
        let exchange = Exchange(
            host: host, timeout: timeout, limit: configuration.maxBodySize, keep: keep,
            isHead: request.httpMethod == "HEAD")
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                exchange.continuation = continuation
                delegate.start(task, exchange)
                if Task.isCancelled {
                    exchange.cancelledByCaller.store(true, ordering: .relaxed)
                    task.cancel()
                }
            }
        } onCancel: {
            exchange.cancelledByCaller.store(true, ordering: .relaxed)
            task.cancel()
        }
    }
}

/// One data task's response and body as they arrive, and who waits for them.
final class Exchange: @unchecked Sendable {
    // Written by the delegate's serial queue only, after `continuation` is set before the task starts.
    let host: String
    let timeout: Duration?
    let limit: Int
    /// How many bytes of the body to keep (the rest is counted, not held).
    let keep: Int
    let isHead: Bool
    var continuation: CheckedContinuation<Result<TransportResponse, TransportError>, Never>?
    var response: HTTPURLResponse?
    var body: [UInt8] = []
    /// The body's size so far, kept or not.
    var size = 0
    var tooLarge = false
    /// Set when the awaiting task was cancelled (a URLSession cancellation that is not a caller's is a
    /// connection that went away).
    let cancelledByCaller = Atomic<Bool>(false)

    init(host: String, timeout: Duration?, limit: Int, keep: Int = .max, isHead: Bool) {
        self.host = host
        self.timeout = timeout
        self.limit = limit
        self.keep = keep
        self.isHead = isHead
    }

    /// Resumes the waiting task once.
    func finish(_ result: Result<TransportResponse, TransportError>) {
        continuation?.resume(returning: result)
        continuation = nil
    }

    /// How the task ended: the response, or why there is none.
    func outcome(_ error: (any Error)?) -> Result<TransportResponse, TransportError> {
        if tooLarge { return .failure(.tooLarge(host, limit: limit)) }
        if let error { return .failure(failure(error)) }
        guard let response else { return .failure(.invalidResponse(host)) }
        return .success(
            TransportResponse(
                status: response.statusCode, headers: Self.headers(of: response),
                body: body, size: size))
    }

    /// A `URLSession` failure in the words the NIO transport uses.
    func failure(_ error: any Error) -> TransportError {
        guard let error = error as? URLError else { return .failed(host, "\(error)") }
        switch error.code {
        case .cancelled: return cancelledByCaller.load(ordering: .relaxed) ? .cancelled : .reset(host)
        case .timedOut: return .timedOut(host, after: timeout)
        case .cannotConnectToHost: return TransportError(.connect, "connection to \(host) refused")
        case .cannotFindHost, .dnsLookupFailed:
            return TransportError(
                .connect, "could not resolve \(URLComponents(string: "http://\(host)")?.host ?? host)")
        case .networkConnectionLost: return response == nil ? .reset(host) : .closedEarly(host)
        case .badServerResponse: return .invalidResponse(host)
        case .cannotDecodeContentData, .cannotDecodeRawData:
            return TransportError(.other, "the response body from \(host) could not be decompressed")
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot: return .tls(host, .untrusted)
        case .serverCertificateNotYetValid, .serverCertificateHasBadDate, .secureConnectionFailed,
            .clientCertificateRejected, .clientCertificateRequired:
            return .tls(host, .unknown)
        case .unknown: return libcurlFailure(error.localizedDescription)
        default: return .failed(host, error.localizedDescription)
        }
    }

    /// A failure FoundationNetworking passes on from libcurl without a code of its own (`URLError.unknown`,
    /// libcurl's message as its description), told apart by libcurl's words.
    private func libcurlFailure(_ message: String) -> TransportError {
        if message.hasPrefix("SSL certificate problem") {
            return .tls(host, message.contains("expired") || message.contains("not yet valid") ? .unknown : .untrusted)
        }
        if message.hasPrefix("SSL") || message.contains("TLS") { return .tls(host, .unknown) }
        // CURLE_BAD_CONTENT_ENCODING
        if message.contains("content unencoding") {
            return TransportError(.other, "the response body from \(host) could not be decompressed")
        }
        // CURLE_PARTIAL_FILE, CURLE_RECV_ERROR
        if message.hasPrefix("transfer closed") || message.contains("Connection reset") {
            return response == nil ? .reset(host) : .closedEarly(host)
        }
        return .failed(host, message)
    }

    /// The response's headers. `HTTPURLResponse` keeps one value per name, repeated headers joined by
    /// commas: `Set-Cookie` is split again into its cookies (a comma followed by `name=`; the comma of
    /// an `Expires` date is followed by a day number).
    static func headers(of response: HTTPURLResponse) -> [HeaderField] {
        var fields: [HeaderField] = []
        for (key, value) in response.allHeaderFields {
            let name = "\(key)"
            let text = "\(value)"
            guard name.lowercased() == "set-cookie" else {
                fields.append(HeaderField(name, text))
                continue
            }
            fields += splitCookies(text).map { HeaderField(name, $0) }
        }
        return fields
    }

    /// `a=1; Path=/, b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT` as its two cookies.
    static func splitCookies(_ text: String) -> [String] {
        var cookies: [String] = []
        var current = ""
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let rest = part.drop { $0 == " " }
            let startsCookie =
                rest.prefix { $0 != "=" && $0 != ";" }.allSatisfy { !$0.isWhitespace }
                && rest.contains("=") && rest.first?.isNumber == false
            if !current.isEmpty, startsCookie {
                cookies.append(current)
                current = String(rest)
            } else {
                current += current.isEmpty ? String(rest) : "," + part
            }
        }
        if !current.isEmpty { cookies.append(current) }
        return cookies
    }
}

/// The session's delegate: collects each task's response, refuses redirects (`RequestHops` follows them
/// one hop at a time) and stops a body past the limit.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let limit: Int
    private let exchanges = Mutex<[Int: Exchange]>([:])

    init(limit: Int) { self.limit = limit }

    /// Starts `task`, whose events go to `exchange`.
    func start(_ task: URLSessionDataTask, _ exchange: Exchange) {
        exchanges.withLock { $0[task.taskIdentifier] = exchange }
        task.resume()
    }

    private func exchange(of task: URLSessionTask) -> Exchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        exchange(of: dataTask)?.response = response as? HTTPURLResponse
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let exchange = exchange(of: dataTask), !exchange.tooLarge else { return }
        if exchange.size + data.count > exchange.limit {
            exchange.tooLarge = true
            dataTask.cancel()
            return
        }
        exchange.size += data.count
        if exchange.body.count < exchange.keep {
            exchange.body.append(contentsOf: data.prefix(exchange.keep - exchange.body.count))
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        exchange.finish(exchange.outcome(error))
    }
}
