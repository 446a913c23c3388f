import Foundation
import ReqPlanTransport

/// One exchange a run made on the wire, as `TrafficRecorder` kept it for the HAR report: a retry, a
/// poll and each redirect hop is one exchange of its own.
///
/// What is kept is what every output shows, not yet redacted by the textual net (a secret the run
/// learns later is hidden when the report is written, `HARLog`): the request as `PreparedRequest.shown`
/// has it, and bodies cut to `HARBody.kept` bytes, so a large run keeps a bounded amount per exchange.
public struct RecordedExchange: Sendable {
    /// The request as sent, as outputs show it.
    public struct Request: Sendable {
        /// The method.
        public var method: String
        /// The URL with its query, `***` where a secret went in.
        public var url: String
        /// The headers, `***` in values where a secret went in (names secret by name are hidden later).
        public var headers: [HeaderField]
        /// The body, cut.
        public var body: HARBody?

        /// Creates a request.
        public init(method: String, url: String, headers: [HeaderField], body: HARBody?) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    /// What came back.
    public struct Response: Sendable {
        /// The status.
        public var status: Int
        /// The protocol, when the client said (`HTTP/1.1`).
        public var httpVersion: String?
        /// The headers, in order, repeated ones repeated.
        public var headers: [HeaderField]
        /// The body, cut.
        public var body: HARBody

        /// Creates a response.
        public init(status: Int, httpVersion: String?, headers: [HeaderField], body: HARBody) {
            self.status = status
            self.httpVersion = httpVersion
            self.headers = headers
            self.body = body
        }
    }

    /// The step that made it (a sub-plan's steps as the graph names them).
    public var step: String
    /// The for_each item, if any.
    public var item: Int?
    /// The attempt of the step it belongs to (1 for the first; a redirect hop shares its attempt's).
    public var attempt: Int
    /// When it started (wall clock).
    public var started: Date
    /// How long it took.
    public var time: Duration
    /// Its phases, when the client measured them.
    public var phases: ExchangeTiming.Phases?
    /// The request.
    public var request: Request
    /// The response; nil when none came.
    public var response: Response?
    /// Why no response came (already through the textual net: the run's attempt error).
    public var error: String?

    /// Creates an exchange.
    public init(
        step: String, item: Int?, attempt: Int, started: Date, time: Duration, phases: ExchangeTiming.Phases?,
        request: Request, response: Response?, error: String?
    ) {
        self.step = step
        self.item = item
        self.attempt = attempt
        self.started = started
        self.time = time
        self.phases = phases
        self.request = request
        self.response = response
        self.error = error
    }
}
