import Foundation
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanRuntime
import ReqPlanSyntax
import ReqPlanTestSupport
import Synchronization
import Testing

enum ReportTestError: Error {
    case invalidPlan
    case invalidInputs
}

/// A plan run for report tests: its graph, inputs and result.
struct ReportRun {
    var graph: PlanGraph
    var inputs: RunInputs
    var result: RunResult

    var report: RunReport { RunReport(result: result, graph: graph, inputs: inputs) }

    /// The same run with every time replaced by a fixed layout (see `TimingNormaliser`).
    var normalised: ReportRun {
        var copy = self
        copy.result = TimingNormaliser(graph: graph).normalise(result)
        return copy
    }
}

/// Validates and runs a plan written in a test over the transport double.
/// - Parameters:
///   - file: the plan's path as reports show it.
///   - inputs: `--input`-style values (so secret inputs are resolved as the command line does).
///   - cancelWhenHanging: cancels the run, as an interrupt (SIGINT) does, once a `hang=1` request is in flight.
func runPlan(
    _ yaml: String, file: String = "test.yaml", inputs: [String: String] = [:], concurrency: Int? = nil,
    cancelWhenHanging: Bool = false
) async throws -> ReportRun {
    let report = PlanValidator.validate(SourceFile(path: file, text: yaml))
    guard let graph = report.graph, report.errorCount == 0 else {
        let renderer = DiagnosticRenderer(files: [report.source].compactMap { $0 })
        Issue.record("the test plan is invalid:\n\(renderer.text(report.diagnostics))")
        throw ReportTestError.invalidPlan
    }
    let overrides = inputs.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    let runInputs: RunInputs
    switch InputResolver.resolve(plan: graph.plan, overrides: overrides, environment: [:]) {
    case .success(let resolved): runInputs = resolved
    case .failure(let errors):
        Issue.record("the test inputs are invalid: \(errors.diagnostics.map(\.message))")
        throw ReportTestError.invalidInputs
    }
    var configuration = RunConfiguration(
        concurrency: concurrency,
        files: FileAccess(planDirectory: URL(fileURLWithPath: NSTemporaryDirectory())))
    configuration.backoffScale = 0.01
    let transport = ScriptedTestTransport()
    let executor = Executor(graph: graph, transport: transport, inputs: runInputs, configuration: configuration)
    let task = Task { await executor.run() }
    if cancelWhenHanging {
        for await _ in transport.hanging {
            task.cancel()
            break
        }
    }
    return ReportRun(graph: graph, inputs: runInputs, result: await task.value)
}

/// Replaces every time of a run by a fixed layout that depends only on the plan's structure and
/// on what happened (not on how long it took), so reports of it can be compared with golden files.
///
/// The steps of a scope (the plan, a group, a sequence, an item of a for_each over a group) start
/// together at the scope's start, except that a step starts only once the steps it depends on in
/// the layout have ended (so a sequence's members follow one another); items of a for_each all
/// start together. A step that ran becomes ready at its time `t`, starts at `t+1` ms and ends 1 ms
/// after its last attempt or member; each attempt takes 10 ms and each retry wait 5 ms. A step
/// that never started is ready and ends at `t`. The run starts at 2023-11-14T22:13:20Z and lasts
/// until its last step ends.
struct TimingNormaliser {
    let graph: PlanGraph
    static let startedAt = Date(timeIntervalSince1970: 1_700_000_000)

    func normalise(_ original: RunResult) -> RunResult {
        var result = original
        var ends: [NodeID: Int64] = [:]
        let roots = graph.roots.map { result.results[graph.nodes[$0].id] }
        let (laidOut, end) = layoutScope(graph.roots, roots, at: 0, ends: &ends, in: &result)
        for (root, stepResult) in zip(graph.roots, laidOut) {
            if let stepResult { result.results[graph.nodes[root].id] = stepResult }
        }
        result.duration = .milliseconds(end + 1)
        result.startedAt = Self.startedAt
        return result
    }

    private static func ms(_ value: Int64) -> Duration { .milliseconds(value) }

    /// Lays out the steps of one scope from `time`, each after the steps it depends on.
    private func layoutScope(
        _ nodes: [NodeID], _ results: [StepResult?], at time: Int64, ends: inout [NodeID: Int64],
        in run: inout RunResult
    ) -> ([StepResult?], Int64) {
        var laidOut = results
        var pending = Array(nodes.indices)
        var end = time
        let members = Set(nodes)
        while !pending.isEmpty {
            let ready = pending.filter { position in
                graph.nodes[nodes[position]].dependencies.allSatisfy {
                    !members.contains($0.target) || ends[$0.target] != nil
                }
            }
            // A cycle cannot happen in a plan; lay out the rest anyway rather than loop forever.
            for position in ready.isEmpty ? pending : ready {
                let node = graph.nodes[nodes[position]]
                let start = node.dependencies.compactMap { ends[$0.target] }.reduce(time, max)
                var stepEnd = start
                if let stepResult = results[position] {
                    let (result, finished) = layout(stepResult, node, at: start, ends: &ends, in: &run)
                    laidOut[position] = result
                    if node.loop == nil { run.results[node.id] = result }
                    stepEnd = finished
                }
                ends[node.nodeID] = stepEnd
                end = max(end, stepEnd)
            }
            let done = Set(ready.isEmpty ? pending : ready)
            pending.removeAll { done.contains($0) }
        }
        return (laidOut, end)
    }

    /// Lays out a step from `time`; returns it and its end.
    private func layout(
        _ original: StepResult, _ node: StepNode, at time: Int64, ends: inout [NodeID: Int64], in run: inout RunResult
    ) -> (StepResult, Int64) {
        var stepResult = original
        guard original.start != nil else {
            stepResult.ready = original.ready.map { _ in Self.ms(time) }
            stepResult.end = original.end.map { _ in Self.ms(time) }
            // A group or sequence that never ran: its members' results are in the run's results.
            if node.loop == nil, original.children == nil,
                node.kind == .group || node.kind == .sequence || node.kind == .plan
            {
                let members = node.children.map { run.results[graph.nodes[$0].id] }
                _ = layoutScope(node.children, members, at: time, ends: &ends, in: &run)
            }
            return (stepResult, time)
        }
        stepResult.ready = Self.ms(time)
        stepResult.start = Self.ms(time + 1)
        var cursor = time + 2
        switch node.kind {
        case .request:
            cursor = layoutAttempts(&stepResult, from: cursor)
        case .group, .sequence, .plan:
            if let children = original.children, children.count == node.children.count {
                let (laidOut, end) = layoutScope(node.children, children, at: cursor, ends: &ends, in: &run)
                stepResult.children = laidOut.compactMap { $0 }
                cursor = end
            }
        case .forEachRequest, .forEachGroup:
            if var items = original.children {
                var end = cursor
                for index in items.indices {
                    var itemEnds = ends
                    let (laidOut, itemEnd) = layoutItem(items[index], node, at: cursor, ends: &itemEnds, in: &run)
                    items[index] = laidOut
                    end = max(end, itemEnd)
                }
                stepResult.children = items
                cursor = end
            }
        }
        stepResult.end = Self.ms(cursor + 1)
        return (stepResult, cursor + 1)
    }

    private func layoutItem(
        _ original: StepResult, _ loop: StepNode, at time: Int64, ends: inout [NodeID: Int64], in run: inout RunResult
    ) -> (StepResult, Int64) {
        var item = original
        guard original.start != nil else {
            item.ready = original.ready.map { _ in Self.ms(time) }
            item.end = original.end.map { _ in Self.ms(time) }
            return (item, time)
        }
        item.ready = Self.ms(time)
        item.start = Self.ms(time)
        var cursor = time + 1
        if loop.kind == .forEachRequest {
            cursor = layoutAttempts(&item, from: cursor)
        } else if let members = original.children, members.count == loop.children.count {
            let (laidOut, end) = layoutScope(loop.children, members, at: cursor, ends: &ends, in: &run)
            item.children = laidOut.compactMap { $0 }
            cursor = end
        }
        item.end = Self.ms(cursor + 1)
        return (item, cursor + 1)
    }

    private func layoutAttempts(_ stepResult: inout StepResult, from start: Int64) -> Int64 {
        var cursor = start
        for index in stepResult.attempts.indices {
            stepResult.attempts[index].start = Self.ms(cursor)
            stepResult.attempts[index].duration = Self.ms(10)
            cursor += 10
            if stepResult.attempts[index].retryDelay != nil {
                stepResult.attempts[index].retryDelay = Self.ms(5)
                cursor += 5
            }
        }
        return cursor
    }
}

/// The reports' golden files, in `Tests/ReqPlanPresentationTests/Golden` (checked by ``Golden`` of the test support).
enum ReportGolden {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    /// Compares `actual` with the golden file `name` (see ``Golden/check(_:against:recording:sourceLocation:)``).
    static func check(_ actual: String, against name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation)
        throws
    {
        try Golden.check(actual, against: directory.appendingPathComponent(name), sourceLocation: sourceLocation)
    }
}

/// Runs a Python 3 script with arguments; returns its exit status and output.
func runPython(_ script: String, arguments: [String]) throws -> (status: Int32, output: String) {
    try runCommand("python3", ["-c", script] + arguments)
}

/// A fresh temporary folder.
func temporaryFolder() throws -> URL {
    let folder = TestFolders.unique("reqplan-reports")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
