import Foundation
import ReqPlanRuntime
import Testing

@testable import ReqPlanPresentation

/// What `reqplan load` writes of a result: the summary, the HTML page and the OpenMetrics text keep text that
/// came from outside (step ids, failure reasons a server chose, the plan's path) inert.
struct LoadReportTests {
    /// A result whose step id, failure reason and plan path are hostile.
    static func hostileResult() -> LoadResult {
        var result = LoadResult(
            plan: "plans/\"><script>alert(1)</script>.yaml", model: "open", target: "10/s for 1s", startedAt: Date())
        var figures = LoadFigures()
        figures.latency.record(.milliseconds(3))
        figures.latency.record(.milliseconds(9))
        figures.succeeded = 1
        figures.failed = 1
        figures.errors["expectation: \u{1B}]52;c;ZXZpbA==\u{07}\u{1B}[2J</script><img onerror=x>"] = 1
        result.iteration = figures
        result.steps = [StepLoadFigures(id: "a\"b\\c\n</text><script>", figures: figures)]
        result.measured = .seconds(1)
        result.series = [
            LoadSecond(second: 0, iterations: 1, failed: 0, requests: 1, p50: 3000, p90: 3000, p99: 3000, max: 3000),
            LoadSecond(second: 1, iterations: 1, failed: 1, requests: 1, p50: 9000, p90: 9000, p99: 9000, max: 9000),
        ]
        return result
    }

    @Test func theHTMLPageKeepsHostileTextInert() {
        let html = Self.hostileResult().htmlReport(outcomes: [])
        #expect(!html.contains("<script>alert"))
        #expect(!html.contains("</text><script>"))
        #expect(!html.contains("<img onerror"))
        #expect(html.contains("&lt;script&gt;"))
        #expect(html.contains("<svg"), "the charts are drawn")
        #expect(html.components(separatedBy: "<path").count - 1 >= 4, "p50, p90, p99, max and the distributions")
    }

    @Test func theSummaryShowsEscapeCodesVisibly() {
        let text = Self.hostileResult().summaryText(outcomes: [])
        #expect(!text.contains("\u{1B}"), "no escape code reaches the terminal")
        #expect(!text.contains("\u{07}"))
        #expect(text.contains("failures:"))
    }

    @Test func openMetricsLabelsAreEscaped() {
        let text = Self.hostileResult().openMetrics(outcomes: [])
        #expect(text.contains(#"step="a\"b\\c\n</text><script>""#), "\(text)")
        #expect(text.hasSuffix("# EOF\n"))
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            #expect(line.firstMatch(of: /^[a-z_]+(\{.*\})? [0-9.e+-]+$/) != nil, "\(line)")
        }
    }

    /// `report merge` of reports from other machines: counts that add up past what a count holds are refused (a
    /// merge once showed `Int.max + Int.max + 20` requests as 18), and a number that does not fit its field is
    /// named as such, not as "not valid JSON" (what Foundation's decoder says, with no field).
    @Test func aMergeOfHostileCountsIsRefusedWithItsReason() throws {
        var result = LoadResult(plan: "p.yaml", model: "closed", target: "2 users", startedAt: Date())
        result.iteration.succeeded = 20
        result.iteration.requests = 20
        result.iteration.latency.record(.milliseconds(4), times: 20)
        result.measured = .seconds(1)
        let text = try String(decoding: JSONEncoder().encode(result), as: UTF8.self)
        #expect(throws: Never.self) { try LoadResult.merging([("a.json", text), ("b.json", text)]).get() }
        let counted = try LoadResult.merging([("a.json", text), ("b.json", text)]).get()
        #expect(counted.requests == 40 && counted.iteration.latency.count == 40)

        var huge = result
        huge.iteration.requests = UInt64(Int64.max)
        let hugeText = try String(decoding: JSONEncoder().encode(huge), as: UTF8.self)
        for field in ["\"requests\":", "\"bytes\":"] {
            // The same field pushed to the most a count holds, in two reports.
            let pushed =
                field == "\"requests\":"
                ? hugeText
                : text.replacingOccurrences(of: "\"bytes\":0", with: "\"bytes\":\(Int64.max)")
            #expect(pushed != text)
            guard case .failure(let failure) = LoadResult.merging([("a.json", pushed), ("b.json", pushed)]) else {
                Issue.record("\(field) added past Int64.max was merged")
                continue
            }
            #expect(failure.diagnostics.map(\.code) == [.unmergeableReports])
            #expect(failure.diagnostics.first?.message.contains("add up beyond what can be counted") == true)
        }
        // A negative count or a time of 1e300 is JSON, but fits no field.
        for (bad, good) in [("\"requests\":-1", "\"requests\":20"), ("\"measured_s\":1e300", "\"measured_s\":1")] {
            let broken = text.replacingOccurrences(of: good, with: bad)
            #expect(broken != text, "\(good) is in \(text)")
            guard case .failure(let failure) = LoadResult.merging([("a.json", broken)]) else {
                Issue.record("\(bad) was read")
                continue
            }
            let message = failure.diagnostics.first?.message ?? ""
            #expect(!message.contains("not valid JSON"), "\(message)")
            #expect(message.contains("does not fit") || message.contains("measured_s"), "\(message)")
        }
    }

    @Test(arguments: [(0.3, 0.5), (1.0, 1.0), (7.0, 10.0), (12.0, 20.0), (450.0, 500.0), (-1.0, 1.0), (.nan, 1.0)])
    func chartTopsAreRoundNumbers(_ value: Double, _ top: Double) {
        #expect(LoadResult.niceCeiling(value) == top)
    }
}
