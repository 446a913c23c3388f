import ReqPlanPlanner
import ReqPlanTestSupport
import Testing

@testable import ReqPlanPresentation

/// How `validate --graph` and `--explain` draw what the planner found: sub-plans as clusters, vars with the
/// steps they wait for.
@Suite struct PlanDiagramTests {
    @Test func theGraphDrawsASubPlanAsACluster() throws {
        let files = try PlanFiles([
            "login.yaml": PlanFiles.loginPlan,
            "main.yaml": "reqplan: 1\nsteps:\n  login: { plan: { file: login.yaml, inputs: { user: a } } }\n",
        ])
        let graph = try files.graph()
        let mermaid = graph.mermaid()
        #expect(mermaid.contains("subgraph n0[\"login · plan login.yaml\"]"), "\(mermaid)")
        #expect(mermaid.contains("n2[\"login/form<br/>GET /login-form\"]"), "\(mermaid)")
        let dot = graph.dot()
        #expect(dot.contains("subgraph cluster_n0 {"), "\(dot)")
        #expect(dot.contains("label=\"login (plan) login.yaml\";"), "\(dot)")
        let explanation = graph.explanation()
        #expect(
            explanation.contains(
                "sub-plans:\n  login: login.yaml\n    inputs: user, remember (default)\n"
                    + "    outputs: token (secret), user\n"), "\(explanation)")
    }

    @Test func theExplanationListsVarsWithTheStepsTheyWaitFor() throws {
        let files = try PlanFiles(["main.yaml": PlanFiles.varsPlan])
        let graph = try files.graph()
        #expect(graph.explanation().contains("vars:\n  api\n  token (waits for login)\n  bearer (waits for login)\n"))
    }
}
