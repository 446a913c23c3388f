import ReqPlanPlanner
import ReqPlanSyntax

extension RunResult {
    /// Every failure of the run as a diagnostic located at its step in the plan, so run
    /// errors render exactly like validation errors.
    public func diagnostics(graph: PlanGraph) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        func visit(_ result: StepResult) {
            guard result.state == .failed, let reason = result.reason else { return }
            // A group's own failure is the sum of its members': report the members.
            if reason.kind == .members, let children = result.children {
                for child in children { visit(child) }
                return
            }
            let code: DiagnosticCode
            switch reason.kind {
            case .transport: code = .requestFailed
            case .timeout: code = .timedOut
            case .expectation: code = .expectationFailed
            case .bodyTooLarge: code = .responseTooLarge
            case .members: code = .membersFailed
            default: code = .runtimeEvaluation
            }
            let node = graph.node(result.id)
            let item = result.itemIndex.map { " (item #\($0))" } ?? ""
            var notes: [Diagnostic.Note] = []
            if let method = result.method, let url = result.url { notes.append(.init("request: \(method) \(url)")) }
            if result.attempts.count > 1 { notes.append(.init("after \(result.attempts.count) attempts")) }
            var diagnostic = Diagnostic.error(code, "step `\(result.id)`\(item) failed: \(reason.message)",
                                              at: node?.step.id.range, notes: notes)
            diagnostic.file = graph.plan.source.path
            diagnostics.append(diagnostic)
            for child in result.children ?? [] { visit(child) }
        }
        for id in order { if let result = results[id], graph.node(id)?.parent == nil { visit(result) } }
        if timedOut {
            var diagnostic = Diagnostic.error(.timedOut, "the plan timed out", at: graph.plan.timeout?.range)
            diagnostic.file = graph.plan.source.path
            diagnostics.append(diagnostic)
        }
        for error in outputErrors {
            var diagnostic = Diagnostic.error(.runtimeEvaluation, error, at: nil)
            diagnostic.file = graph.plan.source.path
            diagnostics.append(diagnostic)
        }
        return diagnostics
    }

    /// A compact text summary: one line per step, the outputs, the counts.
    public func summaryText(graph: PlanGraph) -> String {
        var out = ""
        let width = min(32, order.map(\.count).max() ?? 0)
        for id in order {
            guard let result = results[id], let node = graph.node(id) else { continue }
            let symbol: String
            switch result.state {
            case .succeeded: symbol = "✓"
            case .failed: symbol = "✗"
            case .skipped: symbol = "-"
            case .cancelled: symbol = "⊘"
            }
            let indent = String(repeating: "  ", count: node.depth)
            var line = indent + symbol + " " + id.padding(to: max(0, width - indent.count))
            if let method = result.method { line += "  " + method }
            if let status = result.status { line += " → \(status)" }
            if let children = result.children, node.kind == .forEachRequest || node.kind == .forEachGroup {
                let done = children.filter { $0.state == .succeeded }.count
                line += "  \(done)/\(children.count) items"
            }
            if let milliseconds = result.durationMilliseconds, result.state != .skipped { line += "  \(milliseconds)ms" }
            if result.attempts.count > 1 { line += "  (\(result.attempts.count) attempts)" }
            if result.state != .succeeded, let reason = result.reason { line += "  " + reason.message }
            out += line + "\n"
        }
        if !outputs.isEmpty {
            out += "\noutputs:\n"
            for output in outputs { out += "  \(output.name): \(output.value.jsonText())\n" }
        }
        let counts = self.counts
        let parts = StepState.allCases.compactMap { state in counts[state].map { "\($0) \(state.rawValue)" } }
        out += "\n\(results.count) steps: " + parts.joined(separator: ", ")
            + " in \(Double(duration.milliseconds) / 1000)s"
        if interrupted { out += " (interrupted)" }
        if timedOut { out += " (timed out)" }
        return out + "\n"
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
