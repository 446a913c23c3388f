/// Sends prepared requests. The executor only knows this protocol, so the
/// scheduler can be tested with an in-memory transport and run for real over
/// AsyncHTTPClient.
public protocol Transport: Sendable {
    /// Sends one request and returns the whole response.
    /// - Parameters:
    ///   - request: the request.
    ///   - timeout: the attempt's deadline, if any.
    /// - Throws: `TransportError`; `.cancelled` when the task is cancelled.
    func send(_ request: PreparedRequest, timeout: Duration?) async throws(TransportError) -> TransportResponse
}
