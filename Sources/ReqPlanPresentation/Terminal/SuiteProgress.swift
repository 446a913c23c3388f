import Foundation
import ReqPlanRuntime
import Synchronization

/// Shows a suite while it runs, one plan per line.
///
/// On a terminal the plans running (with their steps done), the plans that failed and a count of the
/// rest are redrawn in place; elsewhere (CI logs) one line is printed per finished plan, the same line
/// the summary shows. The lines come from each plan's result, which is redacted already.
public final class SuiteProgress: Sendable {
    private struct Plan {
        var file: String
        var steps: Int
        var stepsDone = 0
        var start: ContinuousClock.Instant?
        var line: String?
        var failed = false
    }

    private let mode: LiveProgress.Mode
    private let colors: Bool
    private let write: @Sendable (String) -> Void
    private let maxRows: Int
    private let plans: Mutex<[Plan]>
    private let drawnLines = Mutex(0)

    /// Creates a display for the plans of a suite.
    /// - Parameters:
    ///   - files: the plans' files, in suite order.
    ///   - steps: how many steps each plan has outside for_each bodies (what its summary counts).
    ///   - mode: tree (a terminal), lines (logs) or silent.
    ///   - colors: use ANSI colors.
    ///   - terminalRows: the terminal's height, to keep the display on one screen.
    ///   - write: where text goes (standard error).
    public init(
        files: [String], steps: [Int], mode: LiveProgress.Mode, colors: Bool,
        terminalRows: Int = 40, write: @escaping @Sendable (String) -> Void
    ) {
        self.mode = mode
        self.colors = colors
        self.write = write
        self.maxRows = max(5, terminalRows - 2)
        self.plans = Mutex(zip(files, steps).map { Plan(file: $0, steps: $1) })
    }

    /// What watches the run of plan `index`: it counts the plan's finished steps.
    public func observer(for index: Int) -> any ExecutionObserver {
        PlanObserver(progress: self, index: index)
    }

    /// Plan `index` starts.
    public func started(_ index: Int) {
        plans.withLock { $0[index].start = .now }
    }

    /// Plan `index` ended with `result`: in lines mode its line is printed.
    public func finished(_ index: Int, result: RunResult) {
        let line = plans.withLock { plans in
            let text = SuiteSummaryLine.text(file: plans[index].file, result: result, colors: colors)
            plans[index].line = text
            plans[index].failed = result.exitCode != 0
            return text
        }
        if mode == .lines { write(line + "\n") }
    }

    /// Redraws the display (tree mode). Call it periodically and once at the end.
    public func redraw() {
        guard mode == .tree else { return }
        let now = ContinuousClock.now
        let lines = plans.withLock { plans -> [String] in
            var lines = plans.filter(\.failed).compactMap(\.line)
            for plan in plans where plan.start != nil && plan.line == nil {
                let elapsed = plan.start.map { Int((now - $0).milliseconds) } ?? 0
                lines.append(
                    paint("●", "36") + " \(plan.file)  \(plan.stepsDone)/\(plan.steps) steps  "
                        + StepResult.elapsedText(milliseconds: elapsed))
            }
            if lines.count > maxRows - 1 { lines = Array(lines.suffix(maxRows - 1)) }
            let done = plans.count { $0.line != nil }
            let waiting = plans.count { $0.start == nil }
            let failed = plans.count(where: \.failed)
            lines.append(
                paint(
                    "  \(done) of \(plans.count) plan\(plans.count == 1 ? "" : "s") done"
                        + (failed > 0 ? " (\(failed) failed)" : "")
                        + (waiting > 0 ? ", \(waiting) waiting" : ""), "2"))
            return lines
        }
        let text = drawnLines.withLock { drawn in
            var out = drawn > 0 ? "\u{1B}[\(drawn)A" : ""
            for line in lines { out += "\u{1B}[2K" + line + "\n" }
            if lines.count < drawn { out += "\u{1B}[J" }
            drawn = lines.count
            return out
        }
        write(text)
    }

    private func paint(_ text: String, _ code: String) -> String {
        colors ? "\u{1B}[\(code)m" + text + "\u{1B}[0m" : text
    }

    fileprivate func stepFinished(_ index: Int) {
        plans.withLock { $0[index].stepsDone += 1 }
    }

    /// Counts the finished steps of one plan (members included, not for_each items).
    private struct PlanObserver: ExecutionObserver {
        let progress: SuiteProgress
        let index: Int
        func stepStarted(_ id: String, item: Int?, at time: Duration) {}
        func attemptFinished(_ id: String, item: Int?, attempt: AttemptRecord) {}
        func stepFinished(_ result: StepResult) {
            if result.itemIndex == nil { progress.stepFinished(index) }
        }
    }
}

/// One plan's line in a suite's progress and summary:
/// `✗ plans/suite/orders.yaml  6 steps: 4 succeeded, 1 failed, 1 skipped  320ms`.
public enum SuiteSummaryLine {
    /// The line of a plan that ran.
    public static func text(file: String, result: RunResult, colors: Bool = false) -> String {
        text(
            file: file, exitCode: result.exitCode, counts: result.counts, duration: Int(result.duration.milliseconds),
            interrupted: result.interrupted, timedOut: result.timedOut, colors: colors)
    }

    /// The line from a plan's exit code, step counts and duration in milliseconds.
    public static func text(
        file: String, exitCode: Int32, counts: [StepState: Int], duration: Int, interrupted: Bool, timedOut: Bool,
        colors: Bool = false
    ) -> String {
        let symbol: String
        switch exitCode {
        case 0: symbol = colors ? "\u{1B}[32m✓\u{1B}[0m" : "✓"
        case 130: symbol = colors ? "\u{1B}[33m⊘\u{1B}[0m" : "⊘"
        default: symbol = colors ? "\u{1B}[31m✗\u{1B}[0m" : "✗"
        }
        let total = counts.values.reduce(0, +)
        let parts = StepState.allCases.compactMap { state in
            counts[state].flatMap { $0 > 0 ? "\($0) \(state.rawValue)" : nil }
        }
        var line = "\(symbol) \(file)  \(total) step\(total == 1 ? "" : "s")"
        if !parts.isEmpty { line += ": " + parts.joined(separator: ", ") }
        line += "  " + StepResult.elapsedText(milliseconds: duration)
        if interrupted { line += "  (interrupted)" }
        if timedOut { line += "  (timed out)" }
        return line
    }
}
