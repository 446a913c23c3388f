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
            case .schema: code = .responseSchema
            case .bodyTooLarge: code = .responseTooLarge
            case .members: code = .membersFailed
            case .invalidHeader: code = .controlCharacterInHeader
            default: code = .runtimeEvaluation
            }
            let node = graph.node(result.id)
            let item = result.itemIndex.map { " (item #\($0))" } ?? ""
            var notes: [Diagnostic.Note] = []
            if let method = result.method, let url = result.url { notes.append(.init("request: \(method) \(url)")) }
            if let tries = result.triesText { notes.append(.init("after \(tries)")) }
            // A step of a sub-plan is located in its own file, with the chain of plans that include it.
            if let node { notes += graph.inclusionNotes(of: node.instance) }
            var diagnostic = Diagnostic.error(
                code, "step `\(result.id)`\(item) failed: \(reason.message)",
                at: node?.step.id.range, notes: notes)
            diagnostic.file = node.map { graph.plan(of: $0.nodeID).source.path } ?? graph.plan.source.path
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
}
