import Foundation
import ReqPlanDemoAPI
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanSyntax
import Synchronization
import ReqPlanTestSupport
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanTransport
@testable import ReqPlanRuntime

/// `poll:` against the demo API's long jobs (`POST /jobs`, `GET /jobs/{id}`) over the real transport.
@Suite(.timeSensitive) struct PollingTests {
    /// A plan that creates a job answering `running` to its first `polls` polls, then polls it with `poll`.
    static func jobPlan(polls: Int, outcome: String = "done", poll: String, expect: String = "") -> String {
        demoPlanHeader + """
            steps:
              create: { request: { method: POST, url: /jobs, json: { polls: \(polls), outcome: \(outcome) } } }
              wait:
                request: { url: "${{ steps.create.body.status_url }}" }
                poll: \(poll)
            \(expect.isEmpty ? "" : "    expect: \(expect)")
            """
    }

    @Test func pollsUntilTheConditionHoldsAndKeepsTheLastResponse() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(
                Self.jobPlan(
                    polls: 3, poll: "{ until: \"${{ response.body.state == 'done' }}\", every: 20ms, attempts: 10 }")
                    + "\noutputs:\n  state: ${{ steps.wait.body.state }}\n  url: ${{ steps.wait.body.result_url }}\n",
                baseURL: base)
            let wait = try #require(result.results["wait"])
            #expect(wait.state == .succeeded, "\(wait.reason?.message ?? "")")
            #expect(wait.attempts.map(\.poll) == [1, 2, 3, 4])
            #expect(wait.attempts.map(\.number) == [1, 2, 3, 4])
            #expect(wait.attempts.dropLast().allSatisfy { $0.retryDelay != nil }, "each poll but the last waited")
            #expect(wait.attempts.last?.retryDelay == nil)
            #expect(wait.polls == 4 && wait.triesText == "4 polls")
            #expect(result.outputs[0].value == .string("done"))
            #expect(result.outputs[1].value == .string("/jobs/1/result"))
        }
    }

    @Test func aPollThatNeverSatisfiesItsConditionFailsWithTimeoutAndTheLastValueSeen() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(
                Self.jobPlan(
                    polls: 1000, poll: "{ until: \"${{ response.body.state == 'done' }}\", every: 10ms, attempts: 3 }"),
                baseURL: base)
            let wait = try #require(result.results["wait"])
            #expect(wait.state == .failed)
            #expect(wait.reason?.kind == .timeout)
            let message = wait.reason?.message ?? ""
            #expect(message.hasPrefix("`until` did not hold after 3 polls"), "\(message)")
            #expect(message.hasSuffix(#"last response: 200, response.body.state = "running""#), "\(message)")
            #expect(wait.attempts.count == 3 && wait.status == 200)
            #expect(result.exitCode == 1)
        }
    }

    @Test func pollingTimeoutBoundsTheTimeOfAllPolls() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(
                Self.jobPlan(
                    polls: 1000,
                    poll: "{ until: \"${{ response.body.state != 'running' }}\", every: 100ms, timeout: 1s }"),
                baseURL: base, backoffScale: 1)
            let wait = try #require(result.results["wait"])
            #expect(wait.state == .failed && wait.reason?.kind == .timeout)
            let polls = wait.attempts.count
            let message = wait.reason?.message ?? ""
            #expect(message.hasPrefix("polling timed out after 1s (\(polls) poll"), "\(message)")
            if wait.attempts.contains(where: { $0.status == 200 }) {
                #expect(message.hasSuffix(#"last response: 200, response.body.state = "running""#), "\(message)")
            }
            // No poll starts after the bound.
            let first = try #require(wait.attempts.first?.start)
            #expect(wait.attempts.allSatisfy { $0.start - first < .seconds(1) })
        }
    }

    @Test func anErrorResponseFailsAtOnceUnlessTheConditionAcceptsIt() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      missing:
                        request: { url: /jobs/999 }
                        poll: { until: "${{ response.body.state == 'done' }}", every: 10ms, attempts: 5 }
                      deleted:
                        request: { url: /jobs/999 }
                        poll: { until: "${{ response.status == 404 }}", every: 10ms, attempts: 5 }
                      deleted_with_body_check:
                        request: { url: /jobs/999 }
                        poll: { until: "${{ response.status == 404 }}", every: 10ms, attempts: 5 }
                        expect: { body: { error: { contains: "does not exist" } } }
                    """, baseURL: base)
            let missing = try #require(result.results["missing"])
            #expect(missing.state == .failed && missing.reason?.kind == .expectation)
            #expect(missing.reason?.message == "expected status 2xx, got 404")
            #expect(missing.attempts.count == 1, "an error response ends polling at once")
            #expect(result.results["deleted"]?.state == .succeeded)
            #expect(result.results["deleted"]?.status == 404)
            #expect(result.results["deleted_with_body_check"]?.state == .succeeded)
        }
    }

    @Test func aJobThatEndsFailedStopsPollingAndExpectJudgesTheLastResponse() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(
                Self.jobPlan(
                    polls: 1, outcome: "failed",
                    poll: "{ until: \"${{ response.body.state != 'running' }}\", every: 10ms, attempts: 10 }",
                    expect: "{ body: { state: done } }"),
                baseURL: base)
            let wait = try #require(result.results["wait"])
            #expect(wait.attempts.count == 2)
            #expect(wait.state == .failed && wait.reason?.kind == .expectation)
            #expect(wait.reason?.message.contains("body `state`") == true, "\(wait.reason?.message ?? "")")
        }
    }

    @Test func aFailedPollIsRetriedByRetryAndPollingGoesOn() async throws {
        try await DemoAPI.withServer { base in
            let id = UUID().uuidString
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      retried:
                        request: { url: "/flaky/\(id)?fail=1" }
                        retry: { attempts: 2, backoff: 1ms, on: 5xx }
                        poll: { until: "${{ response.body.attempt >= 3 }}", every: 10ms, attempts: 5 }
                      not_retried:
                        request: { url: "/flaky/\(id)-b?fail=1" }
                        poll: { until: "${{ response.body.attempt >= 3 }}", every: 10ms, attempts: 5 }
                    """, baseURL: base)
            let retried = try #require(result.results["retried"])
            #expect(retried.state == .succeeded, "\(retried.reason?.message ?? "")")
            #expect(retried.attempts.map(\.status) == [503, 200, 200])
            #expect(retried.attempts.map(\.poll) == [1, 1, 2], "the 503 was retried within the first poll")
            #expect(retried.triesText == "2 polls, 3 attempts")
            let notRetried = try #require(result.results["not_retried"])
            #expect(notRetried.state == .failed && notRetried.attempts.count == 1)
        }
    }

    @Test func retryAfterOfAPollResponseReplacesTheWait() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      busy:
                        request: { url: "/status/200?retry_after=1" }
                        poll: { until: false, every: 10ms, attempts: 2 }
                    """, baseURL: base, backoffScale: 1)
            let busy = try #require(result.results["busy"])
            #expect(busy.attempts.first?.retryDelay == .seconds(1))
            #expect(busy.reason?.kind == .timeout)
        }
    }

    @Test func eachItemOfAForEachPollsItsOwnJobAndAPostPollsWithUnsafe() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      create:
                        for_each: [1, 3]
                        request: { method: POST, url: /jobs, json: { polls: "${{ item }}" } }
                        poll: { until: "${{ response.status == 202 }}", attempts: 1, unsafe: true }
                      wait:
                        for_each: ${{ steps.create.results[*].body.status_url }}
                        as: url
                        request: { url: "${{ url }}" }
                        poll: { until: "${{ response.body.state == 'done' }}", every: 10ms, timeout: 10s }
                    outputs:
                      polls: ${{ steps.wait.results[*].attempts }}
                    """, baseURL: base)
            #expect(result.exitCode == 0, "\(result.results.mapValues { $0.reason?.message ?? "" })")
            #expect(result.outputs[0].value == .list([.int(2), .int(4)]))
        }
    }

    @Test func theLiveProgressShowsThePollCount() async throws {
        try await DemoAPI.withServer { base in
            let graph = try makeGraph(
                Self.jobPlan(
                    polls: 2, poll: "{ until: \"${{ response.body.state == 'done' }}\", every: 10ms, attempts: 10 }"
                )
                .replacingOccurrences(of: "BASE_URL", with: base))
            let lines = Mutex<[String]>([])
            let progress = LiveProgress(graph: graph, mode: .lines, colors: false) {
                text in lines.withLock { $0.append(text) }
            }
            let result = try await HTTPClientTransport.with(.init()) { client in
                var configuration = RunConfiguration(files: FileAccess(planDirectory: URL(fileURLWithPath: "/tmp")))
                configuration.backoffScale = 0.05
                return await Executor(
                    graph: graph, transport: client, inputs: RunInputs(values: [:], environment: [:]),
                    configuration: configuration, observer: progress
                ).run()
            }
            #expect(result.exitCode == 0)
            let wait = lines.withLock { $0 }.first { $0.contains(" wait ") }
            #expect(wait?.contains("(3 polls)") == true, "\(wait ?? "no line for `wait`")")
            #expect(result.summaryText(graph: graph).contains("(3 polls)"))
        }
    }

    @Test(arguments: [
        (PollInterval.fixed(PlanDuration(milliseconds: 250)), [250, 250, 250, 250]),
        (
            .backoff(initial: PlanDuration(milliseconds: 100), factor: 2, max: PlanDuration(milliseconds: 500)),
            [100, 200, 400, 500]
        ),
        (
            .backoff(initial: PlanDuration(milliseconds: 100), factor: 1.5, max: PlanDuration(milliseconds: 10_000)),
            [100, 150, 225, 337]
        ),
    ])
    func theWaitBeforeEachPollFollowsEvery(interval: PollInterval, waits: [Int]) {
        #expect((2...5).map { Int(interval.wait(before: $0).milliseconds) } == waits)
    }
}
