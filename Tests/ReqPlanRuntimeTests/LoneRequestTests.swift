import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

@testable import ReqPlanRuntime

/// Which plans `reqplan load` builds once for every iteration (`Executor.Layout.loneRequest`): a plan that is
/// one request and nothing else. What such a load does is tested against nginx (`LoadCommandTests`).
struct LoneRequestTests {
    static func graph(_ text: String) throws -> PlanGraph {
        let plan = try #require(PlanParser.parse(SourceFile(path: "lone.yaml", text: "reqplan: 1\n" + text)).plan)
        let planned = Planner.plan(plan)
        return try #require(planned.graph, "\(planned.diagnostics)")
    }

    @Test func aPlanOfOneRequestIsBuiltOnce() throws {
        let graph = try Self.graph(
            """
            inputs: { host: { default: "http://127.0.0.1:1" } }
            vars: { path: /x }
            steps:
              get: { request: { url: "${{ inputs.host }}${{ vars.path }}" }, retry: { attempts: 3 } }
            """)
        #expect(Executor.Layout.loneRequest(in: graph) == graph.nodes.first?.nodeID)
    }

    @Test(arguments: [
        // More than one request, or a request inside something else.
        "steps:\n  a: { request: { url: http://h/a } }\n  b: { request: { url: http://h/b } }",
        "steps:\n  g:\n    group:\n      a: { request: { url: http://h/a } }",
        "steps:\n  each:\n    for_each: ${{ [1, 2] }}\n    request: { url: http://h/a }",
        // What `run()` does around the request.
        "steps:\n  a: { if: \"${{ inputs.go }}\", request: { url: http://h/a } }\ninputs: { go: { default: true } }",
        "timeout: 5s\nsteps:\n  a: { request: { url: http://h/a } }",
        "outputs: { s: \"${{ steps.a.status }}\" }\nsteps:\n  a: { request: { url: http://h/a } }",
    ])
    func anythingMoreRunsWholeEachIteration(_ text: String) throws {
        #expect(Executor.Layout.loneRequest(in: try Self.graph(text)) == nil)
    }
}
