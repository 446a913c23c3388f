import Foundation
import ReqPlanRuntime

/// Small plans whose runs the report tests describe; each ends in a known way whatever the timing.
struct Scenario: Sendable, CustomStringConvertible {
    var name: String
    var plan: String
    var inputs: [String: String] = [:]
    /// Cancel the run once a `hang=1` request is in flight, like Ctrl-C.
    var interrupt = false
    var expectedExitCode: Int32

    var description: String { name }

    /// A secret with characters that JSON, XML and URLs all encode.
    static let secret = #"s3cr3t "tok" <&> /+42"#

    func run() async throws -> ReportRun {
        try await runPlan(plan, file: "plans/\(name).yaml", inputs: inputs, cancelWhenHanging: interrupt)
    }

    static let all = [mixed, failures, planTimeout, interrupted]

    /// Every kind of step, members and items; a retry, a failed member, a skip by condition and by
    /// dependency; a secret input in a URL, a header and an output.
    static let mixed = Scenario(
        name: "mixed",
        plan: """
            reqplan: 1
            name: report-mixed
            inputs:
              token: { secret: true }
              region: { default: eu }
            defaults: { base_url: "http://test" }
            steps:
              login:
                request:
                  method: POST
                  url: /s/login
                  query: { token: "${{ inputs.token }}" }
                  headers: { Authorization: "Bearer ${{ inputs.token }}" }
              bootstrap:
                needs: [login]
                group:
                  config: { request: { url: "/s/config?region=${{ inputs.region }}" } }
                  flaky: { request: { url: "/s/flaky?fail=1" }, retry: { attempts: 2, backoff: 10ms } }
                  broken: { request: { url: "/s/broken?status=500" } }
              after_bootstrap:
                needs: [bootstrap]
                request: { url: /s/after }
              optional:
                if: ${{ inputs.region == 'us' }}
                request: { url: /s/optional }
              uploads:
                needs: [login]
                for_each: [{ id: a, status: 201 }, { id: b, status: 404 }, { id: c, status: 201 }]
                as: file
                request: { method: PUT, url: "/s/upload-${{ file.id }}?status=${{ file.status }}" }
                expect: { status: 201 }
              checkout:
                for_each: [x, y]
                as: sku
                group:
                  add: { request: { method: POST, url: "/s/add-${{ sku }}" } }
                  pay:
                    needs: [add]
                    request: { method: POST, url: "/s/pay-${{ sku }}", query: { token: "${{ inputs.token }}" } }
              steps_in_order:
                sequence:
                  first: { request: { url: /s/first } }
                  second: { request: { url: "/s/second?after=${{ steps.first.body.id }}" } }
            outputs:
              login_id: ${{ steps.login.body.id }}
              token_seen: ${{ steps.login.body.query.token }}
              upload_statuses: ${{ steps.uploads.results[*].status }}
            """, inputs: ["token": secret], expectedExitCode: 1)

    /// fail_fast cancelling a running and a waiting member, a group timeout, a request timeout, a
    /// for_each whose list is not a list, an `always()` cleanup, an output that cannot be evaluated.
    static let failures = Scenario(
        name: "failures",
        plan: """
            reqplan: 1
            name: report-failures
            defaults: { base_url: "http://test" }
            steps:
              guarded:
                on_failure: fail_fast
                group:
                  fails: { request: { url: "/s/fails?status=503&wait_for=/s/hangs" } }
                  hangs: { request: { url: "/s/hangs?hang=1" } }
                  later: { needs: [hangs], request: { url: /s/later } }
              slow:
                timeout: 1s
                group:
                  stuck: { request: { url: "/s/stuck?hang=1" } }
              bad_loop:
                for_each: ${{ from_json('3') }}
                request: { url: /s/never }
              cleanup:
                needs: [guarded]
                if: ${{ always() }}
                request: { url: /s/cleanup }
              too_slow:
                timeout: 50ms
                request: { url: "/s/too-slow?delay=5000" }
            outputs:
              broken: ${{ from_json('not json') }}
            """, expectedExitCode: 1)

    /// The plan's timeout: the running request is cancelled, its dependents never start.
    static let planTimeout = Scenario(
        name: "plan-timeout",
        plan: """
            reqplan: 1
            name: report-plan-timeout
            timeout: 1s
            defaults: { base_url: "http://test" }
            steps:
              quick: { request: { url: /s/quick } }
              stuck: { needs: [quick], request: { url: "/s/stuck?hang=1" } }
              never:
                needs: [stuck]
                for_each: [1, 2]
                request: { url: "/s/never-${{ item }}" }
            """, expectedExitCode: 1)

    /// Ctrl-C while a for_each runs: started items are cancelled, the rest never start.
    static let interrupted = Scenario(
        name: "interrupted",
        plan: """
            reqplan: 1
            name: report-interrupted
            defaults: { base_url: "http://test" }
            steps:
              quick: { request: { url: /s/quick } }
              items:
                needs: [quick]
                concurrency: 1
                for_each: [1, 2, 3]
                request: { url: "/s/item-${{ item }}?hang=1" }
              after: { needs: [items], request: { url: /s/after } }
            """, interrupt: true, expectedExitCode: 130)
}
