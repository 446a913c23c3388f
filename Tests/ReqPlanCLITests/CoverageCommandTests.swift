import Foundation
import Testing

/// `reqplan coverage`: the operations of the demo API's document the example plans exercise.
@Suite struct CoverageCommandTests {
    @Test func theTableMarksEachOperationAndStatusExercised() throws {
        let result = try CommandRunner.run(
            ["coverage", "plans/data-flow.yaml", "--openapi", "plans/_openapi/demo-api.yaml"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.contains {
                $0.hasPrefix("✓ login") && $0.contains("200✓ 400✗") && $0.hasSuffix("(plans/data-flow.yaml: login)")
            })
        #expect(
            lines.contains {
                $0.hasPrefix("✓ getItem") && $0.contains("200✓ 404✗")
                    && $0.hasSuffix("(plans/data-flow.yaml: fetch, plans/data-flow.yaml: verify)")
            })
        #expect(lines.contains { $0.hasPrefix("✓ replaceItem") && $0.contains("200✓ 201✓ 400✗") })
        #expect(lines.contains { $0.hasPrefix("✗ stockReport") && $0.contains("200✗") })
        #expect(lines.last == "4 of 9 operations exercised; 5 of 17 documented response statuses expected")
    }

    @Test func jsonGivesTheSameCoverage() throws {
        let result = try CommandRunner.run(
            ["coverage", "plans/data-flow.yaml", "--openapi", "plans/_openapi/demo-api.yaml", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let value = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(value?["covered"] as? Int == 4)
        #expect(value?["total"] as? Int == 9)
        let operations = value?["operations"] as? [[String: Any]] ?? []
        let covered = operations.filter { $0["covered"] as? Bool == true }.compactMap { $0["id"] as? String }
        #expect(covered == ["login", "createItem", "getItem", "replaceItem"])
    }

    @Test func anInvalidPlanIsReportedInsteadOfCounted() throws {
        let result = try CommandRunner.run(
            ["coverage", "plans/_openapi/data-flow-mistake.yaml", "--openapi", "plans/_openapi/demo-api.yaml"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("error[RP0808]"))
    }
}
