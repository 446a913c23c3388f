import Foundation
import ReqPlanRuntime
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanPresentation

/// The reports of a suite, written from its plans' JSON reports, and `report merge`.
@Suite("Suite reports", .timeSensitive)
struct SuiteReportTests {
    /// Every scenario's run with its times fixed, as one suite: in suite order (by file).
    static func suite() async throws -> [ReportRun] {
        var runs: [ReportRun] = []
        for scenario in Scenario.all { runs.append(try await scenario.run().normalised) }
        return runs.sorted { $0.graph.plan.source.path < $1.graph.plan.source.path }
    }

    static func report(_ runs: [ReportRun], shard: SuiteReport.ShardInfo? = nil) -> SuiteReport {
        SuiteReport(
            runs: runs.map { ($0.report, Duration.zero) }, startedAt: TimingNormaliser.startedAt,
            duration: .seconds(1), shard: shard)
    }

    @Test(arguments: Scenario.all)
    func aPlanReadBackFromItsJSONReportGivesTheSameJUnitReport(_ scenario: Scenario) async throws {
        let report = try await scenario.run().normalised.report
        var direct = JUnitPlan(report)
        direct.timeout = nil  // the JSON report does not keep the plan's `timeout`
        let readBack = try JUnitPlan(json: try Value.parseJSON(report.jsonText()))
        #expect(readBack.xml() == direct.xml())
    }

    @Test func theJUnitReportHasOneTestsuitePerPlanFileHoldingEveryCaseOfItsScopes() async throws {
        let runs = try await Self.suite()
        let xml = Self.report(runs).junitXML()
        let suites = xml.matches(of: #/<testsuite name="([^"]+)" tests="([0-9]+)"/#).map { (String($0.1), Int($0.2)) }
        #expect(suites.map(\.0) == Scenario.all.map { "plans/\($0.name).yaml" }.sorted())
        for (run, suite) in zip(runs, suites) {
            #expect(suite.1 == JUnitPlan(run.report).suites().reduce(0) { $0 + $1.cases.count })
        }
        // A case keeps its scope's class name, as in the plan's own report.
        #expect(xml.contains(#"<testcase name="add[0]" classname="report-mixed.checkout""#))
        #expect(!xml.contains(Scenario.secret), "no secret in the suite's report")
    }

    @Test(JUnitSchema.needed)
    func theSuiteJUnitReportValidatesWithCorrectCounts() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("suite.xml")
        try Self.report(try await Self.suite()).junitXML().write(to: file, atomically: true, encoding: .utf8)
        let (status, output) = try JUnitSchema.validate([file])
        #expect(status == 0, "\(output)")
    }

    @Test func theShardsReportsMergeIntoTheWholeSuitesReports() async throws {
        let runs = try await Self.suite()
        let whole = Self.report(runs)
        // Two shards of the four plans, given in the wrong order: merging puts the plans back in suite order.
        let first = Self.report([runs[0], runs[2]], shard: .init(index: 1, count: 2, files: 4))
        let second = Self.report([runs[1], runs[3]], shard: .init(index: 2, count: 2, files: 4))
        let merged = try SuiteReport.merging([("b.json", second.jsonText()), ("a.json", first.jsonText())]).get()
        #expect(merged.plans == whole.plans)
        #expect(
            merged.junitXML()
                == whole.junitXML().replacing(
                    #/ time="1.000"/#, with: #" time="\#(JUnitWriter.seconds(merged.duration))""#))
        #expect(
            merged.summaryText().split(separator: "\n").dropLast()
                == whole.summaryText().split(separator: "\n").dropLast())
        #expect(merged.exitCode == whole.exitCode && merged.exitCode == 130)
        #expect(merged.plans.count == 4)
    }

    @Test func mergingSaysWhatIsWrongWithTheReports() async throws {
        let runs = try await Self.suite()
        let first = Self.report([runs[0]], shard: .init(index: 1, count: 3, files: 3)).jsonText()
        let second = Self.report([runs[1]], shard: .init(index: 2, count: 3, files: 3)).jsonText()
        let foreign = Self.report([runs[2]], shard: .init(index: 3, count: 4, files: 4)).jsonText()
        let plan = runs[3].report.jsonText()
        func problems(_ documents: [(String, String)]) -> [String] {
            switch SuiteReport.merging(documents.map { (path: $0.0, text: $0.1) }) {
            case .success: return []
            case .failure(let failure):
                #expect(failure.diagnostics.allSatisfy { $0.code == .unmergeableReports })
                return failure.diagnostics.map(\.message)
            }
        }
        #expect(
            problems([("1", first), ("2", second)]) == ["shard 3/3 is missing: the merged report would lack its plans"])
        #expect(
            problems([("1", first), ("2", second), ("2b", second)]).contains {
                $0.hasPrefix("shard 2/3 is given twice: `2` and `2b`")
            })
        #expect(
            problems([("1", first), ("2", second), ("3", foreign)]).contains { $0.contains("not parts of one suite") })
        #expect(
            problems([("p", plan), ("q", plan)]) == [
                "the plan `plans/plan-timeout.yaml` is in two reports: `p` and `q`"
            ])
        #expect(problems([("x", "[1, 2]")]).first?.contains("is not a reqplan report") == true)
        #expect(problems([("y", "{ not json")]).first?.hasPrefix("`y` is not JSON") == true)
        var broken = try Value.parseJSON(plan)
        if case .object(var fields) = broken, let index = fields.firstIndex(where: { $0.key == "steps" }) {
            fields[index].value = .string("oops")
            broken = .object(fields)
        }
        #expect(problems([("z", broken.jsonText())]) == ["`z` cannot be read back: `steps` is not a list"])
        #expect(problems([("p", plan)]).isEmpty, "a plan's report is a suite of one")
    }
}
