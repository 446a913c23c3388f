import Foundation
import ReqPlanDemoAPI
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanSyntax
import ReqPlanTestSupport
import Synchronization
import Testing

@testable import ReqPlanHTTP
@testable import ReqPlanTransport
@testable import ReqPlanRuntime

/// Plan files in a fresh temporary folder, validated from disk and run over the HTTP transport, as
/// `reqplan run` does (`BASE_URL` in every file is replaced by the server's address).
struct PlanFolder {
    let folder: URL

    init(_ files: [String: String], baseURL: String) throws {
        folder = TestFolders.unique("reqplan-run")
        for (path, text) in files {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.replacingOccurrences(of: "BASE_URL", with: baseURL).write(
                to: url, atomically: true, encoding: .utf8)
        }
    }

    /// The graph of `name` (its diagnostics recorded as an issue when it has errors).
    func graph(_ name: String = "main.yaml") throws -> PlanGraph {
        let report = PlanValidator.validate(fileAt: folder.appendingPathComponent(name).path, displayPath: name)
        guard let graph = report.graph, report.errorCount == 0 else {
            Issue.record("invalid: \(ValidationOutput.text([report], colors: false, explain: false, strict: false))")
            throw TestPlanError.invalid
        }
        return graph
    }

    /// Runs `name` with `inputs`, through a fresh transport; the run's secrets are in the result.
    func run(
        _ name: String = "main.yaml", inputs: [String: Value] = [:], concurrency: Int? = nil,
        observer: any ExecutionObserver = NoObserver()
    ) async throws -> (graph: PlanGraph, result: RunResult) {
        let graph = try graph(name)
        var configuration = RunConfiguration(concurrency: concurrency, files: FileAccess(planDirectory: folder))
        configuration.backoffScale = 0.01
        var transport = HTTPClientTransport.Configuration()
        transport.secrets = configuration.secrets
        let secrets = graph.plan.inputs.filter(\.secret).compactMap { inputs[$0.name.value]?.interpolated }
        let result = try await HTTPClientTransport.with(transport) { client in
            await Executor(
                graph: graph, transport: client,
                inputs: RunInputs(values: inputs, environment: [:], secrets: secrets),
                configuration: configuration, observer: observer
            ).run()
        }
        return (graph, result)
    }
}

/// Every request attempt of a run, with its step's id, from the results' tree.
func attempts(_ results: [StepResult]) -> [(id: String, start: Duration, end: Duration)] {
    results.flatMap { result in
        result.attempts.map { (result.id, $0.start, $0.start + $0.duration) } + attempts(result.children ?? [])
    }
}

/// The largest number of attempts in flight at one instant (at some attempt's start).
func peakInFlight(_ intervals: [(id: String, start: Duration, end: Duration)]) -> Int {
    intervals.map { interval in intervals.filter { $0.start <= interval.start && interval.start < $0.end }.count }.max()
        ?? 0
}

/// The demo API's HTML-form login, shared by the tests below: its CSRF token read through a var.
let demoLogin = """
    reqplan: 1
    inputs:
      base_url: { default: "BASE_URL" }
      user:
    defaults:
      base_url: ${{ inputs.base_url }}
    vars:
      csrf: ${{ match(steps.form.body, 'name="csrf" value="([^"]+)"')[1] }}
    steps:
      form: { request: { url: /login-form, query: { user: "${{ inputs.user }}" } } }
      submit:
        request: { method: POST, url: /login-form, form: { user: "${{ inputs.user }}", csrf: "${{ vars.csrf }}" } }
        expect: { body: { token: { exists: true } } }
    outputs:
      token: { value: "${{ steps.submit.body.token }}", secret: true }
      user: ${{ steps.submit.body.user }}
    """

@Suite(.serialized, .timeSensitive) struct SubPlanRunTests {
    @Test func aSubPlanRunsAsOneStepItsStepsNestedAndItsOutputsGivenWhole() async throws {
        try await DemoAPI.withServer { base in
            let folder = try PlanFolder(
                [
                    "shared/login.yaml": demoLogin,
                    "main.yaml": """
                    reqplan: 1
                    defaults: { base_url: "BASE_URL" }
                    steps:
                      login: { plan: { file: shared/login.yaml, inputs: { user: bob } } }
                      account: { request: { url: /account.xml, auth: { bearer: "${{ steps.login.outputs.token }}" } } }
                    outputs:
                      plan: ${{ xpath(steps.account.body, 'string(/account/plan)') }}
                      user: ${{ steps.login.outputs.user }}
                      token: ${{ steps.login.outputs.token }}
                      steps: ${{ steps.login.results[*].state }}
                    """,
                ], baseURL: base)
            let (_, result) = try await folder.run()
            #expect(result.exitCode == 0, "\(result.results.mapValues(\.reason))")
            #expect(result.order == ["login", "login/form", "login/submit", "account"])
            #expect(result.results["login"]?.children?.map(\.id) == ["login/form", "login/submit"])
            #expect(result.results["login/submit"]?.method == "POST")
            let outputs = Dictionary(uniqueKeysWithValues: result.outputs.map { ($0.name, $0.value) })
            #expect(outputs["plan"] == .string("pro"))
            #expect(outputs["user"] == .string("bob"))
            #expect(outputs["steps"] == .list([.string("succeeded"), .string("succeeded")]))
            // The secret output is whole where the plan reads it, and known as a secret to every output.
            let token = try #require(outputs["token"]?.interpolated)
            #expect(token.count > 8 && token != "***", "\(token)")
            #expect(result.secrets.contains(token))
        }
    }

    @Test func aFileRunByTwoStepsRunsTwiceEachWithItsOwnInputsAndVars() async throws {
        try await DemoAPI.withServer { base in
            let folder = try PlanFolder(
                [
                    "login.yaml": demoLogin,
                    "main.yaml": """
                    reqplan: 1
                    steps:
                      alice: { plan: { file: login.yaml, inputs: { user: alice } } }
                      bob: { plan: { file: login.yaml, inputs: { user: bob } } }
                    outputs:
                      users: ["${{ steps.alice.outputs.user }}", "${{ steps.bob.outputs.user }}"]
                      same: ${{ steps.alice.outputs.token == steps.bob.outputs.token }}
                    """,
                ], baseURL: base)
            let (_, result) = try await folder.run()
            #expect(result.exitCode == 0)
            #expect(result.outputs.map(\.value) == [.list([.string("alice"), .string("bob")]), .bool(false)])
            #expect(result.results["alice/submit"]?.state == .succeeded)
            #expect(result.results["bob/submit"]?.state == .succeeded)
        }
    }

    @Test func aSubPlansRequestsCountInEveryLimitAroundItAndInItsOwn() async throws {
        try await DemoAPI.withServer { base in
            let sub = """
                reqplan: 1
                concurrency: 2
                defaults: { base_url: "BASE_URL" }
                steps:
                  a: { request: { url: /delay/150 } }
                  b: { request: { url: /delay/150 } }
                  c: { request: { url: /delay/150 } }
                """
            let folder = try PlanFolder(
                [
                    "sub.yaml": sub,
                    "main.yaml": """
                    reqplan: 1
                    concurrency: 3
                    defaults: { base_url: "BASE_URL" }
                    steps:
                      one: { plan: { file: sub.yaml } }
                      two: { plan: { file: sub.yaml } }
                    """,
                ], baseURL: base)
            let (_, result) = try await folder.run()
            #expect(result.exitCode == 0)
            let all = attempts(result.order.compactMap { result.results[$0] }.filter { !$0.id.contains("/") })
            #expect(all.count == 6)
            #expect(peakInFlight(all) <= 3, "the plan's limit holds for its sub-plans' requests")
            #expect(peakInFlight(all.filter { $0.id.hasPrefix("one/") }) <= 2, "the sub-plan's own limit holds")
            #expect(peakInFlight(all.filter { $0.id.hasPrefix("two/") }) <= 2)
        }
    }

    @Test func aSubPlansOwnOnFailureAndTimeoutHoldInsideIt() async throws {
        try await DemoAPI.withServer { base in
            let folder = try PlanFolder(
                [
                    "fast-fail.yaml": """
                    reqplan: 1
                    on_failure: fail_fast
                    defaults: { base_url: "BASE_URL" }
                    steps:
                      broken: { request: { url: /status/500 } }
                      slow: { request: { url: /delay/20000 } }
                    """,
                    "slow.yaml": """
                    reqplan: 1
                    timeout: 300ms
                    defaults: { base_url: "BASE_URL" }
                    steps:
                      slow: { request: { url: /delay/20000 } }
                    """,
                    "main.yaml": """
                    reqplan: 1
                    defaults: { base_url: "BASE_URL" }
                    steps:
                      first: { plan: { file: fast-fail.yaml } }
                      second: { plan: { file: slow.yaml } }
                      sibling: { request: { url: /delay/500 } }
                    """,
                ], baseURL: base)
            let (_, result) = try await folder.run()
            #expect(result.results["first"]?.state == .failed)
            #expect(result.results["first/slow"]?.state == .cancelled)
            #expect(
                result.results["first/slow"]?.reason?.message == "cancelled because `first/broken` failed (fail_fast)")
            #expect(result.results["second"]?.state == .failed)
            #expect(
                result.results["second"]?.reason == StepReason(.timeout, "the sub-plan's `timeout` ran out after 300ms")
            )
            #expect(result.results["second/slow"]?.state == .cancelled)
            #expect(result.results["sibling"]?.state == .succeeded, "the plan's own `continue` holds outside them")
        }
    }

    @Test func failFastAroundTheStepCancelsTheSubPlansSteps() async throws {
        try await DemoAPI.withServer { base in
            let folder = try PlanFolder(
                [
                    "slow.yaml": "reqplan: 1\nsteps:\n  wait: { request: { url: BASE_URL/delay/20000 } }\n",
                    "main.yaml": """
                    reqplan: 1
                    on_failure: fail_fast
                    steps:
                      sub: { plan: { file: slow.yaml } }
                      broken: { request: { url: BASE_URL/delay/100, expect: { status: 404 } } }
                    """.replacingOccurrences(
                        of: ", expect: { status: 404 } } }", with: " }, expect: { status: 404 } }"),
                ], baseURL: base)
            let start = ContinuousClock.now
            let (_, result) = try await folder.run()
            #expect(result.results["broken"]?.state == .failed)
            #expect(result.results["sub/wait"]?.state == .cancelled)
            #expect(result.results["sub"]?.state == .cancelled)
            #expect(ContinuousClock.now - start < .seconds(20), "the 20 s request was cancelled, not awaited")
        }
    }

    @Test func inputsAreCheckedAgainstTheirTypesWhenTheStepStarts() async throws {
        try await DemoAPI.withServer { base in
            let folder = try PlanFolder(
                [
                    "typed.yaml": """
                    reqplan: 1
                    inputs:
                      count: { type: number }
                      label: { default: none }
                    steps:
                      s: { request: { url: "BASE_URL/echo?n=${{ inputs.count }}&l=${{ inputs.label }}" } }
                    outputs:
                      label: ${{ inputs.label }}
                    """,
                    "main.yaml": """
                    reqplan: 1
                    steps:
                      config: { request: { url: BASE_URL/config } }
                      good: { plan: { file: typed.yaml, inputs: { count: "${{ steps.config.body.limits.page_size }}" } } }
                      bad: { plan: { file: typed.yaml, inputs: { count: "${{ steps.config.body.version }}" } } }
                    outputs:
                      label: ${{ steps.good.outputs.label }}
                    """,
                ], baseURL: base)
            let (_, result) = try await folder.run()
            #expect(result.results["good"]?.state == .succeeded)
            #expect(result.outputs.first?.value == .string("none"), "an input not given takes its default")
            #expect(result.results["bad"]?.state == .failed)
            #expect(
                result.results["bad"]?.reason
                    == StepReason(
                        .evaluation, "input `count` of `typed.yaml` must be a number, got a string"))
            #expect(result.results["bad/s"]?.state == .skipped, "nothing of the sub-plan was sent")
        }
    }

    @Test func aSubPlanReadsItsFilesFromItsOwnFolderInsideThePlans() async throws {
        try await DemoAPI.withServer { base in
            let folder = try PlanFolder(
                [
                    "lib/upload.yaml": """
                    reqplan: 1
                    inputs:
                      name: { default: a.txt }
                    steps:
                      literal: { request: { method: POST, url: BASE_URL/echo, body_file: data/a.txt } }
                      computed: { request: { method: POST, url: BASE_URL/echo, body_file: "data/${{ inputs.name }}" } }
                      escape: { request: { method: POST, url: BASE_URL/echo, body_file: "../../${{ inputs.name }}" } }
                    outputs:
                      literal: ${{ steps.literal.body.body.text }}
                      computed: ${{ steps.computed.body.body.text }}
                    """,
                    "lib/data/a.txt": "from the sub-plan's folder",
                    "main.yaml":
                        "reqplan: 1\nsteps:\n  upload: { plan: { file: lib/upload.yaml } }\noutputs:\n  all: ${{ steps.upload.outputs }}\n",
                ], baseURL: base)
            let (_, result) = try await folder.run()
            let text = Value.string("from the sub-plan's folder")
            #expect(result.outputs.first?.value == .object([.init("literal", text), .init("computed", text)]))
            #expect(result.results["upload/escape"]?.state == .failed)
            #expect(result.results["upload/escape"]?.reason?.message.contains("outside the plan's folder") == true)
        }
    }

    @Test func aSubPlanInAForEachRunsOncePerItem() async throws {
        try await DemoAPI.withServer { base in
            let folder = try PlanFolder(
                [
                    "login.yaml": demoLogin,
                    "main.yaml": """
                    reqplan: 1
                    steps:
                      users:
                        for_each: [alice, bob, carol]
                        as: name
                        group:
                          login: { plan: { file: login.yaml, inputs: { user: "${{ name }}" } } }
                          check: { request: { url: "BASE_URL/users/${{ steps.login.outputs.user }}/preferences" } }
                    outputs:
                      users: ${{ steps.users.results[*].results[0].outputs.user }}
                      checked: ${{ steps.users.results[*].results[1].status }}
                    """,
                ], baseURL: base)
            let (_, result) = try await folder.run()
            #expect(result.exitCode == 0)
            #expect(
                result.outputs.map(\.value) == [
                    .list([.string("alice"), .string("bob"), .string("carol")]),
                    .list([.int(200), .int(200), .int(200)]),
                ])
            let item = try #require(result.results["users"]?.children?[1])
            #expect(item.children?.first?.children?.map(\.id) == ["login/form", "login/submit"])
        }
    }

    @Test func failuresInsideASubPlanAreLocatedInItsFileWithTheChainOfInclusions() async throws {
        try await DemoAPI.withServer { base in
            let folder = try PlanFolder(
                [
                    "lib/inner.yaml": "reqplan: 1\nsteps:\n  broken: { request: { url: BASE_URL/status/500 } }\n",
                    "lib/outer.yaml": "reqplan: 1\nsteps:\n  inner: { plan: { file: inner.yaml } }\n",
                    "main.yaml": "reqplan: 1\nsteps:\n  outer: { plan: { file: lib/outer.yaml } }\n",
                ], baseURL: base)
            let (graph, result) = try await folder.run()
            let diagnostics = result.diagnostics(graph: graph)
            #expect(diagnostics.count == 1)
            let diagnostic = try #require(diagnostics.first)
            #expect(diagnostic.message == "step `outer/inner/broken` failed: expected status 2xx, got 500")
            #expect(diagnostic.file == "lib/inner.yaml")
            #expect(diagnostic.range?.start.line == 3)
            #expect(
                diagnostic.notes.map(\.message).suffix(2) == [
                    "included from lib/outer.yaml:3:26", "included from main.yaml:3:26",
                ])
            let text = DiagnosticRenderer(files: graph.sources).text(diagnostic)
            #expect(
                text.contains(" --> lib/inner.yaml:3:3\n  |\n3 |   broken: { request: { url: \(base)/status/500 } }\n"),
                "\(text)")
        }
    }

    @Test func progressShowsTheSubPlansStepsNestedByTheirPaths() async throws {
        try await DemoAPI.withServer { base in
            let folder = try PlanFolder(
                [
                    "login.yaml": demoLogin,
                    "main.yaml":
                        "reqplan: 1\nsteps:\n  login: { plan: { file: login.yaml, inputs: { user: dana } } }\n",
                ], baseURL: base)
            let graph = try folder.graph()
            let lines = Mutex<[String]>([])
            let progress = LiveProgress(
                graph: graph, mode: .lines, colors: false,
                write: { text in lines.withLock { $0.append(text) } })
            _ = try await folder.run(observer: progress)
            let written = lines.withLock { $0 }.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
            #expect(written == ["✓ login/form", "✓ login/submit", "✓ login"])
        }
    }

    @Test(ExternalServers.needed(.httpbin))
    func cookiesASubPlanGetsAreSentByThePlanThatRunsIt() async throws {
        let httpbin = try await Httpbin.shared()
        let folder = try PlanFolder(
            [
                "session.yaml": """
                reqplan: 1
                steps:
                  set: { request: { url: "BASE_URL/cookies/set?session=sub-plan-session-value" } }
                """,
                "main.yaml": """
                reqplan: 1
                steps:
                  session: { plan: { file: session.yaml } }
                  read: { needs: session, request: { url: BASE_URL/cookies } }
                outputs:
                  cookies: ${{ steps.read.body.cookies }}
                """,
            ], baseURL: httpbin.url)
        let (_, result) = try await folder.run()
        #expect(result.exitCode == 0)
        #expect(result.outputs.first?.value == .object([.init("session", .string("sub-plan-session-value"))]))
    }
}

@Suite(.timeSensitive) struct SubPlanPreparationTests {
    @Test func aRequiredEnvironmentInputOfASubPlanStopsTheRunWhenUnset() async throws {
        let folder = try PlanFolder(
            [
                "sub.yaml": """
                reqplan: 1
                inputs:
                  token: { env: SUB_PLAN_TOKEN, required: true, secret: true }
                steps:
                  s: { request: { url: "http://127.0.0.1:1/${{ inputs.token }}" } }
                """,
                "main.yaml":
                    "reqplan: 1\nsteps:\n  given: { plan: { file: sub.yaml, inputs: { token: t } } }\n  env: { plan: { file: sub.yaml } }\n",
            ], baseURL: "")
        let path = folder.folder.appendingPathComponent("main.yaml").path
        let unset = await PlanRun.prepare(
            path: path, limits: ParseLimits(), overrides: [], inputsFile: nil, environment: [:])
        guard case .failure(let failure) = unset else {
            Issue.record("the run was prepared without SUB_PLAN_TOKEN")
            return
        }
        #expect(failure.diagnostics.map(\.code) == [.missingInput])
        #expect(
            failure.diagnostics.first?.message
                == "input `token` is required, but the environment variable `SUB_PLAN_TOKEN` is not set")
        #expect(failure.diagnostics.first?.notes.map(\.message).last?.hasPrefix("included from ") == true)
        let set = await PlanRun.prepare(
            path: path, limits: ParseLimits(), overrides: [], inputsFile: nil,
            environment: ["SUB_PLAN_TOKEN": "from-env"])
        guard case .success(let prepared) = set else {
            Issue.record("the run was not prepared with SUB_PLAN_TOKEN set")
            return
        }
        #expect(prepared.inputs.environment["SUB_PLAN_TOKEN"] == "from-env")
    }
}
