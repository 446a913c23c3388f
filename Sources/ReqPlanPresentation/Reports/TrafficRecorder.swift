import Foundation
import ReqPlanTransport
import ReqPlanRuntime
import Synchronization

/// Records every exchange a plan's run makes, for the HAR report (`--report har:`): each attempt (retries
/// and polls) and each redirect hop the transport followed, with its request and response as outputs
/// show them, its time and its phases where the client measured them.
///
/// An observer of one plan's run (`ExecutionObserver`): a step (or for_each item) makes one attempt at a
/// time, so the request sent, the response received and the attempt's end are matched by step and item.
public final class TrafficRecorder: ExecutionObserver, Sendable {
    private struct Key: Hashable {
        var id: String
        var item: Int?
    }

    private struct Pending {
        var start: ContinuousClock.Instant
        var request: PreparedRequest
        var response: TransportResponse?
    }

    private struct State {
        var pending: [Key: Pending] = [:]
        var exchanges: [RecordedExchange] = []
    }

    private let state = Mutex(State())
    /// The wall clock and the monotonic clock at one instant: monotonic times become dates from it.
    private let anchor = (date: Date(), instant: ContinuousClock.now)

    /// Creates a recorder with nothing recorded.
    public init() {}

    /// The exchanges recorded so far, in the order their attempts ended.
    public var exchanges: [RecordedExchange] {
        state.withLock { $0.exchanges }
    }

    public func stepStarted(_ id: String, item: Int?, at time: Duration) {}
    public func stepFinished(_ result: StepResult) {}

    public func requestSent(_ id: String, item: Int?, request: PreparedRequest) {
        let pending = Pending(start: .now, request: request)
        state.withLock { $0.pending[Key(id: id, item: item)] = pending }
    }

    public func responseReceived(_ id: String, item: Int?, response: TransportResponse) {
        state.withLock { $0.pending[Key(id: id, item: item)]?.response = response }
    }

    public func attemptFinished(_ id: String, item: Int?, attempt: AttemptRecord) {
        guard let pending = state.withLock({ $0.pending.removeValue(forKey: Key(id: id, item: item)) }) else { return }
        let recorded = exchanges(of: pending, step: id, item: item, attempt: attempt)
        state.withLock { $0.exchanges.append(contentsOf: recorded) }
    }

    /// The exchanges of one attempt: its redirect hops, then the exchange that ended it (with no
    /// response when none came).
    private func exchanges(of pending: Pending, step: String, item: Int?, attempt: AttemptRecord)
        -> [RecordedExchange]
    {
        func exchange(
            _ request: PreparedRequest, _ response: TransportResponse?, start: ContinuousClock.Instant,
            time: Duration, error: String?
        ) -> RecordedExchange {
            let timing = response?.timing
            return RecordedExchange(
                step: step, item: item, attempt: attempt.number, started: date(of: timing?.start ?? start),
                time: timing?.total ?? time, phases: timing?.phases, request: Self.request(request),
                response: response.map(Self.response), error: error)
        }
        guard let response = pending.response else {
            return [exchange(pending.request, nil, start: pending.start, time: attempt.duration, error: attempt.error)]
        }
        var recorded = response.redirects.map {
            exchange($0.request, $0.response, start: pending.start, time: .zero, error: nil)
        }
        recorded.append(
            exchange(
                response.sentRequest ?? pending.request, response, start: pending.start, time: attempt.duration,
                error: nil))
        return recorded
    }

    /// `instant` on the wall clock.
    private func date(of instant: ContinuousClock.Instant) -> Date {
        let (seconds, attoseconds) = (instant - anchor.instant).components
        return anchor.date.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// A request as outputs show it, its headers as the client wrote its head (`shownHeadersAsSent`); the
    /// cookies the jar added (not in what outputs show) are listed too, where the head has them, their values
    /// hidden later by name.
    private static func request(_ request: PreparedRequest) -> RecordedExchange.Request {
        var listed = request
        if var shown = request.shown, !shown.headers.contains(where: { $0.name.equalsIgnoringCase("cookie") }) {
            shown.headers += request.headers.filter { $0.name.equalsIgnoringCase("cookie") }
            listed.shown = shown
        }
        return RecordedExchange.Request(
            method: request.method.rawValue, url: request.shownURL, headers: listed.shownHeadersAsSent,
            body: request.shownBody.map { HARBody($0, mimeType: request.header("content-type")) })
    }

    private static func response(_ response: TransportResponse) -> RecordedExchange.Response {
        RecordedExchange.Response(
            status: response.status, httpVersion: response.httpVersion, headers: response.headers,
            body: HARBody(response.body, size: response.size, mimeType: response.header("content-type")))
    }
}
