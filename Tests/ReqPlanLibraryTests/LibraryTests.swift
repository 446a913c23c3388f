import Foundation
import ReqPlan
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The `ReqPlan` library as an embedder uses it: one import, typed inputs and outputs, progress events,
/// Swift cancellation, errors by kind; against the demo API on loopback.
@Suite(.serialized, .timeSensitive) struct LibraryTests {
    /// A plan with inputs, a for_each, a polled job and outputs of several types. The job ends at its second poll;
    /// the polls' timeout is only a bound, wide enough for a machine busy with other work (at 10 s, a loaded run
    /// of the suite once saw the first poll answered after it).
    static let plan = """
        reqplan: 1
        inputs:
          base_url: { type: string }
          user: { default: alice }
          ids: { type: list, default: [1, 2, 3] }
        defaults: { base_url: "${{ inputs.base_url }}" }
        steps:
          login: { request: { method: POST, url: /login, json: { user: "${{ inputs.user }}" } } }
          items:
            for_each: ${{ inputs.ids }}
            request: { url: "/delay/0?id=${{ item }}" }
          job: { request: { method: POST, url: /jobs, json: { polls: 2 } }, expect: { status: 202 } }
          wait:
            request: { url: "${{ steps.job.headers.location }}" }
            poll: { until: "${{ response.body.state != 'running' }}", every: 10ms, timeout: 60s }
        outputs:
          token: ${{ steps.login.body.token }}
          count: ${{ length(steps.items.results) }}
          statuses: ${{ steps.items.results[*].status }}
        """

    struct Inputs: Encodable {
        var base_url: String
        var user = "bob"
    }

    struct Outputs: Decodable, Equatable {
        var token: String
        var count: Int
        var statuses: [Int]
    }

    @Test func aPlanRunsWithTypedInputsAndGivesTypedOutputs() async throws {
        try await DemoAPI.withServer { base in
            let plan = try RequestPlan(yaml: Self.plan)
            #expect(plan.inputNames == ["base_url", "user", "ids"])
            let outcome = try await plan.run(inputs: Inputs(base_url: base))
            #expect(outcome.succeeded, "\(outcome.steps.map { "\($0.id): \($0.reason?.message ?? "ok")" })")
            let outputs = try outcome.outputs(as: Outputs.self)
            #expect(outputs.count == 3 && outputs.statuses == [200, 200, 200])
            #expect(try outcome.output("token", as: String.self).isEmpty == false)
            #expect(outcome[step: "items"]?.children.map(\.itemIndex) == [0, 1, 2])
            #expect((outcome[step: "wait"]?.attempts.count ?? 0) >= 2, "every poll is an attempt")
        }
    }

    @Test func progressEventsTellStepsAttemptsPollsAndItems() async throws {
        try await DemoAPI.withServer { base in
            let plan = try RequestPlan(yaml: Self.plan)
            let execution = try plan.execution(inputs: ["base_url": .string(base)])
            async let outcome = execution.start()
            var events: [ProgressEvent] = []
            for await event in execution.events { events.append(event) }
            #expect(try await outcome.succeeded)
            let kinds = Set(events.map(\.kind))
            #expect(
                kinds == [.stepStarted, .attemptEnded, .pollEnded, .loopStarted, .itemEnded, .stepEnded],
                "\(events.map(\.description))")
            #expect(events.filter { $0.kind == .itemEnded }.compactMap(\.item).sorted() == [0, 1, 2])
            #expect(events.first { $0.kind == .loopStarted }?.itemCount == 3)
            let ended = events.filter { $0.kind == .stepEnded }.map(\.step)
            #expect(Set(ended) == ["login", "items", "job", "wait"])
            // A step ends after it starts.
            for step in ended {
                let started = events.firstIndex { $0.kind == .stepStarted && $0.step == step && $0.item == nil }
                let end = events.firstIndex { $0.kind == .stepEnded && $0.step == step }
                #expect(started != nil && end != nil && started! < end!, "\(step)")
            }
        }
    }

    @Test func cancellingTheTaskCancelsTheRunAndKeepsWhatItGathered() async throws {
        try await DemoAPI.withServer { base in
            let plan = try RequestPlan(
                yaml: """
                    reqplan: 1
                    inputs: { base_url: {} }
                    defaults: { base_url: "${{ inputs.base_url }}" }
                    steps:
                      fast: { request: { url: /delay/0 } }
                      slow: { needs: [fast], request: { url: /delay/20000 } }
                    """)
            let execution = try plan.execution(inputs: ["base_url": .string(base)])
            let running = Task { try await execution.start() }  // cancelled below, as an app cancels its work
            for await event in execution.events where event.kind == .stepStarted && event.step == "slow" {
                running.cancel()
            }
            let outcome = try await running.value
            #expect(outcome.wasCancelled)
            #expect(outcome.exitCode == 130)
            #expect(outcome[step: "fast"]?.state == .succeeded)
            #expect(outcome[step: "slow"]?.state == .cancelled)
            await #expect(throws: ReqPlanError.runAlreadyStarted) { try await execution.start() }
        }
    }

    @Test func runningAPlanLeavesTheHostsSignalHandlersAndOpenFileLimitAsTheyWere() async throws {
        let before = [SIGINT, SIGTERM].map(Self.action)
        let limitBefore = Self.openFileLimit()
        try await DemoAPI.withServer { base in
            let plan = try RequestPlan(yaml: Self.plan)
            for transport in [PlanTransport.nio(), .urlSession()] {
                var options = RunOptions(transport: transport)
                options.concurrency = 2
                let outcome = try await plan.run(inputs: ["base_url": .string(base)], options: options)
                #expect(outcome.succeeded)
            }
        }
        #expect([SIGINT, SIGTERM].map(Self.action) == before)
        #expect(Self.openFileLimit() == limitBefore, "the command line raises it, never the library")
    }

    /// This process's soft and hard limits on open files.
    static func openFileLimit() -> [UInt64] {
        var limit = rlimit()
        #if canImport(Glibc)
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        #else
            getrlimit(RLIMIT_NOFILE, &limit)
        #endif
        return [UInt64(limit.rlim_cur), UInt64(limit.rlim_max)]
    }

    /// The disposition of `signal` in this process: its handler (`SIG_DFL`, `SIG_IGN` or a function) and
    /// flags, as bytes.
    static func action(_ signal: Int32) -> [UInt8] {
        var action = sigaction()
        sigaction(signal, nil, &action)
        return withUnsafeBytes(of: action.__sigaction_handler) { Array($0) }
            + withUnsafeBytes(of: action.sa_flags) { Array($0) }
    }

    @Test func theURLSessionTransportRunsTheSamePlanAlike() async throws {
        try await DemoAPI.withServer { base in
            let plan = try RequestPlan(yaml: Self.plan)
            let outcome = try await plan.run(
                inputs: Inputs(base_url: base), options: RunOptions(transport: .urlSession()))
            #expect(outcome.succeeded, "\(outcome.steps.map { "\($0.id): \($0.reason?.message ?? "ok")" })")
            #expect(try outcome.outputs(as: Outputs.self).statuses == [200, 200, 200])
        }
    }

    @Test func anInvalidPlanThrowsItsLocatedDiagnostics() throws {
        do {
            _ = try RequestPlan(
                yaml: "reqplan: 1\nsteps:\n  a: { needs: [b], request: { url: http://x } }\n",
                name: "broken.yaml")
            Issue.record("an invalid plan loaded")
        } catch {
            #expect(error == .invalidPlan)
            #expect(error.diagnostics.first?.code.rawValue.hasPrefix("RP") == true)
            #expect(error.description.contains("broken.yaml:3:"), "\(error.description)")
        }
    }

    @Test func inputsThatDoNotFitAreNamedWithoutCommandLineOptions() throws {
        let plan = try RequestPlan(
            yaml:
                "reqplan: 1\ninputs: { n: { type: number } }\nsteps: { a: { request: { url: http://127.0.0.1:1 } } }\n")
        for inputs: [String: Value] in [["m": .int(1)], [:], ["n": .string("x")]] {
            do {
                _ = try plan.execution(inputs: inputs)
                Issue.record("\(inputs) accepted")
            } catch {
                #expect(error == .invalidInputs)
                #expect(error.description.firstMatch(of: /--[a-z]/) == nil, "\(error.description)")
            }
        }
    }

    @Test func aPlanTooLargeIsRefusedWithAHintThatNamesNoOption() throws {
        do {
            _ = try RequestPlan(
                yaml: String(repeating: "# padding\n", count: 200), limits: ParseLimits(maxFileSize: 100))
            Issue.record("a plan over the limit loaded")
        } catch {
            #expect(error == .invalidPlan)
            #expect(error.description.contains("raise the limit"))
            #expect(!error.description.contains("--max-plan-size"), "\(error.description)")
        }
    }

    @Test func aFileOutsideThePlansFolderIsRefusedWithoutNamingAnOption() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reqplan-outside-\(UUID())")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("plans"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "secret".write(to: folder.appendingPathComponent("outside.txt"), atomically: true, encoding: .utf8)
        // Written literally: refused by validation.
        let literal = folder.appendingPathComponent("plans/literal.yaml")
        try
            "reqplan: 1\nsteps: { a: { request: { method: POST, url: http://127.0.0.1:1, body_file: ../outside.txt } } }\n"
            .write(to: literal, atomically: true, encoding: .utf8)
        do {
            _ = try RequestPlan(contentsOf: literal.path)
            Issue.record("a plan reading a file outside its folder loaded")
        } catch {
            #expect(error == .invalidPlan)
            #expect(error.description.contains("outside the plan's folder"), "\(error.description)")
            #expect(error.description.firstMatch(of: /--[a-z]/) == nil, "\(error.description)")
        }
        // Computed: refused when the request is built.
        let computed = folder.appendingPathComponent("plans/computed.yaml")
        try """
        reqplan: 1
        inputs: { file: { type: string } }
        steps: { a: { request: { method: POST, url: "http://127.0.0.1:1", body_file: "${{ inputs.file }}" } } }
        """.write(to: computed, atomically: true, encoding: .utf8)
        let outcome = try await RequestPlan(contentsOf: computed.path).run(inputs: ["file": .string("../outside.txt")])
        let reason = try #require(outcome[step: "a"]?.reason)
        #expect(reason.description.contains("outside the plan's folder"), "\(reason)")
        #expect(reason.description.firstMatch(of: /--[a-z]/) == nil, "\(reason)")
    }

    @Test func aMissingOutputOrOneOfAnotherTypeIsAnErrorOfItsKind() async throws {
        let plan = try RequestPlan(
            yaml: """
                reqplan: 1
                steps: { a: { if: false, request: { url: "http://127.0.0.1:1" } } }
                outputs: { n: "${{ length('ab') }}" }
                """)
        let outcome = try await plan.run()
        #expect(try outcome.output("n", as: Int.self) == 2)
        #expect(throws: ReqPlanError.outputMissing) { try outcome.output("m", as: Int.self) }
        #expect(throws: ReqPlanError.outputNotDecodable) { try outcome.output("n", as: String.self) }
    }

    @Test func aPlanInABundleThatIsNotThereIsNamed() {
        #expect(throws: ReqPlanError.planNotFound) { try RequestPlan(resource: "no-such-plan", in: .main) }
    }
}
