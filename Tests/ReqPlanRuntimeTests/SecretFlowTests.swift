import Foundation
import ReqPlanDemoAPI
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanTransport
@testable import ReqPlanRuntime

/// Which expressions read a secret (`SecretFlow`), and what a run shows of the values built from them.
@Suite(.timeSensitive) struct SecretFlowTests {
    /// A secret passes into a sub-plan as an input it does not declare secret, comes back as an output
    /// computed from it, and goes into the parent's next request; vars and items carry it on.
    static let files = [
        "main.yaml": """
        reqplan: 1
        inputs:
          token: { secret: true }
          region: { default: eu }
        vars:
          auth: "Bearer ${{ inputs.token }}"
          plain: "region ${{ inputs.region }}"
        defaults: { base_url: BASE_URL }
        steps:
          login:
            plan: { file: login.yaml, inputs: { key: "${{ inputs.token }}", user: alice } }
          use:
            request:
              url: /echo
              query: { session: "${{ steps.login.outputs.session }}", user: "${{ steps.login.outputs.user }}" }
              headers: { X-Vars: "${{ vars.auth }} / ${{ vars.plain }}" }
          each:
            for_each: ["${{ inputs.token }}"]
            as: word
            request: { url: "/status/200?w=${{ word }}&r=${{ inputs.region }}" }
        outputs:
          session: ${{ steps.login.outputs.session }}
          user: ${{ steps.login.outputs.user }}
          cookie: ${{ steps.use.cookies }}
          status: ${{ steps.use.status }}
        """,
        "login.yaml": """
        reqplan: 1
        inputs:
          key: {}
          user: {}
        defaults: { base_url: BASE_URL }
        steps:
          check: { request: { url: "/status/200?key=${{ inputs.key }}&user=${{ inputs.user }}" } }
        outputs:
          session: "s-${{ inputs.key }}"
          user: ${{ inputs.user }}
        """,
    ]

    @Test func secretsFlowThroughVarsItemsAndSubPlansBothWays() throws {
        let folder = try PlanFolder(Self.files, baseURL: "http://127.0.0.1:1")
        let graph = try folder.graph()
        let flows = SecretFlow.flows(of: graph)
        #expect(flows[0].inputs == ["token"])
        #expect(flows[0].variables == ["auth"])
        #expect(flows[0].items == ["word"])
        #expect(flows[0].stepOutputs["login"] == ["session"])
        let login = try #require(graph.instances.firstIndex { $0.file?.hasSuffix("login.yaml") == true })
        #expect(flows[login].inputs == ["key"], "the sub-plan's input is given a secret")
    }

    @Test func aRunShowsStarsExactlyWhereASecretWentIn() async throws {
        try await DemoAPI.withServer { base in
            let folder = try PlanFolder(Self.files, baseURL: base)
            let (_, result) = try await folder.run(inputs: ["token": .string("t1"), "region": .string("eu")])
            #expect(result.results["use"]?.url == "\(base)/echo?session=***&user=alice")
            let check = result.results["login"]?.children?.first
            #expect(check?.url == "\(base)/status/200?key=***&user=alice")
            #expect(result.results["each"]?.children?.first?.url == "\(base)/status/200?w=***&r=eu")
            let shown = Dictionary(uniqueKeysWithValues: result.shownOutputs.map { ($0.name, $0.value) })
            #expect(shown["session"] == .string("***"))
            #expect(shown["user"] == .string("alice"))
            #expect(shown["status"] == .int(200))
            // The values themselves are whole: the run sent them, and a library user reads them.
            let outputs = Dictionary(uniqueKeysWithValues: result.outputs.map { ($0.name, $0.value) })
            #expect(outputs["session"] == .string("s-t1"))
        }
    }
}
