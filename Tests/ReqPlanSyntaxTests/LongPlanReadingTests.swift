import Testing

@testable import ReqPlanSyntax

/// A plan of many top-level steps is read in two halves at once (`PlanReader.readStepsInParallel`); what it
/// reports must be what reading it in one go reports.
@Suite struct LongPlanReadingTests {
    /// `count` steps `s0`, `s1`, …, each a request on one line (line `3 + i` holds step `i`), with some
    /// lines replaced.
    static func plan(steps count: Int, replacing lines: [Int: String] = [:]) -> String {
        var text = "reqplan: 1\nsteps:\n"
        for index in 0..<count {
            text += lines[index] ?? "  s\(index): { request: { url: \"http://h/\(index)\" } }"
            text += "\n"
        }
        return text
    }

    static func read(_ text: String, limits: ParseLimits = ParseLimits()) -> ParseResult {
        PlanParser.parse(SourceFile(path: "long.yaml", text: text), limits: limits)
    }

    @Test func stepsKeepTheirOrderAndEveryMistakeIsReportedWhereItIs() throws {
        let count = 2 * PlanReader.stepsReadInParallel
        let result = Self.read(
            Self.plan(
                steps: count,
                replacing: [
                    count - 100: "  g: { group: { s10: { request: { url: \"http://h/again\" } } } }",
                    count - 50: "  9bad: { request: { url: \"http://h/bad\" } }",
                    count - 20: "  s\(count - 20): { reqest: { url: \"http://h/typo\" } }",
                    count - 10: "  s\(count - 10): { request: { url: \"http://h/${{ steps. }}\" } }",
                ]))
        let plan = try #require(result.plan)
        #expect(plan.steps.count == count - 1, "the step with no kind is not read")
        #expect(plan.steps.prefix(5).map(\.id.value) == ["s0", "s1", "s2", "s3", "s4"])
        #expect(plan.steps.last?.id.value == "s\(count - 1)")
        #expect(plan.hasMalformedExpressions)
        let found = result.diagnostics.map { "\($0.code.rawValue) \($0.range?.start.line ?? 0)" }.sorted()
        let expected = [
            "RP0107 \(count - 100 + 3)", "RP0106 \(count - 50 + 3)", "RP0101 \(count - 20 + 3)",
        ]
        for diagnostic in expected { #expect(found.contains(diagnostic), "\(found)") }
        let duplicate = try #require(result.diagnostics.first { $0.code == .duplicateStep })
        #expect(duplicate.notes.first?.range?.start.line == 10 + 3)
        #expect(found.count == 4, "\(found)")
    }

    @Test func aDuplicateInsideEitherHalfIsReportedOnceAtItsSecondDeclaration() throws {
        let count = 2 * PlanReader.stepsReadInParallel
        let result = Self.read(
            Self.plan(
                steps: count,
                replacing: [
                    5: "  g1: { group: { s1: { request: { url: \"http://h/first-half\" } } } }",
                    count - 5: "  g2: { group: { s\(count - 6): { request: { url: \"http://h/second-half\" } } } }",
                ]))
        let lines = result.diagnostics.filter { $0.code == .duplicateStep }.compactMap(\.range?.start.line).sorted()
        #expect(lines == [5 + 3, count - 5 + 3])
    }

    @Test func theNodeBudgetCountsBothHalvesTogether() {
        let count = 2 * PlanReader.stepsReadInParallel
        // Each step is three nodes (its mapping, the request's, the URL): each half alone fits in 2,500,
        // both together do not.
        let over = Self.read(Self.plan(steps: count), limits: ParseLimits(maxNodes: 2_500))
        #expect(over.diagnostics.filter { $0.code == .aliasExpansion }.count == 1)
        #expect(over.plan == nil, "a plan past the budget is dropped")
        // Each half alone exceeds 1,000: still one report.
        let farOver = Self.read(Self.plan(steps: count), limits: ParseLimits(maxNodes: 1_000))
        #expect(farOver.diagnostics.filter { $0.code == .aliasExpansion }.count == 1)
        let fits = Self.read(Self.plan(steps: count), limits: ParseLimits(maxNodes: 5_000))
        #expect(fits.diagnostics.isEmpty)
        #expect(fits.plan?.steps.count == count)
    }
}
