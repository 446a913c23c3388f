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

    @Test(arguments: [(0.3, 0.5), (1.0, 1.0), (7.0, 10.0), (12.0, 20.0), (450.0, 500.0), (-1.0, 1.0), (.nan, 1.0)])
    func chartTopsAreRoundNumbers(_ value: Double, _ top: Double) {
        #expect(LoadResult.niceCeiling(value) == top)
    }
}
