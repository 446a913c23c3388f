import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax

extension RunResult {
    /// The plan's outputs as one JSON object, in order (`reqplan run --output json`, for piping): the
    /// outputs declared `secret: true` whole (what the caller asked for), the others as every output
    /// shows them (`shownOutputs`: `***` where a secret went in).
    public func outputsJSON() -> String {
        outputsValue.jsonText(pretty: true)
    }

    /// The object `outputsJSON()` writes.
    public var outputsValue: Value {
        .object(
            zip(outputs, shownOutputs).map { output, shown in
                .init(output.name, secretOutputs.contains(output.name) ? output.value : shown.value)
            })
    }

    /// Only the counts line, and the outputs if asked (`--quiet`).
    public func totalsText(withOutputs: Bool) -> String {
        var out = ""
        if withOutputs && !outputs.isEmpty {
            out += "outputs:\n"
            for output in shownOutputs { out += "  \(output.name): \(VisibleText.line(output.value.jsonText()))\n" }
            out += "\n"
        }
        return out + totalsLine + "\n"
    }

    private var totalsLine: String {
        let counts = self.counts
        // Failures a control flow handled (an Arazzo `onFailure` action) are failures that did not fail the run.
        let handled = results.values.filter { $0.state == .failed && $0.handledBy != nil }.count
        let parts = StepState.allCases.compactMap { state in
            counts[state].map {
                "\($0) \(state.rawValue)" + (state == .failed && handled > 0 ? " (\(handled) handled)" : "")
            }
        }
        var line =
            "\(results.count) step\(results.count == 1 ? "" : "s"): " + parts.joined(separator: ", ")
            + " in \(Double(duration.milliseconds) / 1000)s"
        if interrupted { line += " (interrupted)" }
        if timedOut { line += " (timed out)" }
        return line
    }

    /// A compact text summary: one line per step, the outputs, the counts.
    ///
    /// Columns line up: the ids after their indentation (members and sub-plan steps are indented by their
    /// depth), then the request (`GET → 200`, blank for groups), then the rest. An id longer than the id
    /// column (at most 32 wide) ends its line, and its columns follow on the next line, in place.
    public func summaryText(graph: PlanGraph) -> String {
        // Each step's result, node, id width and request, looked up and measured once, and no step node or
        // result copied more than once: a run of thousands of steps prints thousands of lines.
        let stepResults = order.map { results[$0] }
        let nodes = order.map { graph.index[$0] }
        let depths = nodes.map { $0.map { graph.nodes[$0].depth } ?? 0 }
        let idWidths = zip(order, depths).map { id, depth in id.count + 2 * depth }
        let requests = stepResults.map { $0.map(Self.requestText) }
        let width = idWidths.filter { $0 <= Self.idColumnLimit }.max() ?? 0
        let requestWidth = requests.compactMap { $0?.count }.max() ?? 0
        var out = ""
        var timed: [(String, Int)] = []
        for (position, id) in order.enumerated() {
            guard let result = stepResults[position] else { continue }
            if result.children == nil, let milliseconds = result.durationMilliseconds, result.state != .skipped {
                timed.append((id, milliseconds))
            }
            guard let node = nodes[position], let request = requests[position] else { continue }
            let kind = graph.nodes[node].kind
            let symbol: String
            switch result.state {
            case .succeeded: symbol = "✓"
            case .failed: symbol = "✗"
            case .skipped: symbol = "-"
            case .cancelled: symbol = "⊘"
            }
            let indent = String(repeating: "  ", count: depths[position])
            var line = indent + symbol + " " + id.padding(to: max(0, width - indent.count))
            if idWidths[position] > width {
                // Too long for the column: the details go on the next line, under the columns.
                line += "\n" + String(repeating: " ", count: width + 2)
            }
            if requestWidth > 0 { line += "  " + request.padding(to: requestWidth) }
            if let children = result.children, kind == .forEachRequest || kind == .forEachGroup {
                let done = children.filter { $0.state == .succeeded }.count
                line += "  \(done)/\(children.count) items"
            }
            if let milliseconds = result.durationMilliseconds, result.state != .skipped {
                line += "  \(milliseconds)ms"
            }
            if let tries = result.triesText { line += "  (\(tries))" }
            if result.state != .succeeded, let reason = result.reason {
                line += "  " + VisibleText.line(reason.message)
            }
            // A failure the control flow handled (an Arazzo `onFailure` action) did not fail the run.
            if let handled = result.handledBy { line += "  (handled: \(VisibleText.line(handled)))" }
            out += line.trimmingTrailingSpaces() + "\n"
        }
        if !outputs.isEmpty {
            out += "\noutputs:\n"
            for output in shownOutputs { out += "  \(output.name): \(VisibleText.line(output.value.jsonText()))\n" }
        }
        // The slowest requests, to see where the time went.
        let slowest = timed.sorted { $0.1 > $1.1 }.prefix(3)
        if results.count > 3, !slowest.isEmpty {
            out += "\nslowest: " + slowest.map { "\($0.0) \($0.1)ms" }.joined(separator: ", ") + "\n"
        }
        return out + "\n" + totalsLine + "\n"
    }
}

extension RunResult {
    /// The widest id column of the summary; a longer id puts its details on the next line.
    static let idColumnLimit = 32

    /// `GET → 200`, `POST`, or empty for a step that sent no request.
    static func requestText(_ result: StepResult) -> String {
        (result.method ?? "") + (result.status.map { " → \($0)" } ?? "")
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = Substring(self)
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }

    func padding(to width: Int) -> String {
        let count = count
        return count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
