import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanRuntime

/// A sequence run as a state machine (`FlowControl`, what an Arazzo workflow's actions make), over a transport
/// test double that answers from the URL (`ScriptedTestTransport`: `fail=N` answers 503 to the first N requests
/// of a path): loops bounded and recorded visit by visit, failures handled or not, `end`.
@Suite struct FlowControlTests {
    typealias Transition = FlowControl.Transition

    /// A plan whose one step, `flow`, is a sequence of `members` (written as plan steps) under `control`.
    static func run(_ members: String, control: (SourceFile) -> FlowControl, transport: ScriptedTestTransport)
        async throws -> (RunResult, PlanGraph)
    {
        let text = planHeader + "steps:\n  flow:\n    sequence:\n" + members
        let source = SourceFile(path: "flow.yaml", text: text)
        let parsed = try #require(PlanParser.parse(source).plan)
        var plan = parsed
        let sequence = plan.steps[0]
        plan.steps[0] = Step(
            id: sequence.id, kind: sequence.kind, needs: [], condition: nil, description: nil, timeout: nil,
            retry: nil, expect: nil, concurrency: nil, onFailure: nil, range: sequence.range, flow: control(source))
        let planned = Planner.plan(plan)
        let graph = try #require(planned.graph, "\(planned.diagnostics)")
        var configuration = RunConfiguration(
            files: FileAccess(planDirectory: URL(fileURLWithPath: NSTemporaryDirectory())))
        configuration.backoffScale = 0.01
        let executor = Executor(
            graph: graph, transport: transport, inputs: RunInputs(values: [:], environment: [:]),
            configuration: configuration)
        return (await executor.run(), graph)
    }

    static func condition(_ text: String, in source: SourceFile) -> ReqPlanSyntax.Expression? {
        try? TemplateParser(source: source).condition(
            text, at: SourceRange(start: SourceLocation(line: 1, column: 1), length: 1)
        ).get()
    }

    static func to(_ target: FlowControl.Target, when: ReqPlanSyntax.Expression? = nil, _ name: String) -> Transition {
        Transition(
            target: target, when: when, name: name,
            range: SourceRange(start: SourceLocation(line: 1, column: 1), length: 1))
    }

    @Test func aFailureThatGoesBackRunsTheStepAgainUntilItSucceedsEachVisitRecorded() async throws {
        let transport = ScriptedTestTransport()
        let (result, _) = try await Self.run(
            """
                  try: { request: { url: "/s/try?fail=2" } }
                  after: { request: { url: /s/after } }

            """,
            control: { _ in
                FlowControl(members: [
                    .init(onSuccess: [], onFailure: [Self.to(.member(0), "goto `again` to `try`")], next: .member(1)),
                    .init(onSuccess: [], onFailure: [], next: .end),
                ])
            }, transport: transport)
        #expect(result.exitCode == 0)
        let tried = try #require(result.results["try"])
        #expect(tried.state == .succeeded && tried.visits == 3 && tried.handledBy == nil)
        #expect(tried.attempts.map(\.number) == [1, 2, 3] && tried.attempts.map(\.visit) == [1, 2, 3])
        #expect(tried.attempts.map(\.status) == [503, 503, 200])
        #expect(result.results["after"]?.state == .succeeded)
        #expect(transport.count("/s/try") == 3 && transport.count("/s/after") == 1)
    }

    @Test func aLoopIsBoundedAndSaysSo() async throws {
        let transport = ScriptedTestTransport()
        let (result, _) = try await Self.run(
            """
                  spin: { request: { url: "/s/spin?status=500" } }

            """,
            control: { _ in
                FlowControl(
                    members: [.init(onSuccess: [], onFailure: [Self.to(.member(0), "goto `spin`")], next: .end)],
                    maxVisits: 5)
            }, transport: transport)
        #expect(result.exitCode == 1)
        let spin = try #require(result.results["spin"])
        #expect(spin.state == .failed && spin.handledBy == nil)
        #expect(
            spin.reason?.message.contains("a loop runs a step at most 5 times") == true, "\(spin.reason?.message ?? "")"
        )
        #expect(transport.count("/s/spin") == 5)
    }

    @Test func anEndOnFailureHandlesItAndRunsNothingAfter() async throws {
        let transport = ScriptedTestTransport()
        let (result, _) = try await Self.run(
            """
                  check: { request: { url: "/s/check?status=404" } }
                  never: { request: { url: /s/never } }

            """,
            control: { _ in
                FlowControl(members: [
                    .init(onSuccess: [], onFailure: [Self.to(.end, "end `missing`")], next: .member(1)),
                    .init(onSuccess: [], onFailure: [], next: .end),
                ])
            }, transport: transport)
        #expect(result.exitCode == 0, "\(result.results.mapValues(\.state))")
        #expect(result.results["check"]?.state == .failed && result.results["check"]?.handledBy == "end `missing`")
        #expect(result.results["never"]?.state == .skipped && result.results["never"]?.causedByFailure == false)
        #expect(result.results["flow"]?.state == .succeeded)
        #expect(transport.count("/s/never") == 0)
    }

    @Test func aFailureNoActionTakesFailsTheRun() async throws {
        let transport = ScriptedTestTransport()
        let (result, _) = try await Self.run(
            """
                  check: { request: { url: "/s/check?status=500" } }
                  never: { request: { url: /s/never } }

            """,
            control: { source in
                FlowControl(members: [
                    .init(
                        onSuccess: [],
                        onFailure: [
                            Self.to(.end, when: Self.condition("steps.check.status == 404", in: source), "end `gone`")
                        ], next: .member(1)),
                    .init(onSuccess: [], onFailure: [], next: .end),
                ])
            }, transport: transport)
        #expect(result.exitCode == 1)
        #expect(result.results["check"]?.state == .failed && result.results["check"]?.handledBy == nil)
        #expect(result.results["flow"]?.state == .failed)
        #expect(transport.count("/s/never") == 0)
    }

    /// A step reads the latest visit of another: `b` goes back to `a` until `a` has answered three times.
    @Test func aStepReadsTheLatestVisitOfAnother() async throws {
        let transport = ScriptedTestTransport()
        let (result, _) = try await Self.run(
            """
                  a: { request: { url: /s/a } }
                  b: { request: { url: "/s/b?seen=${{ steps.a.body.attempt }}" } }

            """,
            control: { source in
                FlowControl(members: [
                    .init(onSuccess: [], onFailure: [], next: .member(1)),
                    .init(
                        onSuccess: [
                            Self.to(
                                .member(0), when: Self.condition("steps.a.body.attempt < 3", in: source), "goto `a`")
                        ], onFailure: [], next: .end),
                ])
            }, transport: transport)
        #expect(result.exitCode == 0)
        #expect(
            transport.requests.filter { $0.url.path == "/s/b" }.map {
                $0.url.text.components(separatedBy: "seen=").last ?? ""
            } == ["1", "2", "3"])
        #expect(result.results["a"]?.visits == 3 && result.results["b"]?.visits == 3)
    }
}
