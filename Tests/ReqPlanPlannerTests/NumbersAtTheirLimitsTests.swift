import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

/// Numbers from outside (HOSTILE.md, "Numbers"): every number a plan holds, replaced in turn by one at its
/// limits, must give a clean, located result: never a crash (a trap on overflow or a conversion has no
/// message). The plans are `Tests/Fixtures/numbers/every-number.yaml` (a number in every place the plan's JSON
/// Schema takes one, and values that are sent) and the example plans; the schema's numeric fields are checked to
/// be all among the places replaced.
@Suite struct NumbersAtTheirLimitsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func plans() throws -> [URL] {
        let examples = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("plans").path)
            .filter { $0.hasSuffix(".yaml") }.sorted().map { root.appendingPathComponent("plans/" + $0) }
        return [root.appendingPathComponent("Tests/Fixtures/numbers/every-number.yaml")] + examples
    }

    @Test func everyNumberOfEveryPlanAtItsLimitsIsCheckedWithoutACrash() throws {
        var keys: Set<String> = []
        var checked = 0
        for (index, plan) in try Self.plans().enumerated() {
            let text = try String(contentsOf: plan, encoding: .utf8)
            for (offset, length, key) in try NumberPlaces.numbers(in: text) {
                keys.insert(key)
                for number in index == 0 ? NumberPlaces.hostile : NumberPlaces.fewer {
                    let mutated = NumberPlaces.replacing(text, at: offset, length: length, with: number)
                    let source = SourceFile(path: plan.path, text: mutated)
                    let report = PlanValidator.validate(source)
                    checked += 1
                    for diagnostic in report.diagnostics where diagnostic.severity == .error {
                        #expect(
                            diagnostic.range != nil || diagnostic.file != plan.path,
                            "\(plan.lastPathComponent), `\(key)` = \(number): \(diagnostic.message) has no location")
                    }
                }
            }
        }
        #expect(checked > 500)
        // Every numeric field of the plan's JSON Schema is among the places replaced.
        for field in ["reqplan", "concurrency", "default", "length", "attempts", "factor", "retry", "status", "equals"]
        {
            #expect(keys.contains(field), "no plan holds a number at `\(field)`")
        }
    }
}
