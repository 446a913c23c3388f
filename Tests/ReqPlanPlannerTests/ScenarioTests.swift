import Foundation
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanPlanner

/// `--scenario`: which steps a scenario keeps whole, which it keeps only as containers, and what it leaves
/// out of the plan (`PlanScenario`, `PlanLibrary(scenario:)`).
@Suite struct ScenarioTests {
    static let plan = """
        reqplan: 1
        defaults: { base_url: "http://127.0.0.1:1" }
        vars:
          token: ${{ steps.login.body.token }}
        steps:
          login: { request: { method: POST, url: /login } }
          catalog: { request: { url: /catalog } }
          shop:
            needs: [catalog]
            group:
              cart: { request: { url: /cart, headers: { X-Token: "${{ vars.token }}" } } }
              wishlist: { request: { url: /wishlist } }
              pay:
                sequence:
                  card: { request: { url: /card } }
                  charge: { request: { url: "/charge/${{ steps.cart.status }}" } }
                  receipt: { request: { url: /receipt } }
          items:
            for_each: [1, 2]
            group:
              one: { request: { url: "/items/${{ item }}" } }
              two: { request: { url: /two } }
          admin: { request: { url: /admin } }
        outputs:
          charged: ${{ steps.charge.status }}
          admin: ${{ steps.admin.status }}
          token: ${{ vars.token }}
        slo:
          - step: admin
            p99: 1s
          - step: charge
            p99: 1s
          - p99: 2s
        """

    private func scenario(_ id: String) throws -> Result<PlanScenario, Diagnostic> {
        let files = try PlanFiles(["main.yaml": Self.plan])
        return try files.graph().scenario(id)
    }

    @Test func aNestedStepKeepsWhatItNeedsAndItsContainersOnlyForIt() throws {
        let charge = try scenario("charge").get()
        // `charge` reads `cart` (which reads `vars.token`, so `login`), follows `card` in its sequence, and its
        // group needs `catalog`.
        #expect(charge.whole == ["charge", "card", "cart", "login", "catalog"])
        #expect(charge.containers == ["pay", "shop"])
        #expect(charge.outputsLeftOut == ["admin"])
        #expect(charge.objectivesLeftOut == ["admin"])
        #expect(charge.varsLeftOut.isEmpty)

        let files = try PlanFiles(["main.yaml": Self.plan])
        let report = files.validate(library: PlanLibrary(scenario: "charge"))
        #expect(report.errorCount == 0, "\(report.diagnostics.map(\.message))")
        let graph = try #require(report.graph)
        #expect(graph.nodes.map(\.id) == ["login", "catalog", "shop", "cart", "pay", "card", "charge"])
        #expect(graph.plan.outputs.map(\.name.value) == ["charged", "token"])
        #expect(graph.plan.slo.count == 2, "the iteration's and `charge`'s")
        #expect(graph.scenario?.id == "charge")
    }

    @Test func aForEachBodyMemberKeepsItsLoopAndAVarOfALeftOutStepIsLeftOut() throws {
        let one = try scenario("one").get()
        #expect(one.whole == ["one"] && one.containers == ["items"])
        #expect(one.varsLeftOut == ["token"])
        #expect(one.outputsLeftOut == ["charged", "admin", "token"])
        let files = try PlanFiles(["main.yaml": Self.plan])
        let graph = try #require(files.validate(library: PlanLibrary(scenario: "one")).graph)
        #expect(graph.nodes.map(\.id) == ["items", "one"])
        #expect(graph.plan.vars.isEmpty && graph.plan.outputs.isEmpty)
    }

    @Test(arguments: [("chrage", "did you mean `charge`?"), ("", "its top-level steps: `login`, `catalog`")])
    func anUnknownIDIsRP0213WithAHint(_ id: String, _ hint: String) throws {
        guard case .failure(let diagnostic) = try scenario(id) else {
            Issue.record("`\(id)` was found")
            return
        }
        #expect(diagnostic.code == .unknownScenario)
        #expect(diagnostic.hint?.contains(hint) == true, "\(String(describing: diagnostic.hint))")
        let files = try PlanFiles(["main.yaml": Self.plan])
        let report = files.validate(library: PlanLibrary(scenario: id))
        #expect(report.graph == nil && report.diagnostics.contains { $0.code == .unknownScenario })
    }

    /// A plan of 10,000 steps in a chain: the scenario of its last step is found in a walk, not a recursion.
    @Test func aLongChainIsWalkedWithoutRecursion() throws {
        var text =
            "reqplan: 1\ndefaults: { base_url: \"http://127.0.0.1:1\" }\nsteps:\n  s0: { request: { url: /0 } }\n"
        for index in 1..<10_000 { text += "  s\(index): { needs: [s\(index - 1)], request: { url: /x } }\n" }
        let files = try PlanFiles(["main.yaml": text])
        let last = try files.graph().scenario("s9999").get()
        #expect(last.whole.count == 10_000)
        #expect(try files.graph().scenario("s0").get().whole == ["s0"])
    }
}
