import Foundation
import ReqPlanDemoAPI
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanTransport
@testable import ReqPlanRuntime

/// Runs a plan against a real demo API on loopback over the production transport.
func runAgainstDemo(
    _ yaml: String, baseURL: String, transport: HTTPClientTransport.Configuration = .init(),
    planDirectory: URL = URL(fileURLWithPath: NSTemporaryDirectory()), backoffScale: Double = 0.05,
    observer: any ExecutionObserver = NoObserver()
) async throws -> RunResult {
    try await HTTPClientTransport.with(transport) { client in
        try await runPlan(
            yaml, baseURL: baseURL, over: client, planDirectory: planDirectory,
            backoffScale: backoffScale, observer: observer)
    }
}

/// Runs a plan over `transport` (`BASE_URL` in the plan is replaced by `baseURL`).
func runPlan(
    _ yaml: String, baseURL: String, over transport: any Transport,
    planDirectory: URL = URL(fileURLWithPath: NSTemporaryDirectory()), backoffScale: Double = 0.05,
    observer: any ExecutionObserver = NoObserver()
) async throws -> RunResult {
    let graph = try makeGraph(yaml.replacingOccurrences(of: "BASE_URL", with: baseURL))
    var configuration = RunConfiguration(files: FileAccess(planDirectory: planDirectory))
    configuration.backoffScale = backoffScale
    let executor = Executor(
        graph: graph, transport: transport, inputs: RunInputs(values: [:], environment: [:]),
        configuration: configuration, observer: observer)
    return await executor.run()
}

/// The start of a plan against the demo API (`BASE_URL` is replaced by its address).
let demoPlanHeader = """
    reqplan: 1
    defaults: { base_url: "BASE_URL" }

    """

@Suite(.serialized, .timeSensitive) struct DemoIntegrationTests {
    @Test func fanOutFanInOverLoopback() async throws {
        try await DemoAPI.withServer { base in
            let start = ContinuousClock.now
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      login: { request: { method: POST, url: /login, json: { user: alice } } }
                      bootstrap:
                        group:
                          config: { request: { url: /config, headers: { X-Session: "${{ steps.login.body.token }}" } } }
                          slow_a: { request: { url: /delay/300 } }
                          slow_b: { request: { url: /delay/300 } }
                      home: { needs: [bootstrap], request: { url: /home } }
                    outputs:
                      token: ${{ steps.login.body.token }}
                      session: ${{ steps.config.body.session }}
                    """, baseURL: base)
            _ = start
            #expect(result.exitCode == 0, "\(result.results.mapValues { $0.reason?.message ?? "" })")
            #expect(result.outputs[0].value != .null)
            // The two 300 ms requests ran together: each started before the other ended.
            let a = try #require(result.results["slow_a"])
            let b = try #require(result.results["slow_b"])
            #expect((a.start ?? .zero) < (b.end ?? .zero) && (b.start ?? .zero) < (a.end ?? .zero))
            let homeStart = try #require(result.results["home"]?.start)
            let groupEnd = try #require(result.results["bootstrap"]?.end)
            #expect(homeStart >= groupEnd - .milliseconds(1))
        }
    }

    @Test func forEachResultsKeepInputOrderOverTheNetwork() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      each:
                        for_each: [300, 200, 100, 0]
                        request: { url: "/delay/${{ item }}" }
                    outputs:
                      delays: ${{ steps.each.results[*].body.delayed_ms }}
                    """, baseURL: base)
            #expect(result.exitCode == 0)
            #expect(result.outputs[0].value == .list([.int(300), .int(200), .int(100), .int(0)]))
            let ends = result.results["each"]?.children?.compactMap(\.end) ?? []
            #expect(ends.count == 4)
            // The 0 ms item finished well before the 300 ms one (exact order of the middle ones
            // depends on how fast a loaded machine opens the four connections).
            #expect(ends.count == 4 && ends[3] < ends[0], "a later item finished first: \(ends)")
        }
    }

    @Test func groupErrorsListEveryFailedMemberInOrder() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      widgets:
                        group:
                          ok: { request: { url: /status/200 } }
                          broken: { request: { url: /status/500 } }
                          missing: { request: { url: /status/404 } }
                    outputs:
                      failed: ${{ steps.widgets.errors[*].step }}
                      statuses: ${{ steps.widgets.errors[*].status }}
                    """, baseURL: base)
            #expect(result.exitCode == 1)
            #expect(result.outputs[0].value == .list([.string("broken"), .string("missing")]))
            #expect(result.outputs[1].value == .list([.int(500), .int(404)]))
        }
    }

    @Test func retriesHonourRetryAfter() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      flaky:
                        retry: { attempts: 5, backoff: 10ms }
                        request: { url: "/flaky/retry-after-test?fail=2&retry_after=2" }
                    """, baseURL: base, backoffScale: 0.05)
            let flaky = try #require(result.results["flaky"])
            #expect(flaky.state == .succeeded)
            #expect(flaky.attempts.map(\.status) == [503, 503, 200])
            // Retry-After: 2 s, scaled by 0.05 in tests.
            #expect(flaky.attempts[0].retryDelay == .milliseconds(100))
        }
    }

    @Test func groupAndPlanTimeouts() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    timeout: 2s
                    steps:
                      g:
                        timeout: 200ms
                        group:
                          slow: { request: { url: /delay/5000 } }
                      forever: { request: { url: /delay/30000 } }
                    """, baseURL: base)
            #expect(result.results["g"]?.reason?.kind == .timeout)
            #expect(result.results["slow"]?.state == .cancelled)
            #expect(result.timedOut)
            #expect(result.results["forever"]?.state == .cancelled)
            #expect(result.results["forever"]?.reason?.message == "the plan timed out after 2s")
            #expect(result.duration < .seconds(30), "the 30 s request did not hold the run up")
        }
    }

    @Test func failFastCancelsRunningSiblings() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    on_failure: fail_fast
                    steps:
                      slow: { request: { url: /delay/30000 } }
                      bad: { request: { url: /status/500 } }
                    """, baseURL: base)
            #expect(result.results["slow"]?.state == .cancelled)
            #expect(result.duration < .seconds(30), "the 30 s request was cancelled, not awaited")
        }
    }

    @Test func filesOutsideThePlanFolderAreRefused() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      up: { request: { method: POST, url: /echo, body_file: ../../../../etc/hostname } }
                    """, baseURL: base)
            #expect(result.results["up"]?.state == .failed)
            #expect(result.results["up"]?.reason?.message.contains("outside the plan's folder") == true)
        }
    }
}

@Suite(.timeSensitive) struct BackoffTests {
    @Test func fullJitterStaysUnderTheExponentialCeiling() {
        for attempt in 1...8 {
            let ceiling = min(Duration.seconds(2), .milliseconds(100) * (1 << (attempt - 1)))
            for _ in 0..<50 {
                let delay = Executor.backoff(attempt: attempt, base: .milliseconds(100), cap: .seconds(2))
                #expect(delay >= .zero && delay <= ceiling)
            }
        }
    }

    @Test func retryAfterAcceptsSecondsAndDates() {
        #expect(Executor.retryAfter("3") == .seconds(3))
        #expect(Executor.retryAfter("soon") == nil)
        let future = Date().addingTimeInterval(60)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        let delay = Executor.retryAfter(formatter.string(from: future)) ?? .zero
        #expect(delay > .seconds(55) && delay <= .seconds(60))
    }
}
