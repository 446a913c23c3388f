import ReqPlanSyntax
import Testing

@testable import ReqPlanPlanner

/// Validates a plan given as the `steps:` body (indented by two spaces) plus optional extra top-level text.
private func validate(steps: String, extra: String = "") -> ValidationReport {
    let text = """
        reqplan: 1
        defaults: { base_url: "http://127.0.0.1:8080" }
        \(extra)
        steps:
        \(steps)
        """
    return PlanValidator.validate(SourceFile(path: "t.yaml", text: text))
}

private func graph(steps: String, extra: String = "") throws -> PlanGraph {
    let report = validate(steps: steps, extra: extra)
    #expect(report.errorCount == 0, "\(report.diagnostics.map(\.message))")
    return try #require(report.graph)
}

private func dependencies(_ graph: PlanGraph, _ id: String) -> [String: Dependency.Reason] {
    var result: [String: Dependency.Reason] = [:]
    for dependency in graph.node(id)?.dependencies ?? [] {
        result[graph.nodes[dependency.target].id] = dependency.reason
    }
    return result
}

private func cycleMessages(_ report: ValidationReport) -> [String] {
    report.diagnostics.filter { $0.code == .cycle }.map(\.message)
}

@Suite struct EdgeTests {
    @Test func explicitNeedsMakeEdges() throws {
        let graph = try graph(
            steps: """
                  a: { request: { url: /a } }
                  b: { needs: [a], request: { url: /b } }
                  c: { needs: b, request: { url: /c } }
                """)
        #expect(dependencies(graph, "b") == ["a": .needs])
        #expect(dependencies(graph, "c") == ["b": .needs])
        #expect(dependencies(graph, "a").isEmpty)
    }

    @Test func referencesMakeImplicitEdgesToExactlyThoseSteps() throws {
        let graph = try graph(
            steps: """
                  login: { request: { url: /login } }
                  other: { request: { url: /other } }
                  me:
                    request:
                      url: /me
                      headers: { Authorization: "Bearer ${{ steps.login.body.token }}" }
                """)
        #expect(dependencies(graph, "me") == ["login": .reference])
    }

    @Test func referencesInExpectAndIfAndForEachItemsCount() throws {
        let graph = try graph(
            steps: """
                  a: { request: { url: /a } }
                  b: { request: { url: /b } }
                  c: { request: { url: /c } }
                  d:
                    if: ${{ steps.a.status == 200 }}
                    request: { url: /d }
                    expect: { body: { id: "${{ steps.b.body.id }}" } }
                  e:
                    for_each: ${{ steps.c.body.items }}
                    request: { url: "/e/${{ item }}" }
                """)
        #expect(dependencies(graph, "d") == ["a": .reference, "b": .reference])
        #expect(dependencies(graph, "e") == ["c": .reference])
    }

    @Test func outputsDoNotCreateEdges() throws {
        let graph = try graph(
            steps: """
                  a: { request: { url: /a } }
                """, extra: "outputs: { x: \"${{ steps.a.body }}\" }")
        #expect(graph.node("a")?.dependencies.isEmpty == true)
        #expect(graph.usage[graph.index["a"] ?? -1]?.keepsBody == true)
    }

    @Test func sequenceMembersWaitForThePreviousOne() throws {
        let graph = try graph(
            steps: """
                  checkout:
                    sequence:
                      cart: { request: { url: /cart } }
                      pay: { request: { url: /pay } }
                      order: { request: { url: /order } }
                """)
        #expect(dependencies(graph, "pay") == ["cart": .sequence])
        #expect(dependencies(graph, "order") == ["pay": .sequence])
    }

    @Test func needingAGroupWaitsForAllItsMembers() throws {
        let graph = try graph(
            steps: """
                  g:
                    group:
                      x: { request: { url: /x } }
                      y: { request: { url: /y } }
                  after: { needs: [g], request: { url: /after } }
                """)
        #expect(dependencies(graph, "after") == ["g": .needs])
        let waves = graph.waves.map { $0.map { graph.nodes[$0].id } }
        #expect(waves == [["x", "y"], ["after"]])
    }

    @Test func membersStartAfterTheirGroupsDependencies() throws {
        let graph = try graph(
            steps: """
                  first: { request: { url: /first } }
                  g:
                    needs: [first]
                    group:
                      x: { request: { url: /x } }
                """)
        let waves = graph.waves.map { $0.map { graph.nodes[$0].id } }
        #expect(waves == [["first"], ["x"]])
    }

    @Test func duplicateNeedIsAWarning() {
        let report = validate(
            steps: """
                  a: { request: { url: /a } }
                  b: { needs: [a, a], request: { url: /b } }
                """)
        #expect(report.errorCount == 0)
        #expect(report.diagnostics.map(\.code) == [.redundantNeed])
    }
}

@Suite struct CycleTests {
    @Test func explicitCycle() {
        let report = validate(
            steps: """
                  a: { needs: [c], request: { url: /a } }
                  b: { needs: [a], request: { url: /b } }
                  c: { needs: [b], request: { url: /c } }
                """)
        #expect(cycleMessages(report) == ["dependency cycle: `a` → `c` → `b` → `a`"])
        #expect(report.graph == nil)
    }

    @Test func implicitCycle() {
        let report = validate(
            steps: """
                  a: { request: { url: "/a/${{ steps.b.body.id }}" } }
                  b: { request: { url: "/b/${{ steps.a.body.id }}" } }
                """)
        #expect(cycleMessages(report) == ["dependency cycle: `a` → `b` → `a`"])
    }

    @Test func mixedCycleListsEveryEdgeWithItsLocation() throws {
        let report = validate(
            steps: """
                  a: { needs: [b], request: { url: /a } }
                  b: { request: { url: "/b/${{ steps.a.body.id }}" } }
                """)
        let cycle = try #require(report.diagnostics.first { $0.code == .cycle })
        #expect(cycle.message == "dependency cycle: `a` → `b` → `a`")
        #expect(cycle.range?.start.line == 5)
        #expect(cycle.notes.map(\.message) == ["`b` reads the result of `a` here"])
        #expect(cycle.notes.first?.range?.start.line == 6)
    }

    @Test func cycleThroughGroupIsReported() {
        let report = validate(
            steps: """
                  a: { needs: [g], request: { url: /a } }
                  g:
                    group:
                      m: { request: { url: "/m/${{ steps.a.body.id }}" } }
                """)
        #expect(cycleMessages(report) == ["dependency cycle: `a` → `g` → `m` → `a`"])
    }

    @Test func memberNeedingItsOwnGroupIsACycle() throws {
        let report = validate(
            steps: """
                  g:
                    group:
                      m: { needs: [g], request: { url: /m } }
                """)
        let cycle = try #require(report.diagnostics.first { $0.code == .cycle })
        #expect(
            cycle.message == "dependency cycle: `g` → `m` → `g`" || cycle.message == "dependency cycle: `m` → `g` → `m`"
        )
        #expect(cycle.hint?.contains("belongs to") == true)
    }

    @Test func sequenceMemberReadingALaterMemberIsACycle() {
        let report = validate(
            steps: """
                  s:
                    sequence:
                      first: { request: { url: "/f/${{ steps.second.body.id }}" } }
                      second: { request: { url: /s } }
                """)
        #expect(cycleMessages(report).count == 1)
    }

    @Test func selfReference() {
        let report = validate(
            steps: """
                  a: { request: { url: "/a/${{ steps.a.body.id }}" } }
                """)
        #expect(cycleMessages(report) == ["step `a` depends on itself"])
    }

    @Test func twoIndependentCyclesAreBothReported() {
        let report = validate(
            steps: """
                  a: { needs: [b], request: { url: /a } }
                  b: { needs: [a], request: { url: /b } }
                  c: { needs: [d], request: { url: /c } }
                  d: { needs: [c], request: { url: /d } }
                """)
        #expect(cycleMessages(report).count == 2)
    }
}

@Suite struct AnalysisTests {
    @Test func wavesAndCriticalPathOfTheLaunchShape() throws {
        let graph = try graph(
            steps: """
                  login: { request: { method: POST, url: /login } }
                  bootstrap:
                    group:
                      config: { request: { url: "/config/${{ steps.login.body.token }}" } }
                      preferences: { request: { url: /preferences } }
                  home: { needs: [bootstrap], request: { url: /home } }
                  logout: { needs: [home], if: "${{ always() }}", request: { method: POST, url: /logout } }
                """)
        let waves = graph.waves.map { $0.map { graph.nodes[$0].id } }
        #expect(waves == [["login", "preferences"], ["config"], ["home"], ["logout"]])
        #expect(graph.criticalPath.map { graph.nodes[$0].id } == ["login", "config", "home", "logout"])
    }

    @Test func criticalPathOfALongChain() throws {
        let steps = (0..<50).map { index in
            index == 0
                ? "  s0: { request: { url: /x } }" : "  s\(index): { needs: [s\(index - 1)], request: { url: /x } }"
        }.joined(separator: "\n")
        let graph = try graph(steps: steps)
        #expect(graph.criticalPath.count == 50)
        #expect(graph.waves.count == 50)
    }

    @Test func forEachIsOneUnit() throws {
        let graph = try graph(
            steps: """
                  list: { request: { url: /list } }
                  each:
                    for_each: ${{ steps.list.body.ids }}
                    request: { url: "/item/${{ item }}" }
                """)
        #expect(graph.criticalPath.map { graph.nodes[$0].id } == ["list", "each"])
        let usage = try #require(graph.usage[graph.index["list"] ?? -1])
        #expect(usage.fields == [.body])
    }

    @Test func usageRecordsItemFieldsOfResults() throws {
        let graph = try graph(
            steps: """
                  up:
                    for_each: [a, b]
                    request: { url: "/u/${{ item }}" }
                """, extra: "outputs: { urls: \"${{ steps.up.results[*].body.url }}\", n: \"${{ steps.up.state }}\" }")
        let usage = try #require(graph.usage[graph.index["up"] ?? -1])
        #expect(usage.itemFields == [.body])
        #expect(usage.fields == [.results, .state])
        #expect(!usage.whole)
    }

    @Test func unreferencedResultsAreNotKept() throws {
        let graph = try graph(
            steps: """
                  a: { request: { url: /a } }
                  b: { needs: [a], request: { url: /b } }
                """)
        #expect(graph.usage.isEmpty)
    }

    @Test func inputsAndEnvironmentRead() throws {
        let graph = try graph(
            steps: """
                  a:
                    request:
                      url: "/a/${{ inputs.user }}"
                      headers: { X-Token: "${{ env.TOKEN }}" }
                """,
            extra: """
                inputs:
                  user: { default: alice }
                  token: { env: TOKEN, secret: true }
                """)
        #expect(graph.inputsRead == ["user"])
        #expect(graph.environmentRead == ["TOKEN"])
    }
}

@Suite struct ScheduleGraphTests {
    @Test func topologicalOrderRespectsEveryEdge() throws {
        let graph = try graph(
            steps: """
                  a: { request: { url: /a } }
                  g:
                    needs: [a]
                    group:
                      x: { request: { url: /x } }
                      s:
                        sequence:
                          y: { request: { url: /y } }
                          z: { request: { url: /z } }
                  b: { needs: [g], request: { url: /b } }
                """)
        let order = try #require(graph.schedule.topologicalOrder())
        var position = [Int: Int]()
        for (index, vertex) in order.enumerated() { position[vertex] = index }
        for (vertex, edges) in graph.schedule.waitsFor.enumerated() {
            for edge in edges {
                #expect((position[edge.to] ?? 0) < (position[vertex] ?? 0))
            }
        }
    }

    @Test func largeChainDoesNotOverflowTheStack() throws {
        // 20,000 steps in a chain: every graph algorithm must be iterative.
        var text = "  s0: { request: { url: /x } }\n"
        for index in 1..<20_000 { text += "  s\(index): { needs: [s\(index - 1)], request: { url: /x } }\n" }
        let graph = try graph(steps: text)
        #expect(graph.criticalPath.count == 20_000)
    }
}
