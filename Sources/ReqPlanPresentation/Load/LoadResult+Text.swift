import Foundation
import Synchronization
import ReqPlanRuntime
import ReqPlanSyntax

extension LoadResult {
    /// The percentiles every table shows, with their column names.
    static let columns: [(name: String, percentile: Double)] = [
        ("p50", 50), ("p90", 90), ("p95", 95), ("p99", 99), ("p99.9", 99.9),
    ]

    /// The summary `reqplan load` prints at the end: what ran, the counts and rates, a table of latency
    /// percentiles for the iteration and each step, the failure reasons, and the `slo:` outcomes.
    /// - Parameter outcomes: the plan's objectives checked against the result (`ObjectiveCheck`).
    public func summaryText(outcomes: [ObjectiveOutcome], colors: Bool = false) -> String {
        var out = "load \(VisibleText.line(plan)): \(model) model, \(target)\n"
        if let stopped { out += "stopped: \(VisibleText.line(stopped))\n" }
        let window = ObjectiveCheck.milliseconds(measured)
        out += "iterations  \(iteration.runs) in \(window) (\(Self.rate(iterationRate))/s), \(iteration.failed) failed"
        out += "; \(warmUp) in the warm-up, \(late) late, \(dropped) dropped, \(interrupted) interrupted\n"
        out += "requests    \(requests) (\(Self.rate(requestRate))/s), \(Self.bytes(iteration.bytes)) received"
        if let connections { out += ", \(connections) connections opened" }
        out += "\n"
        if model == "open", startDelay.count > 0 {
            out += "start delay p99 \(ObjectiveCheck.milliseconds(startDelay.latency(atPercentile: 99)))"
            out += ", max \(ObjectiveCheck.milliseconds(startDelay.max))\n"
        }
        out += "\n" + table()
        let failing = [("the iteration", iteration)] + steps.map { ("`\($0.id)`", $0.figures) }
        let reasons = failing.flatMap { name, figures in figures.errorsByCount.map { (name, $0.reason, $0.count) } }
        if !reasons.isEmpty {
            out += "\nfailures:\n"
            for (name, reason, count) in reasons.prefix(20) {
                out += "  \(VisibleText.line(name)) ×\(count): \(VisibleText.line(reason))\n"
            }
            if reasons.count > 20 { out += "  … \(reasons.count - 20) more reasons in the JSON report\n" }
        }
        if !outcomes.isEmpty {
            out += "\nobjectives:\n"
            for outcome in outcomes {
                let mark = outcome.met ? paint("✓", "32", colors) : paint("✗", "31", colors)
                out += "  \(mark) \(VisibleText.line(outcome.summary))\n"
            }
        }
        return out
    }

    /// A table of the iteration's and each step's runs, error rate, percentiles and longest latency.
    public func table() -> String {
        let header = ["", "runs", "err%"] + Self.columns.map(\.name) + ["max"]
        var rows = [header]
        for (name, figures) in [("(iteration)", iteration)] + steps.map({ ($0.id, $0.figures) }) {
            rows.append(
                [VisibleText.line(name), "\(figures.runs)", ObjectiveCheck.percent(figures.errorRate)]
                    + Self.columns.map {
                        ObjectiveCheck.milliseconds(figures.latency.latency(atPercentile: $0.percentile))
                    }
                    + [ObjectiveCheck.milliseconds(figures.latency.max)])
        }
        return Self.aligned(rows)
    }

    /// One line of live progress: time, the last second's rate and percentiles, iterations in flight, totals.
    public static func progressLine(_ progress: LoadRun.Progress) -> String {
        let result = progress.result
        let last = result.series.last
        let seconds = Int(progress.elapsed.components.seconds)
        var line = "\(seconds)s  \(last?.iterations ?? 0) it/s  \(last?.requests ?? 0) req/s"
        if let last, last.iterations > 0 {
            line += "  p50 \(micros(last.p50))  p99 \(micros(last.p99))  max \(micros(last.max))"
        }
        line += "  in flight \(progress.inFlight)  done \(result.iteration.runs)  failed \(result.iteration.failed)"
        if result.late > 0 { line += "  late \(result.late)" }
        return line
    }

    /// The live table: the progress line and the table of the figures so far.
    public static func progressTable(_ progress: LoadRun.Progress) -> [String] {
        [progressLine(progress), ""] + progress.result.table().split(separator: "\n").map(String.init)
    }

    private static func micros(_ value: UInt64) -> String {
        ObjectiveCheck.milliseconds(.microseconds(Int64(min(value, UInt64(Int64.max)))))
    }

    /// Rows of cells as columns: the first left-aligned, the others right-aligned.
    static func aligned(_ rows: [[String]]) -> String {
        let widths = (0..<(rows.first?.count ?? 0)).map { column in
            rows.map { $0[column].count }.max() ?? 0
        }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }

    static func rate(_ value: Double) -> String { String(format: "%.1f", value) }

    static func bytes(_ count: UInt64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    private func paint(_ text: String, _ code: String, _ colors: Bool) -> String {
        colors ? "\u{1B}[\(code)m" + text + "\u{1B}[0m" : text
    }
}

/// The live display of a load on standard error, updated every second: on a terminal a table redrawn in
/// place (the progress line, then the iteration's and each step's figures so far), else one progress line
/// per second.
public final class LoadProgressDisplay: Sendable {
    /// How progress is shown.
    public enum Mode: Sendable {
        case table, lines, silent
    }

    private let mode: Mode
    private let write: @Sendable (String) -> Void
    private let drawn = Mutex(0)
    private let maxRows: Int

    /// A display writing with `write`, at most `terminalRows` lines tall.
    public init(mode: Mode, terminalRows: Int, write: @escaping @Sendable (String) -> Void) {
        self.mode = mode
        self.write = write
        self.maxRows = max(terminalRows - 2, 4)
    }

    /// Shows `progress`.
    public func show(_ progress: LoadRun.Progress) {
        switch mode {
        case .silent: return
        case .lines:
            // The summary follows at once: the last figures are in it.
            if !progress.final { write(LoadResult.progressLine(progress) + "\n") }
        case .table:
            var lines = LoadResult.progressTable(progress)
            if lines.count > maxRows {
                let hidden = lines.count - maxRows + 1
                lines = Array(lines.prefix(maxRows - 1)) + ["… \(hidden) more steps"]
            }
            let text = drawn.withLock { drawn -> String in
                var out = drawn > 0 ? "\u{1B}[\(drawn)A" : ""
                for line in lines { out += "\u{1B}[2K" + line + "\n" }
                drawn = lines.count
                return out
            }
            write(text)
        }
    }
}
