import Foundation
import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax
import Synchronization

/// Shows a run while it happens.
///
/// On a terminal, a compact tree of the steps (state, elapsed time, for_each `done/total` with a bar,
/// retries) is redrawn in place; elsewhere (CI logs) one line is printed per finished step, with no
/// escape codes. What it shows of a step (its id, status, times and failure reason) is shown as the run's
/// result has it, where redaction has happened already (`SecretFlow`, `Redactor`).
public final class LiveProgress: ExecutionObserver, Sendable {
    /// How progress is shown.
    public enum Mode: Sendable {
        /// Redraw a tree in place (a terminal).
        case tree
        /// One line per finished step (logs).
        case lines
        /// Nothing while running.
        case silent
    }

    private struct Row {
        var id: String
        var depth: Int
        var isLoop: Bool
        var state: StepState?
        var running = false
        var start: Duration?
        var duration: Int?
        var status: Int?
        var attempts = 0
        /// Polls made so far, for a step with `poll:`.
        var polls: Int?
        var itemsDone = 0
        var itemsTotal: Int?
        var reason: String?
    }

    private struct State {
        var rows: [Row]
        var index: [String: Int]
        var drawnLines = 0
        var now: Duration = .zero
    }

    private let mode: Mode
    private let colors: Bool
    private let write: @Sendable (String) -> Void
    private let state: Mutex<State>
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private let maxRows: Int

    /// Creates a progress display for the steps of `graph`.
    /// - Parameters:
    ///   - mode: tree, lines or silent.
    ///   - colors: use ANSI colors (the tree always uses cursor movement).
    ///   - terminalRows: the terminal's height, to keep the tree on one screen.
    ///   - write: where text goes (standard error, so standard output stays for results).
    public init(
        graph: PlanGraph, mode: Mode, colors: Bool, terminalRows: Int = 40,
        write: @escaping @Sendable (String) -> Void
    ) {
        self.mode = mode
        self.colors = colors
        self.write = write
        self.maxRows = max(5, terminalRows - 2)
        self.started = ContinuousClock.now
        var rows: [Row] = []
        var index: [String: Int] = [:]
        for node in graph.nodes where node.loop == nil {
            index[node.id] = rows.count
            rows.append(
                Row(
                    id: node.id, depth: node.depth,
                    isLoop: node.kind == .forEachRequest || node.kind == .forEachGroup))
        }
        self.state = Mutex(State(rows: rows, index: index))
    }

    public func stepStarted(_ id: String, item: Int?, at time: Duration) {
        guard item == nil else { return }
        state.withLock { state in
            guard let row = state.index[id] else { return }
            state.rows[row].running = true
            state.rows[row].start = time
        }
    }

    public func loopStarted(_ id: String, itemCount: Int) {
        state.withLock { state in
            guard let row = state.index[id] else { return }
            state.rows[row].itemsTotal = itemCount
        }
    }

    public func attemptFinished(_ id: String, item: Int?, attempt: AttemptRecord) {
        guard item == nil else { return }
        state.withLock { state in
            guard let row = state.index[id] else { return }
            state.rows[row].attempts = attempt.number
            state.rows[row].polls = attempt.poll
        }
    }

    public func stepFinished(_ result: StepResult) {
        let line: String? = state.withLock { state in
            guard let row = state.index[result.id] else { return nil }
            if result.itemIndex != nil && state.rows[row].isLoop {
                // A for_each item: count it when it succeeded, as the summary's `done/total items` does.
                if result.state == .succeeded { state.rows[row].itemsDone += 1 }
                return nil
            }
            state.rows[row].running = false
            state.rows[row].state = result.state
            state.rows[row].duration = result.durationMilliseconds
            state.rows[row].status = result.status
            state.rows[row].attempts = result.attempts.count
            state.rows[row].polls = result.polls
            if let children = result.children, state.rows[row].isLoop {
                // The summary's count: items cancelled by an interrupt, failed or skipped are not done.
                state.rows[row].itemsTotal = children.count
                state.rows[row].itemsDone = children.count { $0.state == .succeeded }
            }
            state.rows[row].reason =
                result.state == .succeeded ? nil : result.reason.map { VisibleText.line($0.message) }
            return mode == .lines ? render(state.rows[row], now: .zero, plain: true) : nil
        }
        if let line { write(line + "\n") }
    }

    /// Redraws the tree (tree mode). Call it periodically and once at the end.
    public func redraw() {
        guard mode == .tree else { return }
        let text = state.withLock { state -> String in
            let now = clock.now - started
            var lines = state.rows.prefix(maxRows).map { render($0, now: now, plain: false) }
            if state.rows.count > maxRows {
                let done = state.rows.dropFirst(maxRows).filter { $0.state != nil }.count
                lines.append("  … \(state.rows.count - maxRows) more (\(done) done)")
            }
            var out = ""
            if state.drawnLines > 0 { out += "\u{1B}[\(state.drawnLines)A" }
            for line in lines { out += "\u{1B}[2K" + line + "\n" }
            state.drawnLines = lines.count
            return out
        }
        write(text)
    }

    private func paint(_ text: String, _ code: String) -> String {
        colors ? "\u{1B}[\(code)m" + text + "\u{1B}[0m" : text
    }

    private func render(_ row: Row, now: Duration, plain: Bool) -> String {
        let symbol: String
        switch row.state {
        case .succeeded?: symbol = paint("✓", "32")
        case .failed?: symbol = paint("✗", "31")
        case .skipped?: symbol = paint("-", "2")
        case .cancelled?: symbol = paint("⊘", "33")
        case nil: symbol = row.running ? paint("●", "36") : paint("·", "2")
        }
        var line = (plain ? "" : String(repeating: "  ", count: row.depth)) + symbol + " " + row.id
        if let status = row.status { line += "  \(status)" }
        if let total = row.itemsTotal, row.isLoop {
            let width = 12
            let filled = total == 0 ? width : width * row.itemsDone / total
            line +=
                "  [" + String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
                + "] \(row.itemsDone)/\(total)"
        }
        if let duration = row.duration, row.state != .skipped {
            line += "  " + StepResult.elapsedText(milliseconds: duration)
        } else if row.running, let start = row.start {
            line += "  " + StepResult.elapsedText(milliseconds: Int((now - start).milliseconds))
        }
        if let tries = StepResult.triesText(attempts: row.attempts, polls: row.polls) { line += "  (\(tries))" }
        if let reason = row.reason { line += "  " + paint(reason, "2") }
        return line
    }
}
