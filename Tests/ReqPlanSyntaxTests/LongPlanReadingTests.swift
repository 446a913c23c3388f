import ReqPlanTestSupport
import Testing

@testable import ReqPlanSyntax

/// A plan of many top-level steps is read in parts at once: composed whole and read in two halves
/// (`PlanReader.readStepsInParallel`), or, in the plain layout, composed and read in runs of steps
/// (`PlanParser.parseInParts`). What either reports must be what reading it in one go reports.
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

    /// Reads `text` as `reqplan` does, and checks that it reads what composing it whole reads.
    static func read(_ text: String, limits: ParseLimits = ParseLimits()) -> ParseResult {
        let source = SourceFile(path: "long.yaml", text: text)
        let result = PlanParser.parse(source, limits: limits)
        let whole = PlanParser.parseWhole(source, limits: limits)
        #expect(PlanReadCacheTests.summary(result) == PlanReadCacheTests.summary(whole))
        return result
    }

    @Test func theStepsOfAPlainLayoutAreComposedInRuns() throws {
        let text = Self.plan(steps: PlanReader.stepsReadInParallel)
        #expect(PlanParser.parseInParts(SourceFile(path: "long.yaml", text: text), limits: ParseLimits()) != nil)
        let result = Self.read(text)
        #expect(result.plan?.steps.map(\.id.value) == (0..<PlanReader.stepsReadInParallel).map { "s\($0)" })
        // One step fewer: read whole.
        let short = Self.plan(steps: PlanReader.stepsReadInParallel - 1)
        #expect(PlanParser.parseInParts(SourceFile(path: "long.yaml", text: short), limits: ParseLimits()) == nil)
    }

    /// The runs cover every block once, in order, long first and short last, for any count and thread count.
    @Test func runsCoverEveryBlockOnceLongestFirst() {
        for threads in [1, 2, 3, 8] {
            for count in [0, 1, 7, 512, 1_000, 10_007] {
                let runs = PlanReader.runs(of: count, threads: threads)
                #expect(runs.flatMap { Array($0) } == Array(0..<count), "\(count) blocks on \(threads) threads")
                #expect(runs.allSatisfy { !$0.isEmpty })
                // Never longer than the run before, but for the last (what is left).
                #expect(zip(runs.dropLast(), runs.dropLast().dropFirst()).allSatisfy { $0.count >= $1.count })
            }
        }
        // 1,000 blocks on two cores: a quarter of the whole first, at least 31 blocks (a sixteenth of a share).
        let runs = PlanReader.runs(of: 1_000, threads: 2)
        #expect(runs.first == 0..<250)
        #expect(runs.dropLast().allSatisfy { $0.count >= 31 } && runs.count == 12, "\(runs.map(\.count))")
    }

    /// Random edits of a long plan of many shapes, each read in runs (when its layout still allows) and
    /// whole: the same AST and diagnostics every time, and most edits still read in runs.
    @Test func randomEditsReadInRunsWhatTheWholePlanReads() async throws {
        let seed: UInt64 = 11
        let original = PlanReadCacheTests.longPlan(steps: PlanReader.stepsReadInParallel + 40)
        let found = try await offCooperativePool { () -> (mismatch: String?, inRuns: Int) in
            var random = SeededGenerator(seed: seed)
            var inRuns = 0
            for round in 0..<16 {
                let edited = randomEdit(of: original, pieces: PlanReadCacheTests.pieces, using: &random)
                let source = SourceFile(path: "long.yaml", text: edited)
                guard let runs = PlanParser.parseInParts(source, limits: ParseLimits()) else { continue }
                inRuns += 1
                let whole = PlanParser.parseWhole(source, limits: ParseLimits())
                if PlanReadCacheTests.summary(runs) != PlanReadCacheTests.summary(whole) {
                    return ("round \(round), seed \(seed):\n\(edited)", inRuns)
                }
            }
            return (nil, inRuns)
        }
        #expect(found.mismatch == nil)
        // More than half of the edits break the layout (a tab, a line break, a quote, a key out of place) and
        // are read whole; in a trial of 40, 15 kept it.
        #expect(found.inRuns >= 4, "\(found.inRuns) of 16 edits read in runs")
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
