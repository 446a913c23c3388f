import Foundation
import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax

/// The reports of a suite: several plans run by one `reqplan run`, or the shards of one suite combined
/// by `reqplan report merge`.
///
/// A suite's report is made of its plans' JSON reports (`reqplan-run/1`, each as `reqplan run`
/// writes it for one plan), in suite order. The suite's JSON report (`reqplan-suite/1`) holds them;
/// its JUnit report (a `<testsuite>` per plan file) and its summary are written from them alone. So
/// the reports `report merge` writes from the JSON reports of N shards are those of the whole suite run
/// on one machine, apart from timings.
public struct SuiteReport: Sendable {
    /// The version of the suite's JSON report format; it changes only when a field changes meaning or goes away.
    public static let jsonFormat = "reqplan-suite/1"

    /// Which part of a suite a report covers (`--shard K/N`).
    public struct ShardInfo: Sendable, Hashable {
        /// The part, from 1.
        public var index: Int
        /// How many parts.
        public var count: Int
        /// How many plan files the whole suite has.
        public var files: Int

        /// A part of a suite of `files` plans.
        public init(index: Int, count: Int, files: Int) {
            self.index = index
            self.count = count
            self.files = files
        }
    }

    /// Each plan's JSON report (`reqplan-run/1`), secrets hidden, in suite order.
    public let plans: [Value]
    /// When the suite started (the earliest shard's start, for a merge).
    public let startedAt: Date
    /// How long it took (for a merge: from the earliest start to the latest end).
    public let duration: Duration
    /// The part of the suite this report covers; nil for a whole suite.
    public let shard: ShardInfo?
    /// The runs, when the report is made from them: the trace needs their steps' times.
    private let runs: [(report: RunReport, offset: Duration)]

    /// The reports of a suite run: each plan's run with when it started since the suite started.
    public init(runs: [(report: RunReport, offset: Duration)], startedAt: Date, duration: Duration, shard: ShardInfo?) {
        // Each plan's report: what its JSON text says.
        let plans = runs.map(\.report.jsonValue)
        self.init(plans: plans, startedAt: startedAt, duration: duration, shard: shard, runs: runs)
    }

    init(
        plans: [Value], startedAt: Date, duration: Duration, shard: ShardInfo?,
        runs: [(report: RunReport, offset: Duration)]
    ) {
        self.plans = plans
        self.startedAt = startedAt
        self.duration = duration
        self.shard = shard
        self.runs = runs
    }

    // MARK: Outcome

    /// The worst exit code of the plans (`130` over `2` over `1` over `0`); `0` for a suite with no plan.
    public var exitCode: Int32 {
        (plans.map { RunVerdict(exitCode: Int32(exactly: $0["exit_code"]?.doubleValue ?? 1) ?? 1) }.max() ?? .passed)
            .exitCode
    }

    /// Whether a plan was interrupted.
    public var interrupted: Bool {
        plans.contains { $0["interrupted"] == .bool(true) }
    }

    // MARK: Rendering

    /// The report of `kind` as text; nil for a trace or a HAR of merged reports (they keep neither the trace
    /// nor the exchanges).
    public func render(_ kind: ReportKind) -> String? {
        let merged = runs.isEmpty && !plans.isEmpty
        switch kind {
        case .json: return jsonText()
        case .junit: return junitXML()
        case .trace: return merged ? nil : traceJSON()
        case .har: return merged ? nil : HARLog(pages: runs.map(\.report.harPage)).jsonText()
        case .html: return htmlText()
        }
    }

    /// The suite as one self-contained HTML page: a line per plan, then each plan's section. A merged suite's
    /// page is drawn from the plans' JSON reports: everything but the exchanges' headers and bodies and the
    /// machines.
    public func htmlText() -> String {
        // `merging` read every plan's report back, so none fails here; one that did would show as a line.
        let pages: [Result<RunPage, ReportReadError>] =
            runs.isEmpty
            ? plans.map { report in Result { () throws(ReportReadError) in try RunPage(json: report) } }
            : runs.map { .success($0.report.page) }
        var html = HTMLPage(title: "reqplan · suite of \(pages.count) plan\(pages.count == 1 ? "" : "s")")
        html.body += "<nav class=\"suite\"><h1>Suite: exit \(exitCode)</h1><ol>"
        for (index, page) in pages.enumerated() {
            switch page {
            case .success(let page):
                html.body +=
                    "<li class=\"\(page.exitCode == 0 ? "succeeded" : "failed")\"><a href=\"#plan-\(index + 1)\">"
                html.body += HTMLPage.escape(page.file) + "</a> · exit \(page.exitCode)</li>"
            case .failure(let error):
                html.body += "<li class=\"failed\">" + HTMLPage.escape(error.message) + "</li>"
            }
        }
        html.body += "</ol></nav>\n"
        for (index, page) in pages.enumerated() {
            if case .success(let page) = page { html.body += page.section(anchor: "plan-\(index + 1)") }
        }
        return html.text
    }

    /// Renders the report a destination asks for and writes it there whole or not at all
    /// (`OutputFile`), creating missing folders.
    /// - Throws: an `OutputFile.WriteError` naming the reason when the file cannot be written, or
    ///   `ReportReadError` for a trace or HAR of merged reports.
    public func write(to destination: ReportDestination) throws {
        guard let text = render(destination.kind) else {
            throw ReportReadError(
                "merged reports have no \(destination.kind.rawValue): write `json`, `junit` or `html`")
        }
        try OutputFile.write(text, toPath: destination.path)
    }

    /// The suite as one JSON document, format `reqplan-suite/1` (docs/suites.md).
    public func jsonText() -> String {
        var planCounts: [String: Int] = ["passed": 0, "failed": 0, "interrupted": 0]
        var stepCounts: [StepState: Int] = [:]
        for plan in plans {
            switch plan["exit_code"] {
            case .int(0)?: planCounts["passed", default: 0] += 1
            case .int(130)?: planCounts["interrupted", default: 0] += 1
            default: planCounts["failed", default: 0] += 1
            }
            for state in StepState.allCases {
                if case .int(let count)? = plan["counts"]?[state.rawValue] { stepCounts[state, default: 0] += count }
            }
        }
        let shardValue: Value =
            shard.map { shard in
                .object([
                    .init("index", .int(shard.index)), .init("count", .int(shard.count)),
                    .init("files", .int(shard.files)),
                ])
            } ?? .null
        let document = Value.object([
            .init("format", .string(Self.jsonFormat)),
            .init("started_at", .string(RunReport.timeText(startedAt))),
            .init("duration_ms", duration.millisecondsValue),
            .init("exit_code", .int(Int(exitCode))),
            .init("interrupted", .bool(interrupted)),
            .init("shard", shardValue),
            .init(
                "counts",
                .object([
                    .init(
                        "plans",
                        .object(["passed", "failed", "interrupted"].map { .init($0, .int(planCounts[$0] ?? 0)) })),
                    .init("steps", .object(StepState.allCases.map { .init($0.rawValue, .int(stepCounts[$0] ?? 0)) })),
                ])),
            .init("plans", .list(plans)),
        ])
        return document.jsonText(pretty: true) + "\n"
    }

    /// The suite as JUnit XML: one `<testsuite>` per plan file (named by its path, with its properties),
    /// holding every test case of the plan; a case's `classname` is its scope's path, as in a plan's own
    /// JUnit report.
    public func junitXML() -> String {
        var files: [(plan: JUnitPlan, suite: JUnitSuite)] = []
        for report in plans {
            guard let plan = try? JUnitPlan(json: report) else { continue }
            var suite = JUnitSuite(name: plan.file, classname: "")
            suite.start = .zero
            suite.end = plan.duration
            for scope in plan.suites() {
                suite.cases += scope.cases.map { testCase in
                    var testCase = testCase
                    testCase.classname = testCase.classname ?? scope.classname
                    return testCase
                }
            }
            files.append((plan, suite))
        }
        var xml = XMLWriter()
        JUnitWriter.start(&xml, name: "reqplan suite", suites: files.map(\.suite), duration: duration)
        for file in files {
            JUnitWriter.write(file.suite, timestamp: file.plan.timestamp, properties: file.plan.properties, to: &xml)
        }
        xml.end()
        return xml.text
    }

    /// The suite as Chrome trace events: each plan in two processes of its own (`FILE: requests`,
    /// `FILE: groups, sequences, for_each`), its times counted from the suite's start.
    public func traceJSON() -> String {
        var events: [Value] = []
        for (index, run) in runs.enumerated() {
            events += run.report.traceEvents(
                offset: run.offset.microseconds, firstPid: 2 * index + 1,
                prefix: run.report.graph.plan.source.path + ": ")
        }
        let otherData = Value.object([
            .init("format", .string("reqplan-trace/1")),
            .init("suite", .list(runs.map { .string($0.report.graph.plan.source.path) })),
            .init("started_at", .string(RunReport.timeText(startedAt))),
            .init("duration_ms", duration.millisecondsValue),
            .init("exit_code", .int(Int(exitCode))),
        ])
        let lines = events.map { "  " + $0.jsonText() }.joined(separator: ",\n")
        let text =
            "{\"traceEvents\": [\n" + lines + "\n],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": "
            + otherData.jsonText() + "}\n"
        return text
    }

    /// The suite's summary: a line per plan (with, below a plan that failed, its failed steps, and below
    /// a plan with outputs, its outputs), then the totals. `quiet` keeps only the plans that did not
    /// pass, their failed steps, and the totals.
    public func summaryText(quiet: Bool = false) -> String {
        var out = ""
        var planCounts: [String: Int] = [:]
        var stepCounts: [StepState: Int] = [:]
        for plan in plans {
            let file = plan["plan"]?["file"].flatMap { if case .string(let text) = $0 { text } else { nil } } ?? "?"
            let exitCode = Int32(plan["exit_code"]?.doubleValue ?? 1)
            var counts: [StepState: Int] = [:]
            for state in StepState.allCases {
                if case .int(let count)? = plan["counts"]?[state.rawValue] { counts[state] = count }
            }
            for (state, count) in counts { stepCounts[state, default: 0] += count }
            planCounts[exitCode == 0 ? "passed" : exitCode == 130 ? "interrupted" : "failed", default: 0] += 1
            if quiet && exitCode == 0 { continue }
            out +=
                SuiteSummaryLine.text(
                    file: file, exitCode: exitCode, counts: counts,
                    duration: Int(plan["duration_ms"]?.doubleValue ?? 0),
                    interrupted: plan["interrupted"] == .bool(true),
                    timedOut: plan["timed_out"] == .bool(true)) + "\n"
            if case .list(let steps)? = plan["steps"] { out += Self.failedSteps(steps) }
            if case .list(let errors)? = plan["output_errors"] {
                for case .string(let error) in errors { out += "    ✗ \(error)\n" }
            }
            if !quiet, case .object(let outputs)? = plan["outputs"], !outputs.isEmpty {
                out += "    outputs: " + Value.object(outputs).jsonText() + "\n"
            }
        }
        let planParts = ["passed", "failed", "interrupted"].compactMap { key in
            planCounts[key].map { "\($0) \(key)" }
        }
        let stepTotal = stepCounts.values.reduce(0, +)
        let stepParts = StepState.allCases.compactMap { state in
            stepCounts[state].flatMap { $0 > 0 ? "\($0) \(state.rawValue)" : nil }
        }
        var totals = "\(plans.count) plan\(plans.count == 1 ? "" : "s")"
        if !planParts.isEmpty { totals += ": " + planParts.joined(separator: ", ") }
        totals += "; \(stepTotal) step\(stepTotal == 1 ? "" : "s")"
        if !stepParts.isEmpty { totals += ": " + stepParts.joined(separator: ", ") }
        totals += " in \(Double(duration.milliseconds) / 1000)s"
        if let shard { totals += " (shard \(shard.index)/\(shard.count) of \(shard.files) files)" }
        if interrupted { totals += " (interrupted)" }
        return (out.isEmpty ? "" : out + "\n") + totals + "\n"
    }

    /// A line for every step of `steps` (at any depth) that failed by itself: `    ✗ id  GET → 500  reason`.
    private static func failedSteps(_ steps: [Value]) -> String {
        var out = ""
        for step in steps {
            if step["state"] == .string("failed"), let reason = step["reason"], reason["kind"] != .string("members"),
                case .string(let id)? = step["id"], case .string(let message)? = reason["message"]
            {
                var line = "    ✗ \(id)"
                if case .string(let method)? = step["method"] { line += "  \(method)" }
                if case .int(let status)? = step["status"] { line += " → \(status)" }
                out += line + "  \(message)\n"
            }
            if case .list(let children)? = step["children"] { out += failedSteps(children) }
        }
        return out
    }
}
