import Foundation
import ReqPlanHTTP
import ReqPlanTransport
import ReqPlanRuntime
import ReqPlanSyntax
import Synchronization

/// A transport test double for scheduling properties and reports (no network): answers from the
/// URL. Shared by the runtime and report tests; HTTP behaviour is tested against the demo API.
///
/// The path `/s/<id>` answers 200 with `{"id": "<id>", "attempt": n, "query": {...}, "method": "GET"}`.
/// Query parameters steer it: `delay=<ms>` waits first, `status=<code>` answers that status,
/// `fail=<n>` answers 503 to the first n requests of that path, `retry_after=<s>` adds a
/// Retry-After header, `hang=1` waits until cancelled or timed out, `wait_for=<path>` waits until
/// a request to that path has been sent (so tests need no timing assumptions). Every request's
/// start and end are recorded with a logical clock.
public final class ScriptedTestTransport: Transport {
    public struct Event: Sendable {
        public var sequence: Int
        public var path: String
        public var url: String
        public var isStart: Bool
        public var inFlight: Int
    }

    private struct State {
        var clock = 0
        var inFlight = 0
        var peakInFlight = 0
        var events: [Event] = []
        var counts: [String: Int] = [:]
        var requests: [PreparedRequest] = []
    }

    private let state = Mutex(State())
    private let hangs = AsyncStream<String>.makeStream()

    public init() {}

    public var events: [Event] { state.withLock { $0.events } }
    public var requests: [PreparedRequest] { state.withLock { $0.requests } }
    public var peakInFlight: Int { state.withLock { $0.peakInFlight } }
    public func count(_ path: String) -> Int { state.withLock { $0.counts[path] ?? 0 } }
    /// The paths of `hang=1` requests, as each starts hanging.
    public var hanging: AsyncStream<String> { hangs.stream }

    public func send(_ request: PreparedRequest, timeout: Duration?) async throws(TransportError) -> TransportResponse {
        let components = URLComponents(string: request.url.text)
        let path = request.url.path
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let attempt = state.withLock { state -> Int in
            state.clock += 1
            state.inFlight += 1
            state.peakInFlight = max(state.peakInFlight, state.inFlight)
            state.counts[path, default: 0] += 1
            state.requests.append(request)
            state.events.append(
                Event(
                    sequence: state.clock, path: path, url: request.url.text, isStart: true,
                    inFlight: state.inFlight))
            return state.counts[path] ?? 1
        }
        defer {
            state.withLock { state in
                state.clock += 1
                state.inFlight -= 1
                state.events.append(
                    Event(
                        sequence: state.clock, path: path, url: request.url.text, isStart: false,
                        inFlight: state.inFlight))
            }
        }
        if let other = query["wait_for"] {
            while state.withLock({ $0.counts[other] == nil }) {
                do {
                    try await Task.sleep(for: .milliseconds(2))
                } catch {
                    throw TransportError(.cancelled, "cancelled")
                }
            }
        }
        var wait: Duration? = query["delay"].flatMap(Int.init).map { .milliseconds($0) }
        if query["hang"] != nil {
            wait = .seconds(3600)
            hangs.continuation.yield(path)
        }
        if let wait {
            let limit = timeout.map { min($0, wait) } ?? wait
            do {
                try await Task.sleep(for: limit)
            } catch {
                throw TransportError(.cancelled, "cancelled")
            }
            if let timeout, timeout < wait {
                throw TransportError(.timeout, "request to test timed out after \(timeout.milliseconds)ms")
            }
        }
        if Task.isCancelled { throw TransportError(.cancelled, "cancelled") }
        var headers = [HeaderField("Content-Type", "application/json")]
        if let retryAfter = query["retry_after"] { headers.append(HeaderField("Retry-After", retryAfter)) }
        if let fail = query["fail"].flatMap(Int.init), attempt <= fail {
            return TransportResponse(status: 503, headers: headers, body: Array(#"{"error":"unavailable"}"#.utf8))
        }
        let status = query["status"].flatMap(Int.init) ?? 200
        let id = path.split(separator: "/").last.map(String.init) ?? ""
        let body = Value.object([
            .init("id", .string(id)), .init("attempt", .int(attempt)),
            .init("query", .object(query.sorted { $0.key < $1.key }.map { .init($0.key, .string($0.value)) })),
            .init("method", .string(request.method.rawValue)),
        ])
        return TransportResponse(status: status, headers: headers, body: Array(body.jsonText().utf8))
    }
}
