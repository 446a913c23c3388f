import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import Synchronization
import Testing

@testable import ReqPlanRuntime

/// A transport test double for scheduling properties (no network): answers from the URL.
///
/// The path `/s/<id>` answers 200 with `{"id": "<id>", "query": {...}}`. Query parameters steer it:
/// `delay=<ms>` waits first, `status=<code>` answers that status, `fail=<n>` answers 503 to the
/// first n requests of that path, `retry_after=<s>` adds a Retry-After header, `hang=1` waits
/// until cancelled or timed out. Every request's start and end are recorded with a logical clock.
final class ScriptedTestTransport: Transport {
    struct Event: Sendable {
        var sequence: Int
        var path: String
        var url: String
        var isStart: Bool
        var inFlight: Int
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

    var events: [Event] { state.withLock { $0.events } }
    var requests: [PreparedRequest] { state.withLock { $0.requests } }
    var peakInFlight: Int { state.withLock { $0.peakInFlight } }
    func count(_ path: String) -> Int { state.withLock { $0.counts[path] ?? 0 } }

    func send(_ request: PreparedRequest, timeout: Duration?) async throws(TransportError) -> TransportResponse {
        let components = URLComponents(string: request.url)
        let path = components?.path ?? request.url
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let attempt = state.withLock { state -> Int in
            state.clock += 1
            state.inFlight += 1
            state.peakInFlight = max(state.peakInFlight, state.inFlight)
            state.counts[path, default: 0] += 1
            state.requests.append(request)
            state.events.append(Event(sequence: state.clock, path: path, url: request.url, isStart: true,
                                      inFlight: state.inFlight))
            return state.counts[path] ?? 1
        }
        defer {
            state.withLock { state in
                state.clock += 1
                state.inFlight -= 1
                state.events.append(Event(sequence: state.clock, path: path, url: request.url, isStart: false,
                                          inFlight: state.inFlight))
            }
        }
        var wait: Duration? = query["delay"].flatMap(Int.init).map { .milliseconds($0) }
        if query["hang"] != nil { wait = .seconds(3600) }
        if let wait {
            let limit = timeout.map { min($0, wait) } ?? wait
            do {
                try await Task.sleep(for: limit)
            } catch {
                throw TransportError(.cancelled, "cancelled")
            }
            if let timeout, timeout < wait {
                throw TransportError(.timeout, "request to test timed out after \(timeout)")
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

/// Builds the DAG of a plan written in a test.
func makeGraph(_ yaml: String) throws -> PlanGraph {
    let report = PlanValidator.validate(SourceFile(path: "test.yaml", text: yaml))
    guard let graph = report.graph, report.errorCount == 0 else {
        let renderer = DiagnosticRenderer(files: [report.source].compactMap { $0 })
        Issue.record("the test plan is invalid:\n\(renderer.text(report.diagnostics))")
        throw TestPlanError.invalid
    }
    return graph
}

enum TestPlanError: Error {
    case invalid
}

/// Runs a plan written in a test over `transport`.
func run(
    _ yaml: String, transport: any Transport, inputs: [String: Value] = [:], concurrency: Int? = nil,
    observer: any ExecutionObserver = NoObserver()
) async throws -> RunResult {
    let graph = try makeGraph(yaml)
    var configuration = RunConfiguration(concurrency: concurrency,
                                         files: FileAccess(planDirectory: URL(fileURLWithPath: NSTemporaryDirectory())))
    configuration.backoffScale = 0.01
    let executor = Executor(graph: graph, transport: transport,
                            inputs: RunInputs(values: inputs, environment: [:]), configuration: configuration,
                            observer: observer)
    return await executor.run()
}

/// The header every test plan starts with: a base URL the scripted transport answers.
let planHeader = """
    reqplan: 1
    defaults: { base_url: "http://test" }

    """
