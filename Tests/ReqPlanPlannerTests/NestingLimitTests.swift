import Foundation
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanPlanner

/// Nesting that grows from input stops at a documented depth with a located error, never a crash
/// (`ParseLimits.maxNesting`: 64 levels of steps, 64 files of sub-plans).
@Suite struct NestingLimitTests {
    static let leaf = "reqplan: 1\nsteps:\n  s:\n    request: { url: 'http://127.0.0.1:1/' }\n"

    /// `count` files `p0.yaml`… that each run the next, the last one a request.
    static func chain(_ count: Int) -> [String: String] {
        var files: [String: String] = [:]
        for index in 0..<count {
            files["p\(index).yaml"] =
                index == count - 1 ? leaf : "reqplan: 1\nsteps:\n  s:\n    plan: { file: p\(index + 1).yaml }\n"
        }
        return files
    }

    /// Plan text with `levels` groups nested in one another around one request.
    static func nestedGroups(_ levels: Int) -> String {
        var text = "reqplan: 1\nsteps:\n"
        var indent = "  "
        for level in 0..<levels {
            text += indent + "g\(level):\n" + indent + "  group:\n"
            indent += "    "
        }
        return text + indent + "leaf: { request: { url: 'http://127.0.0.1:1/' } }\n"
    }

    /// 600 files that each run the next (a recursive walk of the files crashed `validate` at about 600).
    @Test func aChainOfSixHundredSubPlansIsRefusedAtTheDocumentedDepth() throws {
        let plans = try PlanFiles(Self.chain(600))
        defer { plans.remove() }
        let report = plans.validate("p0.yaml")
        let errors = report.diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.code) == [.subPlansTooDeep], "\(plans.render(report))")
        let error = try #require(errors.first)
        // The 64th file is the last of the chain: its `plan` step is where the chain stops.
        #expect(error.file == "p63.yaml")
        #expect(error.range?.start == SourceLocation(line: 4, column: 19))
        #expect(error.message.contains("more than 64 files deep: `p0.yaml` → `p1.yaml` → … 61 more … →"))
        #expect(error.notes.count == 63, "one `included from` note per file above it")
        #expect(report.graph == nil)
    }

    @Test func aChainAsLongAsTheLimitIsValid() throws {
        let plans = try PlanFiles(Self.chain(64))
        defer { plans.remove() }
        let report = plans.validate("p0.yaml")
        #expect(report.errorCount == 0, "\(plans.render(report))")
    }

    /// The same in flow style (`{ g0: { group: { g1: … } } }`): 10,000 levels in 200 kB.
    static func flowGroups(_ levels: Int) -> String {
        "reqplan: 1\nsteps: " + (0..<levels).map { "{ g\($0): { group: " }.joined()
            + "{ leaf: { request: { url: 'http://127.0.0.1:1/' } } }" + String(repeating: " } }", count: levels) + "\n"
    }

    /// 490 nested groups validated, then crashed `run` (the progress tree); 10,000 are past libyaml's limit.
    @Test(arguments: [200, 10_000])
    func deeplyNestedGroupsAreRefusedWithALocatedError(levels: Int) {
        let text = levels < 400 ? Self.nestedGroups(levels) : Self.flowGroups(levels)
        let report = PlanValidator.validate(SourceFile(path: "deep.yaml", text: text))
        let errors = report.diagnostics.filter { $0.severity == .error }
        #expect(errors.count == 1)
        if levels < 400 {
            // The step at depth 63 (the 64th level) may not have members.
            #expect(errors.first?.code == .nestedTooDeep)
            #expect(errors.first?.message == "steps are nested more than 64 levels deep here")
            #expect(errors.first?.range?.start == SourceLocation(line: 3 + 2 * 63 + 1, column: 4 * 63 + 5))
        } else {
            #expect(errors.first?.code == .yamlSyntax)
            #expect(errors.first?.range != nil)
        }
    }

    @Test func sixtyFourLevelsOfGroupsAreValid() {
        let report = PlanValidator.validate(SourceFile(path: "deep.yaml", text: Self.nestedGroups(63)))
        #expect(report.errorCount == 0)
    }

    /// Each file within the limit, but a sub-plan run from deep inside groups would nest its steps past it.
    @Test func aSubPlanNestedUnderDeepGroupsIsRefusedAtItsPlanStep() throws {
        let inner = Self.nestedGroups(40)
        var outer = Self.nestedGroups(40)
        outer = outer.replacingOccurrences(
            of: "leaf: { request: { url: 'http://127.0.0.1:1/' } }", with: "call: { plan: { file: inner.yaml } }")
        let plans = try PlanFiles(["outer.yaml": outer, "inner.yaml": inner])
        defer { plans.remove() }
        let report = plans.validate("outer.yaml")
        let errors = report.diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.code) == [.nestedTooDeep], "\(plans.render(report))")
        #expect(errors.first?.message.contains("sub-plan `inner.yaml` would nest 82 levels deep here") == true)
    }

    /// Files that each run the next twice: 22 of them were 2^21 copies of the last (past 2.8 GB in a minute).
    @Test func subPlansRunFromSeveralStepsAreBoundedInSteps() throws {
        var files: [String: String] = [:]
        for index in 0..<10 {
            files["d\(index).yaml"] =
                index == 9
                ? Self.leaf
                : "reqplan: 1\nsteps:\n  x: { plan: { file: d\(index + 1).yaml } }\n"
                    + "  y: { plan: { file: d\(index + 1).yaml } }\n"
        }
        let plans = try PlanFiles(files)
        defer { plans.remove() }
        let report = PlanValidator.validate(
            fileAt: plans.path("d0.yaml"), displayPath: "d0.yaml", limits: ParseLimits(maxIncludedSteps: 100))
        let errors = report.diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.code) == [.subPlansTooLarge], "\(plans.render(report))")
        // d4 brings 94 steps; d3 runs it twice: its second call is where 100 is passed.
        #expect(errors.first?.file == "d3.yaml")
        #expect(errors.first?.range?.start == SourceLocation(line: 4, column: 22))
    }

    @Test(arguments: [
        String(repeating: "(", count: 100_000) + "true" + String(repeating: ")", count: 100_000),
        String(repeating: "!", count: 100_000) + "true",
    ])
    func expressionsNestedAHundredThousandDeepAreRefusedWithALocatedError(expression: String) {
        let text = "reqplan: 1\nsteps:\n  a:\n    if: \"${{ \(expression) }}\"\n    request: { url: 'http://h/' }\n"
        let report = PlanValidator.validate(SourceFile(path: "deep.yaml", text: text))
        #expect(report.diagnostics.map(\.code) == [.malformedExpression])
        #expect(report.diagnostics.first?.range?.start.line == 4)
    }
}
