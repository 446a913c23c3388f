import Foundation
import ReqPlanDemoAPI
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

@testable import ReqPlanRuntime

/// Runs a plan against a real demo API on loopback over the production transport.
func runAgainstDemo(
    _ yaml: String, baseURL: String, transport: HTTPClientTransport.Configuration = .init(),
    planDirectory: URL = URL(fileURLWithPath: NSTemporaryDirectory()), backoffScale: Double = 0.05,
    observer: any ExecutionObserver = NoObserver()
) async throws -> RunResult {
    let graph = try makeGraph(yaml.replacingOccurrences(of: "BASE_URL", with: baseURL))
    var configuration = RunConfiguration(files: FileAccess(planDirectory: planDirectory))
    configuration.backoffScale = backoffScale
    return try await HTTPClientTransport.with(transport) { client in
        let executor = Executor(graph: graph, transport: client, inputs: RunInputs(values: [:], environment: [:]),
                                configuration: configuration, observer: observer)
        return await executor.run()
    }
}

/// The start of a plan against the demo API (`BASE_URL` is replaced by its address).
let demoPlanHeader = """
    reqplan: 1
    defaults: { base_url: "BASE_URL" }

    """

@Suite(.serialized) struct DemoIntegrationTests {
    @Test func fanOutFanInOverLoopback() async throws {
        try await DemoAPI.withServer { base in
            let start = ContinuousClock.now
            let result = try await runAgainstDemo(demoPlanHeader + """
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
            let result = try await runAgainstDemo(demoPlanHeader + """
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
            let result = try await runAgainstDemo(demoPlanHeader + """
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
            let result = try await runAgainstDemo(demoPlanHeader + """
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

    @Test func requestTimeoutFailsWithTimeoutReason() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(demoPlanHeader + """
                steps:
                  slow: { timeout: 200ms, request: { url: /delay/5000 } }
                  slow_body: { timeout: 300ms, request: { url: /slow-body } }
                """, baseURL: base)
            #expect(result.results["slow"]?.state == .failed)
            #expect(result.results["slow"]?.reason?.kind == .timeout)
            #expect(result.results["slow"]?.reason?.message.contains("timed out after 200ms") == true)
            #expect(result.results["slow_body"]?.reason?.kind == .timeout)
        }
    }

    @Test func groupAndPlanTimeouts() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(demoPlanHeader + """
                timeout: 2s
                steps:
                  g:
                    timeout: 200ms
                    group:
                      slow: { request: { url: /delay/5000 } }
                  forever: { request: { url: /delay/10000 } }
                """, baseURL: base)
            #expect(result.results["g"]?.reason?.kind == .timeout)
            #expect(result.results["slow"]?.state == .cancelled)
            #expect(result.timedOut)
            #expect(result.results["forever"]?.state == .cancelled)
            #expect(result.results["forever"]?.reason?.message == "the plan timed out after 2s")
            #expect(result.duration < .seconds(9), "the 10 s request did not hold the run up")
        }
    }

    @Test func failFastCancelsRunningSiblings() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(demoPlanHeader + """
                on_failure: fail_fast
                steps:
                  slow: { request: { url: /delay/30000 } }
                  bad: { request: { url: /status/500 } }
                """, baseURL: base)
            #expect(result.results["slow"]?.state == .cancelled)
            #expect(result.duration < .seconds(20), "the 30 s request was cancelled, not awaited")
        }
    }

    @Test func transportFailuresNameHostAndCause() async throws {
        try await DemoAPI.withServer { base in
            var small = HTTPClientTransport.Configuration()
            small.maxBodySize = 1 << 20
            let result = try await runAgainstDemo(demoPlanHeader + """
                steps:
                  refused: { request: { url: "http://127.0.0.1:1/nothing" } }
                  reset: { request: { url: /reset } }
                  huge: { request: { url: "/huge?mb=8" } }
                  invalid: { request: { url: /invalid-json }, expect: { body: { ok: { exists: true } } } }
                """, baseURL: base, transport: small)
            #expect(result.results["refused"]?.reason?.kind == .transport)
            #expect(result.results["refused"]?.reason?.message.contains("127.0.0.1:1") == true)
            #expect(result.results["reset"]?.state == .failed)
            #expect(result.results["reset"]?.reason?.kind == .transport)
            #expect(result.results["huge"]?.reason?.kind == .bodyTooLarge)
            #expect(result.results["invalid"]?.reason?.kind == .expectation)
        }
    }

    @Test func requestsAreBuiltAsWritten() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reqplan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("file-bytes".utf8).write(to: directory.appendingPathComponent("a.txt"))
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(demoPlanHeader.replacingOccurrences(of: "defaults: {", with: "defaults: { headers: { X-Default: d, X-Over: default },") + """
                steps:
                  query:
                    request:
                      url: /echo
                      query: { q: "a b&c=d/é", tag: [x, y] }
                      headers: { X-Over: mine }
                  form: { request: { method: POST, url: /echo, form: { name: "a b", n: 3 } } }
                  json: { request: { method: POST, url: /echo, json: { n: 3, list: [true, null] } } }
                  multipart:
                    request:
                      method: POST
                      url: /echo
                      multipart:
                        note: hello
                        file: { file: a.txt, content_type: text/plain }
                outputs:
                  query: ${{ steps.query.body.query }}
                  headers: ${{ steps.query.body.headers }}
                  form: ${{ steps.form.body.body.text }}
                  json: ${{ steps.json.body.body.text }}
                  multipart: ${{ steps.multipart.body.body.text }}
                """, baseURL: base, planDirectory: directory)
            #expect(result.exitCode == 0, "\(result.results.mapValues { $0.reason?.message ?? "" })")
            let outputs = Dictionary(result.outputs.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
            let raw = outputs["query"]?["raw"] ?? outputs["query"] ?? .null
            #expect(raw.interpolated.contains("q=a%20b%26c%3Dd%2F%C3%A9&tag=x&tag=y"))
            let headers = outputs["headers"]?.jsonText() ?? ""
            #expect(headers.contains("x-default"))
            #expect(headers.contains("mine"))
            #expect(!headers.contains("\"default\""))
            #expect(outputs["form"]?.interpolated == "name=a+b&n=3")
            #expect(outputs["json"]?.interpolated == #"{"n":3,"list":[true,null]}"#)
            let multipart = outputs["multipart"]?.interpolated ?? ""
            #expect(multipart.contains("name=\"note\""))
            #expect(multipart.contains("filename=\"a.txt\""))
            #expect(multipart.contains("file-bytes"))
        }
    }

    @Test func filesOutsideThePlanFolderAreRefused() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(demoPlanHeader + """
                steps:
                  up: { request: { method: POST, url: /echo, body_file: ../../../../etc/hostname } }
                """, baseURL: base)
            #expect(result.results["up"]?.state == .failed)
            #expect(result.results["up"]?.reason?.message.contains("outside the plan's folder") == true)
        }
    }
}

/// The HTTP version the demo API saw a request arrive over.
private func httpVersion(at base: String, transport: HTTPClientTransport.Configuration = .init()) async throws
    -> String?
{
    let echo = try await runAgainstDemo(demoPlanHeader + """
        steps:
          echo: { request: { url: /echo } }
        outputs:
          protocol: ${{ steps.echo.body.protocol }}
        """, baseURL: base, transport: transport)
    guard case .string(let version)? = echo.outputs.first?.value else { return nil }
    return version
}

@Suite(.serialized) struct DemoTransportTests {
    @Test func redirectsAreFollowedUpToTheLimit() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(demoPlanHeader + """
                steps:
                  few: { request: { url: /redirect/3 }, expect: { body: { redirected: true } } }
                  many: { request: { url: /redirect/20 } }
                """, baseURL: base)
            #expect(result.results["few"]?.state == .succeeded)
            #expect(result.results["many"]?.state == .failed)
            #expect(result.results["many"]?.reason?.message.contains("too many redirects") == true)
        }
    }

    @Test func certificatesAreVerifiedUnlessInsecure() async throws {
        try await DemoAPI.withServer(tls: true) { base in
            let plan = """
                reqplan: 1
                defaults: { base_url: "BASE_URL" }
                steps:
                  home: { retry: 3, request: { url: /home } }
                """
            let strict = try await runAgainstDemo(plan, baseURL: base)
            let failed = try #require(strict.results["home"])
            #expect(failed.state == .failed)
            #expect(failed.reason?.kind == .transport)
            #expect(failed.reason?.message.contains("TLS") == true, "\(failed.reason?.message ?? "")")
            #expect(failed.attempts.count == 1, "a certificate failure is not retried")
            var insecure = HTTPClientTransport.Configuration()
            insecure.verifyCertificates = false
            let relaxed = try await runAgainstDemo(plan, baseURL: base, transport: insecure)
            #expect(relaxed.results["home"]?.state == .succeeded, "\(relaxed.results["home"]?.reason?.message ?? "")")
            // Over TLS the client and the server agree on HTTP/2 through ALPN.
            let version = try await httpVersion(at: base, transport: insecure)
            #expect(version == "HTTP/2")
        }
    }

    @Test func plainHTTPUsesHTTP11() async throws {
        try await DemoAPI.withServer { base in
            let version = try await httpVersion(at: base)
            #expect(version == "HTTP/1.1")
        }
    }

    @Test func compressedResponsesAreDecompressed() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(demoPlanHeader + """
                steps:
                  zipped: { request: { url: /gzip }, expect: { body: { compressed: true } } }
                outputs:
                  length: ${{ length(steps.zipped.body.text) }}
                """, baseURL: base)
            #expect(result.results["zipped"]?.state == .succeeded, "\(result.results["zipped"]?.reason?.message ?? "")")
            #expect(result.outputs[0].value == .int(8 * 64))
        }
    }

    @Test func rawBodiesAndFilesAreSentAsWritten() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reqplan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data([0, 1, 2, 255]).write(to: directory.appendingPathComponent("blob.bin"))
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(demoPlanHeader + """
                steps:
                  raw: { request: { method: PUT, url: /echo, body: "line one\\nline ${{ 1 == 1 }}", headers: { Content-Type: text/csv } } }
                  file: { request: { method: POST, url: /echo, body_file: blob.bin } }
                outputs:
                  raw: ${{ steps.raw.body.body.text }}
                  type: ${{ steps.raw.body.headers }}
                  file: ${{ steps.file.body.body.base64 }}
                """, baseURL: base, planDirectory: directory)
            #expect(result.exitCode == 0)
            #expect(result.outputs[0].value == .string("line one\nline true"))
            #expect(result.outputs[1].value.jsonText().contains("text/csv"))
            #expect(result.outputs[2].value == .string("AAEC/w=="))
        }
    }
}

@Suite struct BackoffTests {
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
