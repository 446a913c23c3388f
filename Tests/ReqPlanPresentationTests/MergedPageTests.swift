import Foundation
import ReqPlanPresentation
import ReqPlanRuntime
import ReqPlanSyntax
import Testing

/// The HTML page of merged reports (`report merge --report html:`) is drawn from the plans' JSON reports alone.
@Suite("The page of merged reports")
struct MergedPageTests {
    /// The section of a page from `<section … id="ANCHOR">` to its end, with its anchor named `plan`, without
    /// the machine (JSON reports do not keep it).
    static func section(of page: String, anchor: String) throws -> String {
        let start = try #require(page.range(of: "<section class=\"run\" id=\"\(anchor)\">"))
        let end = try #require(page.range(of: "</section>", range: start.upperBound..<page.endIndex))
        return String(page[start.lowerBound..<end.upperBound])
            .replacingOccurrences(of: "id=\"\(anchor)\"", with: "id=\"plan\"")
            .replacingOccurrences(of: "\"\(anchor)-step-", with: "\"plan-step-")
            .replacingOccurrences(of: "\"#\(anchor)-step-", with: "\"#plan-step-")
            .replacingOccurrences(of: #"<dt>machine</dt><dd>[^<]*</dd>"#, with: "", options: .regularExpression)
    }

    @Test("a plan's section, read back from its JSON report, is the section its run drew", arguments: Scenario.all)
    func theMergedSectionIsTheRunsSection(_ scenario: Scenario) async throws {
        // Times whole milliseconds: a time read back is the microseconds the JSON report wrote, not the nanoseconds.
        let report = try await scenario.run().normalised.report
        let live = try Self.section(of: report.htmlText(), anchor: "run")
        let merged = try SuiteReport.merging([("plan.json", report.jsonText())]).get()
        let drawn = try Self.section(of: try #require(merged.render(.html)), anchor: "plan-1")
        #expect(drawn == live)
        // The graph and the waterfall are there, not only equal.
        #expect(live.contains("class=\"reqplan-graph\"") && live.contains("class=\"reqplan-waterfall\""))
    }

    @Test func aGraphThatNamesAStepItDoesNotHoldIsRefusedNamingTheField() async throws {
        let run = try await Scenario.mixed.run()
        let text = run.report.jsonText()
        var report = try Value.parseJSON(run.report.jsonText())
        // Point the first wait of the graph at a step it does not hold.
        guard case .object(var fields) = report, let at = fields.firstIndex(where: { $0.key == "graph" }),
            case .object(var graph) = fields[at].value, case .list(var nodes)? = graph.first?.value,
            let waiting = nodes.firstIndex(where: {
                if case .list(let needs)? = $0["needs"] { !needs.isEmpty } else { false }
            }),
            case .object(var node) = nodes[waiting], let needsAt = node.firstIndex(where: { $0.key == "needs" })
        else {
            Issue.record("the report has no graph with a wait: \(text.prefix(200))")
            return
        }
        node[needsAt].value = .list([.object([.init("step", .string("nowhere")), .init("data", .bool(false))])])
        nodes[waiting] = .object(node)
        graph[0].value = .list(nodes)
        fields[at].value = .object(graph)
        report = .object(fields)
        switch SuiteReport.merging([("plan.json", report.jsonText())]) {
        case .success: Issue.record("a graph naming no step was merged")
        case .failure(let failure):
            let message = failure.diagnostics.map(\.message).joined()
            #expect(
                message.contains("graph.nodes[\(waiting)].needs[0].step") && message.contains("nowhere"), "\(message)")
        }
    }
}
