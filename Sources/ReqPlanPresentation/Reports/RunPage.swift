import Foundation
import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax

/// What a run's section of the HTML report shows: made from a run (`reqplan run --report html:`), or read back
/// from its JSON report (`reqplan report merge --report html:`), which keeps everything but the exchanges'
/// headers and bodies and the machine.
struct RunPage {
    var label: String
    var file: String
    var startedAt: String
    /// In microseconds.
    var duration: Int64
    var exitCode: Int
    var counts: [StepState: Int]
    /// Each input as shown (secrets `***`).
    var inputs: [(name: String, value: String)]
    var outputErrors: [String]
    var interrupted: Bool
    var timedOut: Bool
    /// The host and system that ran it; nil when not known (a report read back).
    var machine: String?
    /// The top-level steps; `allSteps` in document order.
    var steps: [ReportStep]
    var graph: GraphPicture
    /// Each exchange as a HAR entry (redacted as the HAR report redacts them), by `step#item`.
    var exchanges: [String: [Value]] = [:]

    /// Every step, a collection before its members, in document order.
    var allSteps: [ReportStep] { ReportStep.documentOrder(steps) }

    /// The key of a step's exchanges.
    static func exchangeKey(step: String, item: Int?) -> String { "\(step)#\(item.map(String.init) ?? "")" }
}

extension RunReport {
    /// The page's view of the run.
    var page: RunPage {
        let harPage = self.harPage
        var exchanges: [String: [Value]] = [:]
        for exchange in self.exchanges {
            exchanges[RunPage.exchangeKey(step: exchange.step, item: exchange.item), default: []].append(
                exchange.harEntry(pageID: "page", of: harPage))
        }
        return RunPage(
            label: planLabel, file: graph.plan.source.path, startedAt: startedAtText,
            duration: result.duration.microseconds, exitCode: Int(result.exitCode), counts: result.counts,
            inputs: inputValues.map { ($0.name, $0.value.jsonText()) }, outputErrors: result.outputErrors,
            interrupted: result.interrupted, timedOut: result.timedOut,
            machine: "\(ProcessInfo.processInfo.hostName), \(ProcessInfo.processInfo.operatingSystemVersionString)",
            steps: steps, graph: graphPicture, exchanges: exchanges)
    }
}

extension RunPage {
    /// A plan's page read back from its JSON report (`reqplan-run/1`). A report written before reports kept the
    /// graph draws none.
    /// - Parameters:
    ///   - report: the plan's JSON report.
    ///   - plan: its JUnit facts, when they are read already (`JUnitPlan(json:at:)`).
    ///   - prefix: where the report is in the document read, put before the fields errors name (`plans[2].`).
    /// - Throws: `ReportReadError` naming the first field missing, of the wrong type or out of its range.
    init(json report: Value, plan read: JUnitPlan? = nil, at prefix: String = "") throws(ReportReadError) {
        let plan: JUnitPlan
        if let read { plan = read } else { plan = try JUnitPlan(json: report, at: prefix) }
        let reader = JSONReportReader(prefix: prefix)
        var counts: [StepState: Int] = [:]
        for state in StepState.allCases {
            counts[state] = try reader.optionalCount(report["counts"]?[state.rawValue], "counts.\(state.rawValue)")
        }
        let graph: GraphPicture
        if let value = report["graph"], value != .null {
            graph = try GraphPicture(json: value, title: plan.label, at: prefix)
        } else {
            graph = GraphPicture(title: plan.label, nodes: [], roots: [], critical: [])
        }
        self.init(
            label: plan.label, file: plan.file, startedAt: try reader.string(report["started_at"], "started_at"),
            duration: plan.duration.microseconds, exitCode: plan.exitCode, counts: counts,
            inputs: plan.inputs.map { ($0.name, $0.value.jsonText()) }, outputErrors: plan.outputErrors,
            interrupted: plan.interrupted, timedOut: plan.timedOut, machine: nil, steps: plan.steps, graph: graph)
    }
}
