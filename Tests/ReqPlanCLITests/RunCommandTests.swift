import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// End-to-end tests of `reqplan run` (and `reqplan demo`): the built binary against the demo API,
/// started in-process on a free loopback port, one server per test so tests can run in parallel.
@Suite(.timeSensitive) struct RunCommandTests {
    /// The environment the example plans read their secrets from.
    static let demoEnvironment = [
        "DEMO_TOKEN": "demo-secret-token", "DEMO_PASSWORD": "demo-password", "DEMO_API_KEY": "demo-api-key",
    ]

    static let examplePlans = (try? CommandRunner.examplePlans()) ?? []

    // MARK: Every example plan

    @Test func everyExamplePlanHasExpectedResults() {
        #expect(!Self.examplePlans.isEmpty)
        #expect(Set(Self.examplePlans) == Set(Self.expectations.keys))
    }

    @Test(arguments: examplePlans)
    func examplePlanRunsAgainstTheDemoAPI(plan: String) async throws {
        let expected = try #require(Self.expectations[plan], "no expected results for \(plan)")
        try await DemoAPI.withServer { base in
            let result = try await CommandRunner.run(
                ["run", plan, "--input", "base_url=\(base)"] + expected.inputs().flatMap { ["--input", $0] },
                environment: Self.demoEnvironment, within: .seconds(30))
            #expect(!result.killedAfterTimeout && !result.uncaughtSignal)
            #expect(result.status == expected.status, "\(result.stdout)\(result.stderr)")
            let summary = RunSummary(result.stdout)
            let totals = try #require(summary.totals, "no totals line in\n\(result.stdout)")
            #expect(totals.hasPrefix("\(summary.order.count) steps: "), "one line per step")
            #expect(!totals.contains("(interrupted)") && !totals.contains("(timed out)"))
            if expected.status == 0 {
                #expect(summary.ids(withSymbol: "✗").isEmpty && summary.ids(withSymbol: "⊘").isEmpty)
                #expect(!result.stderr.contains("error["), "\(result.stderr)")
            }
            try expected.check(summary, result)
        }
    }

    struct Expectation: Sendable {
        var status: Int32
        /// Extra `--input`s, computed for each run.
        var inputs: @Sendable () -> [String] = { [] }
        var check: @Sendable (RunSummary, CommandRunner.Output) throws -> Void
    }

    /// What each example plan does against the demo API.
    static let expectations: [String: Expectation] = [
        "plans/app-launch.yaml": Expectation(status: 0) { summary, _ in
            #expect(summary.order.count == 10)
            #expect(summary.ids(withSymbol: "✓").count == 10)
            #expect(summary.outputs["theme"] == #""dark""#)
            let urls = try summary.output([String].self, "image_urls")
            #expect(urls.isUploaded(["a.png", "b.png", "c.png"]), "\(urls)")
            #expect(summary.outputs["errors"] == "[]")
        },
        "plans/account-report.yaml": Expectation(status: 0) { summary, result in
            #expect(summary.order == ["login", "login/form", "login/submit", "account", "preferences"])
            #expect(summary.ids(withSymbol: "✓").count == 5)
            #expect(summary.steps["login/form"]?.text.hasPrefix("  ✓ login/form") == true, "nested under its step")
            #expect(summary.outputs["user"] == #""carol""#)
            #expect(summary.outputs["plan"] == #""pro""#)
            #expect(summary.outputs["theme"] == #""solarized""#)
            #expect(!result.stdout.contains("rp.carol."), "the session token is a secret output of the sub-plan")
        },
        "plans/signed-in-home.yaml": Expectation(status: 0) { summary, result in
            #expect(summary.order == ["login", "login/form", "login/submit", "screens", "config", "home", "logout"])
            #expect(summary.ids(withSymbol: "✓").count == 7)
            #expect(summary.outputs["user"] == #""dana""#)
            #expect(summary.outputs["session"] == #""***""#)
            #expect(!result.stdout.contains("rp.dana."))
        },
        "plans/auth.yaml": Expectation(status: 0) { summary, result in
            #expect(summary.ids(withSymbol: "✓") == ["basic", "form", "login", "account"])
            #expect(summary.outputs["plan"] == #""pro""#)
            #expect(summary.outputs["quota_left"] == "7")
            #expect(summary.outputs["csrf_field"] == #""csrf""#)
            #expect(!result.stdout.contains("demo-password") && !result.stderr.contains("demo-password"))
        },
        "plans/batch-upload.yaml": Expectation(status: 0) { summary, _ in
            let names = ["a.png", "b.png", "c.png", "d.png", "e.png"]
            let urls = try summary.output([String].self, "image_urls")
            #expect(urls.isUploaded(names), "\(urls)")
            let statuses = try summary.output([Int].self, "statuses")
            #expect(statuses == [201, 201, 201, 201, 201])
            #expect(summary.outputs["upload_errors"] == "[]")
            #expect(summary.steps["uploads"]?.text.contains("5/5 items") == true)
        },
        "plans/bounded-concurrency.yaml": Expectation(status: 0) { summary, _ in
            #expect(summary.ids(withSymbol: "✓").count == summary.order.count)
            let statuses = try summary.output([Int].self, "warmed_statuses")
            #expect(statuses == Array(repeating: 200, count: 12))
        },
        "plans/checkout-sequence.yaml": Expectation(status: 0) { summary, _ in
            let orderID = try summary.output(String.self, "order_id")
            #expect(orderID.wholeMatch(of: #/order-[0-9]+/#) != nil, "\(orderID)")
            #expect(summary.outputs["checkout_state"] == #""succeeded""#)
            let states = try summary.output([String].self, "product_states")
            #expect(states == ["succeeded", "succeeded", "succeeded"])
        },
        "plans/conditional-steps.yaml": Expectation(status: 0) { summary, _ in
            #expect(summary.ids(withSymbol: "-") == ["maintenance_banner"])
            #expect(summary.steps["maintenance_banner"]?.text.contains("its `if` is false") == true)
            #expect(summary.totals?.contains("6 succeeded, 1 skipped") == true)
            #expect(summary.outputs["banner_shown"] == "false")
            #expect(summary.steps["cleanup"]?.symbol == "✓" && summary.steps["logout"]?.symbol == "✓")
        },
        "plans/data-flow.yaml": Expectation(status: 0) { summary, _ in
            #expect(summary.outputs["renamed"] == "true")
            #expect(summary.outputs["name"] == #""Demo item (renamed)""#)
            #expect(summary.ids(withSymbol: "✓") == ["login", "create", "fetch", "rename", "verify"])
        },
        "plans/fail-fast.yaml": Expectation(status: 0, inputs: { ["run_id=\(UUID().uuidString)"] }) { summary, _ in
            #expect(summary.outputs["inventory_attempts"] == "3")
            #expect(summary.steps["flaky_inventory"]?.text.contains("(3 attempts)") == true)
            #expect(summary.outputs["preflight"] == #""succeeded""#)
            #expect(summary.outputs["checked_out"] == "true")
        },
        "plans/fan-out-fan-in.yaml": Expectation(status: 0) { summary, _ in
            #expect(summary.outputs["theme"] == #""dark""#)
            #expect(summary.outputs["home_status"] == "200")
            #expect(summary.steps["home"]?.symbol == "✓")
        },
        "plans/job-polling.yaml": Expectation(status: 0) { summary, _ in
            #expect(summary.ids(withSymbol: "✓").count == 5)
            #expect(summary.outputs["polls"] == "4")
            #expect(summary.steps["wait_for_job"]?.text.contains("(4 polls)") == true)
            #expect(summary.outputs["doomed_state"] == #""failed""#)
        },
        "plans/partial-failure.yaml": Expectation(status: 1) { summary, result in
            #expect(summary.ids(withSymbol: "✗") == ["widgets", "recommendations"])
            #expect(summary.ids(withSymbol: "-") == ["home"])
            #expect(summary.steps["home"]?.text.contains("dependency `widgets` failed") == true)
            #expect(summary.ids(withSymbol: "✓") == ["login", "profile", "inbox", "home_degraded", "logout"])
            #expect(summary.steps["recommendations"]?.text.contains("GET → 500") == true)
            #expect(summary.outputs["widgets_state"] == #""failed""#)
            #expect(summary.outputs["recommendations_attempts"] == "2")
            // The failure is rendered as a diagnostic pointing at the step in the plan.
            let (line, column) = try location(of: "recommendations:", in: "plans/partial-failure.yaml")
            #expect(
                result.stderr.contains("error[RP0512]: step `recommendations` failed: expected status 2xx, got 500"))
            #expect(result.stderr.contains("--> plans/partial-failure.yaml:\(line):\(column)"), "\(result.stderr)")
            #expect(result.stderr.components(separatedBy: "error[").count == 2, "exactly one error: \(result.stderr)")
        },
    ]

    // MARK: Nothing is sent when the plan or its inputs are wrong

    static let invalidPlan = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
        defaults: { base_url: "${{ inputs.base_url }}" }
        steps:
          ok: { request: { url: /config } }
          a:
            need: [ok]
            request: { url: "/a/${{ steps.nope.body }}" }
        """

    @Test func invalidPlanExitsTwoWithTheValidatorsDiagnosticsAndSendsNothing() async throws {
        let file = try CommandRunner.temporaryPlan(Self.invalidPlan)
        try await DemoAPI.withServer { base in
            let result = try await CommandRunner.run(
                ["run", file.path, "--input", "base_url=\(base)"],
                within: .seconds(30))
            #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("error[RP0101]: unknown key `need` in step `a`"))
            #expect(result.stderr.contains("--> \(file.path):8:5"))
            #expect(result.stderr.contains("error[RP0203]: unknown step `nope`"))
            // The same diagnostics, rendered the same way, as `validate` prints.
            let validation = try await CommandRunner.run(["validate", file.path], within: .seconds(30))
            #expect(validation.status == 1)
            #expect(
                !result.stderr.isEmpty && validation.stdout.hasPrefix(result.stderr),
                "run:\n\(result.stderr)\nvalidate:\n\(validation.stdout)")
            #expect(try await DemoRequests.probe(base) == 1, "the demo API received a request")
        }
    }

    static let typedPlan = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
          n: { type: number, default: 1 }
          who: { type: string }
        defaults: { base_url: "${{ inputs.base_url }}" }
        steps:
          a: { request: { url: "/delay/${{ inputs.n }}", query: { who: "${{ inputs.who }}" } } }
        """

    @Test func badInputsExitTwoAndSendNothing() async throws {
        let file = try CommandRunner.temporaryPlan(Self.typedPlan)
        let (whoLine, whoColumn) = try location(of: "who:", in: file.path)
        let cases: [(inputs: [String], messages: [String])] = [
            (["who=x", "nope=1"], ["error[RP0501]: --input `nope` is not declared by the plan"]),
            (["who=x", "n=abc"], ["error[RP0501]: --input `n` must be a number, got `abc`"]),
            (["who=x", "n"], ["error[RP0501]: --input `n` is not of the form name=value"]),
            ([], ["error[RP0502]: input `who` has no value", "--> \(file.path):\(whoLine):\(whoColumn)"]),
        ]
        try await DemoAPI.withServer { base in
            for (inputs, messages) in cases {
                let arguments = ["run", file.path, "--input", "base_url=\(base)"] + inputs.flatMap { ["--input", $0] }
                let result = try await CommandRunner.run(arguments, within: .seconds(30))
                #expect(result.status == 2, "\(inputs): \(result.stdout)\(result.stderr)")
                #expect(result.stdout.isEmpty, "\(inputs)")
                for message in messages { #expect(result.stderr.contains(message), "\(inputs): \(result.stderr)") }
            }
            // Sanity check that the plan does send its request once its inputs are right.
            let good = try await CommandRunner.run(
                ["run", file.path, "--input", "base_url=\(base)", "--input", "who=x"], within: .seconds(30))
            #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
            #expect(try await DemoRequests.probe(base) == 2, "only the good run reached the demo API")
        }
    }

    // MARK: Exit codes 0 and 1

    static let conditionalPlan = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
          status: { type: number, default: 200 }
        defaults: { base_url: "${{ inputs.base_url }}" }
        steps:
          a:
            request: { url: "/status/${{ inputs.status }}" }
            expect: { status: 200 }
          b:
            if: ${{ steps.a.status == 418 }}
            request: { url: /config }
          c: { needs: a, request: { url: /home } }
          d: { needs: b, request: { url: /home } }
        outputs:
          a_status: ${{ steps.a.status }}
          b_state: ${{ steps.b.state }}
        """

    @Test func skippedOnlyByItsOwnIfExitsZero() async throws {
        let file = try CommandRunner.temporaryPlan(Self.conditionalPlan)
        try await DemoAPI.withServer { base in
            let result = try await CommandRunner.run(
                ["run", file.path, "--input", "base_url=\(base)"],
                within: .seconds(30))
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            let summary = RunSummary(result.stdout)
            #expect(summary.ids(withSymbol: "✓") == ["a", "c"])
            #expect(summary.steps["b"]?.symbol == "-" && summary.steps["b"]?.text.contains("its `if` is false") == true)
            #expect(
                summary.steps["d"]?.symbol == "-"
                    && summary.steps["d"]?.text.contains("dependency `b` was skipped") == true)
            #expect(summary.outputs["b_state"] == #""skipped""#)
            #expect(summary.totals?.contains("2 succeeded, 2 skipped") == true)
            #expect(!result.stderr.contains("error["))
        }
    }

    @Test func failingStepExitsOneAndIsReportedAtItsLine() async throws {
        let file = try CommandRunner.temporaryPlan(Self.conditionalPlan)
        try await DemoAPI.withServer { base in
            let result = try await CommandRunner.run(
                ["run", file.path, "--input", "base_url=\(base)", "--input", "status=500"], within: .seconds(30))
            #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
            let summary = RunSummary(result.stdout)
            #expect(summary.ids(withSymbol: "✗") == ["a"])
            #expect(summary.steps["a"]?.text.contains("expected status 200, got 500") == true)
            #expect(
                summary.steps["c"]?.symbol == "-"
                    && summary.steps["c"]?.text.contains("dependency `a` failed") == true)
            #expect(summary.outputs["a_status"] == "500")
            #expect(result.stderr.contains("error[RP0512]: step `a` failed: expected status 200, got 500"))
            #expect(result.stderr.contains("--> \(file.path):7:3"), "\(result.stderr)")
            #expect(result.stderr.contains("= note: request: GET \(base)/status/500"))
        }
    }

    // MARK: Interrupts

    /// `fast` ends at once; `slow` starts after it, `parallel` with it; both wait 20 s.
    static let slowPlan = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
        defaults: { base_url: "${{ inputs.base_url }}", timeout: 30s }
        steps:
          fast:
            request: { url: /config }
          slow:
            needs: fast
            request: { url: /delay/20000 }
          parallel:
            request: { url: /delay/20000 }
        outputs:
          fast_status: ${{ steps.fast.status }}
          slow_state: ${{ steps.slow.state }}
        """

    @Test(arguments: [SIGINT, SIGTERM])
    func signalStopsTheRunAndStillPrintsWhatItGathered(signalNumber: Int32) async throws {
        let file = try CommandRunner.temporaryPlan(Self.slowPlan)
        try await DemoAPI.withServer { base in
            let running = try CommandRunner.start(["run", file.path, "--input", "base_url=\(base)"])
            // Three requests served means `slow` has been sent, so `fast` has ended in the client.
            let inFlight = try await DemoRequests.wait(for: 3, at: base, while: running, timeout: .seconds(15))
            #expect(inFlight, "the plan's requests did not all reach the demo API")
            let signalled = ContinuousClock.now
            kill(running.pid, signalNumber)
            let result = await running.finish(within: .seconds(60))
            let elapsed = ContinuousClock.now - signalled
            #expect(!result.killedAfterTimeout && !result.uncaughtSignal, "\(result)")
            #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
            #expect(elapsed < .seconds(20), "took \(elapsed) to stop (the requests wait 20 s)")
            let summary = RunSummary(result.stdout)
            #expect(
                summary.steps["fast"]?.symbol == "✓" && summary.steps["fast"]?.text.contains("GET → 200") == true,
                "\(result.stdout)")
            #expect(
                summary.steps["slow"]?.symbol == "⊘"
                    && summary.steps["slow"]?.text.contains("interrupted while running") == true, "\(result.stdout)")
            #expect(summary.steps["parallel"]?.symbol == "⊘", "\(result.stdout)")
            #expect(summary.outputs["fast_status"] == "200")
            #expect(summary.outputs["slow_state"] == #""cancelled""#)
            #expect(summary.totals?.contains("1 succeeded, 2 cancelled") == true, "\(result.stdout)")
            #expect(summary.totals?.hasSuffix("(interrupted)") == true, "\(result.stdout)")
        }
    }

    // The limit counts the wait for a `.timeSensitive` slot too: fifteen minutes catch a hang, not a busy machine
    // (the wait passed five minutes once, with `stress-ng` and a build of the tests beside the suite).
    @Test(.timeLimit(.minutes(15)), arguments: [SIGINT, SIGTERM])
    func aSignalWhileAPipeIsAwaitedEndsTheWaitSendsNothingAndExits130(signalNumber: Int32) async throws {
        // The inputs file is a named pipe whose writer opens it and never writes: `run` waits for it after
        // reading the plan, before the run. reqplan handles the signal itself (it would cancel a run), so the
        // wait used to go on after it, for good: neither Ctrl-C nor `timeout` ended it.
        let file = try CommandRunner.temporaryPlan(
            """
            reqplan: 1
            inputs: { base_url: { default: "http://127.0.0.1:1" } }
            defaults: { base_url: "${{ inputs.base_url }}" }
            steps:
              a: { request: { url: /a } }
              b: { request: { url: /b } }
            """)
        let fifo = file.deletingLastPathComponent().appendingPathComponent("inputs.fifo").path
        let result = try await Self.signalled(
            signalNumber, waitingFor: fifo, ["run", file.path, "--inputs-file", fifo, "--quiet"])
        #expect(
            result.stderr.contains("error[RP0001]: cannot read `\(fifo)`: the wait for its end was interrupted"),
            "\(result.stderr)")
        #expect(result.stdout.isEmpty, "nothing was run: \(result.stdout)")
    }

    /// The same for `reqplan load` of a plan that is a FIFO whose writer never comes.
    @Test(.timeLimit(.minutes(15)))
    func aSignalEndsTheLoadsWaitForAPlanThatNeverComes() async throws {
        let fifo = try CommandRunner.temporaryPlan("").deletingLastPathComponent().appendingPathComponent("plan.fifo")
        let result = try await Self.signalled(
            SIGTERM, waitingFor: fifo.path, ["load", fifo.path, "--users", "1", "--duration", "1s"])
        #expect(result.stderr.contains("the wait for its end was interrupted"), "\(result.stderr)")
    }

    /// Runs reqplan with `arguments`, one of which names `fifo` (made here), opens the FIFO's writing end once
    /// reqplan has opened it and never writes, sends `signalNumber`, and returns what reqplan printed once it has
    /// exited 130 by itself (a failed expectation otherwise).
    static func signalled(_ signalNumber: Int32, waitingFor fifo: String, _ arguments: [String]) async throws
        -> CommandRunner.Output
    {
        #expect(mkfifo(fifo, 0o600) == 0)
        let running = try CommandRunner.start(arguments)
        let writer = await running.openForWriting(fifo)
        try #require(writer >= 0, "reqplan never opened \(fifo)")
        defer { close(writer) }
        kill(running.pid, signalNumber)
        let result = await running.finish(within: .seconds(60))
        #expect(!result.killedAfterTimeout && !result.uncaughtSignal, "\(result)")
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        return result
    }

    @Test func inputsFileCanBeAPipe() async throws {
        let file = try CommandRunner.temporaryPlan(
            """
            reqplan: 1
            inputs: { greeting: { type: string } }
            steps:
              nothing: { if: "${{ false }}", request: { url: "http://127.0.0.1:1/" } }
            outputs:
              greeting: ${{ inputs.greeting }}
            """)
        // `--inputs-file <(command)`: the shell passes a pipe as /dev/fd/N.
        let result = try await CommandRunner.run(
            [
                "-c", "\"$0\" run \"$1\" --inputs-file <(printf '{\"greeting\": \"hi\"}') --output json",
                CommandRunner.binary.path, file.path,
            ],
            executable: URL(fileURLWithPath: "/bin/bash"), within: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout.contains(#""greeting":"hi""#) || result.stdout.contains(#""greeting": "hi""#),
            "\(result.stdout)")
    }

    // MARK: reqplan demo

    @Test func demoRunsEveryExamplePlan() async throws {
        let result = try await CommandRunner.run(["demo"], within: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let plans = try CommandRunner.allExamplePlans()
        #expect(plans.contains("plans/suite/health.yaml"), "the suite's folder too")
        // plans/partial-failure.yaml fails on purpose, and is marked so: the demo says it, and still exits 0.
        #expect(result.stdout.contains("\nran \(plans.count) plans against the demo API: 1 failed on purpose\n"))
        #expect(result.stdout.contains("note: plans/partial-failure.yaml fails on purpose"), "\(result.stdout)")
        for plan in plans { #expect(result.stdout.contains("\n== \(plan)\n"), "\(plan)") }
        #expect(!result.stdout.contains("(interrupted)"))
    }

    /// A plan whose steps fail makes `reqplan demo` exit 1 with a line saying so, unless it is marked to fail on
    /// purpose (`# reqplan demo: fails on purpose`); a marked plan whose steps all succeed fails the demo too,
    /// since its mark is out of date.
    @Test func demoExitsOneWhenStepsOfAPlanFailThatIsNotMeantTo() async throws {
        let failing = """
            reqplan: 1
            inputs:
              base_url: { default: "http://127.0.0.1:8080" }
            steps:
              broken:
                request: { url: "${{ inputs.base_url }}/status/500" }
                expect: { status: 200 }

            """
        let passing = failing.replacingOccurrences(of: "/status/500", with: "/status/200")
        let mark = DemoPlanOutcome.failsOnPurposeMark + " (it asks for a 500)\n"
        let cases: [(text: String, status: Int32, line: String, totals: String)] = [
            (failing, 1, "error: steps of PLAN failed", "1 failed"),
            (mark + failing, 0, "note: PLAN fails on purpose", "1 failed on purpose"),
            (mark + passing, 1, "error: PLAN is marked to fail on purpose", "1 succeeded though marked to fail"),
            (passing, 0, "", ""),
        ]
        for (text, status, line, totals) in cases {
            let plan = try CommandRunner.temporaryPlan(text, name: "demo.yaml")
            let result = try await CommandRunner.run(["demo", plan.path], within: .seconds(60))
            #expect(result.status == status, "\(text)\n\(result.stdout)\(result.stderr)")
            let ran = "\nran 1 plan against the demo API" + (totals.isEmpty ? "\n" : ": \(totals)\n")
            #expect(result.stdout.contains(ran), "\(result.stdout)")
            if !line.isEmpty {
                let said = line.replacingOccurrences(of: "PLAN", with: plan.path)
                #expect(result.stdout.contains(said), "\(result.stdout)")
            }
        }
    }

    /// The mark is a line of its own, a YAML comment; the outcome and the exit code follow from it.
    @Test func demoPlanOutcomes() {
        let mark = DemoPlanOutcome.failsOnPurposeMark
        #expect(DemoPlanOutcome.failsOnPurpose("reqplan: 1\n  \(mark). It asks for a 500\n"))
        #expect(!DemoPlanOutcome.failsOnPurpose("reqplan: 1\ndescription: \"\(mark)\"\n"))
        #expect(DemoPlanOutcome(runExitCode: 1, planText: mark) == .failedOnPurpose)
        #expect(DemoPlanOutcome(runExitCode: 1, planText: "") == .failed)
        #expect(DemoPlanOutcome(runExitCode: 0, planText: mark) == .succeededDespiteMark)
        #expect(DemoPlanOutcome(runExitCode: 0, planText: "") == .succeeded)
        #expect(DemoPlanOutcome.exitCode(of: [.succeeded, .failedOnPurpose]) == 0)
        #expect(DemoPlanOutcome.exitCode(of: [.succeeded, .invalid]) == 1)
        #expect(DemoPlanOutcome.exitCode(of: [.failed]) == 1)
        #expect(DemoPlanOutcome.exitCode(of: [.succeededDespiteMark]) == 1)
    }

    /// README's quick start, as written: its five-line plan validates, and runs (against the demo API's `/health`
    /// in place of `https://api.example.com`) with one step that succeeds.
    @Test func readmeQuickStartPlanValidatesAndRuns() async throws {
        let readme = try String(
            contentsOf: CommandRunner.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "## Quick start"))
        let block = try #require(readme[start.upperBound...].firstMatch(of: /```yaml\n([\s\S]*?)```/))
        let plan = String(block.output.1)
        #expect(plan.split(separator: "\n").count == 5, "a five-line plan")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reqplan-quick-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("health.yaml")
        try plan.write(to: file, atomically: true, encoding: .utf8)
        let validation = try await CommandRunner.run(["validate", file.path], within: .seconds(30))
        #expect(validation.status == 0, "\(validation.stdout)\(validation.stderr)")
        try await DemoAPI.withServer { base in
            try plan.replacingOccurrences(of: "https://api.example.com", with: base)
                .write(to: file, atomically: true, encoding: .utf8)
            let run = try await CommandRunner.run(["run", file.path, "--progress", "none"], within: .seconds(30))
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains("1 step: 1 succeeded"), "\(run.stdout)")
        }
    }

    /// Outside a clone of the repository there is no `./plans`: `demo` says in plain words where it looked and
    /// what to do instead, and starts nothing (it used to print an `NSCocoaErrorDomain Code=260` dump).
    @Test func demoOutsideTheRepositorySaysWhereItLooksForThePlans() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reqplan-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await CommandRunner.run(["demo"], in: folder, within: .seconds(30))
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty, "the demo API did not start: \(result.stdout)")
        #expect(result.stderr.hasPrefix("error: reqplan demo runs the example plans of the reqplan repository"))
        #expect(
            result.stderr.contains("(here: \(folder.path)/plans)")
                || result.stderr.contains("/plans), and there is no such folder"))
        #expect(result.stderr.contains("reqplan demo path/to/plans"))
        #expect(result.stderr.contains("reqplan demo --serve 8080"))
        #expect(!result.stderr.contains("NSCocoaErrorDomain"))
    }
}

// MARK: - Helpers

/// What `reqplan run` printed on standard output, taken apart: a line per step, the outputs, the totals.
struct RunSummary {
    struct StepLine {
        var symbol: Character
        var text: String
    }

    /// Step ids in the order printed (document order, members under their group).
    var order: [String] = []
    var steps: [String: StepLine] = [:]
    /// Output name → its value as printed (JSON text).
    var outputs: [String: String] = [:]
    /// The last line: `N steps: … in Xs`.
    var totals: String?

    init(_ stdout: String) {
        var inOutputs = false
        for line in stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.isEmpty {
                inOutputs = false
            } else if line == "outputs:" {
                inOutputs = true
            } else if inOutputs {
                guard line.hasPrefix("  "), let colon = line.range(of: ": ") else { continue }
                outputs[String(line[line.index(line.startIndex, offsetBy: 2)..<colon.lowerBound])] =
                    String(line[colon.upperBound...])
            } else if line.firstMatch(of: #/^[0-9]+ steps: /#) != nil {
                totals = line
            } else {
                let trimmed = line.drop { $0 == " " }
                guard let symbol = trimmed.first, "✓✗-⊘".contains(symbol) else { continue }
                let id = String(trimmed.dropFirst().drop { $0 == " " }.prefix { $0 != " " })
                order.append(id)
                steps[id] = StepLine(symbol: symbol, text: line)
            }
        }
    }

    /// The ids of the steps printed with `symbol`, in order.
    func ids(withSymbol symbol: Character) -> [String] {
        order.filter { steps[$0]?.symbol == symbol }
    }

    /// An output decoded from its JSON text.
    func output<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
        let text = try #require(outputs[name], "no output `\(name)` in \(outputs)")
        return try JSONDecoder().decode(type, from: Data(text.utf8))
    }
}

extension [String] {
    /// Whether these are the URLs of uploaded files (`/files/N/name`) with these names, in this order.
    func isUploaded(_ names: [String]) -> Bool {
        count == names.count
            && zip(self, names).allSatisfy { url, name in
                url.hasPrefix("/files/") && url.hasSuffix("/" + name)
                    && Int(url.dropFirst("/files/".count).dropLast(name.count + 1)) != nil
            }
    }
}

/// The line and column (1-based) where `prefix` starts the first line that begins with it
/// (after indentation) in the file at `path` (relative to the package root, or absolute).
func location(of prefix: String, in path: String) throws -> (line: Int, column: Int) {
    let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : CommandRunner.packageRoot.appendingPathComponent(path)
    let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
    let index = try #require(lines.firstIndex { $0.drop { $0 == " " }.hasPrefix(prefix) }, "`\(prefix)` in \(path)")
    return (index + 1, lines[index].prefix { $0 == " " }.count + 1)
}

/// Watching the demo API from outside: it numbers every response (`X-Request-Id: req-N`).
enum DemoRequests {
    /// Sends one request of its own and returns its number: one more than the requests the
    /// demo API received before it (earlier probes included).
    static func probe(_ baseURL: String) async throws -> Int {
        let url = try #require(URL(string: baseURL + "/status/204"))
        let (_, response) = try await URLSession.shared.data(from: url)
        let header = try #require((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Request-Id"))
        return try #require(Int(header.dropFirst("req-".count)), "X-Request-Id: \(header)")
    }

    /// Waits until the demo API has received `count` requests besides these probes. `false` when
    /// `running` exits or `timeout` passes first.
    static func wait(
        for count: Int, at baseURL: String, while running: CommandRunner.Running,
        timeout: Duration
    ) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        var probes = 0
        while ContinuousClock.now < deadline, running.isRunning {
            probes += 1
            if try await probe(baseURL) - probes >= count { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}
