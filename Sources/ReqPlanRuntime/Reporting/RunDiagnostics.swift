import ReqPlanPlanner
import ReqPlanSyntax

extension RunResult {
    /// Every failure of the run as a diagnostic located at its step in the plan, so run
    /// errors render exactly like validation errors.
    /// - Parameter unset: the optional inputs the run left null for want of their environment variable: the
    ///   failure of a request step of the plan that used one names it (an empty `Authorization` explains a 401).
    public func diagnostics(graph: PlanGraph, unset: UnsetEnvironment? = nil) -> [Diagnostic] {
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
            case .authorization: code = .authorizationFailed
            default: code = .runtimeEvaluation
            }
            let node = graph.node(result.id)
            let item = result.itemIndex.map { " (item #\($0))" } ?? ""
            var notes: [Diagnostic.Note] = []
            if let method = result.method, let url = result.url { notes.append(.init("request: \(method) \(url)")) }
            if let tries = result.triesText { notes.append(.init("after \(tries)")) }
            // What came back, and the expectation it did not meet, where the plan writes it.
            if let excerpt = result.responseExcerpt {
                notes.append(.init("the response\(result.status.map { " (\($0))" } ?? "") began: \(excerpt)"))
            }
            if let range = reason.range {
                notes.append(
                    .init(reason.kind == .expectation ? "the expectation not met" : "where it failed", at: range))
            }
            if let unset, let node, node.instance == 0, node.step.request != nil {
                for value in unset.read(byStep: node.localID) {
                    let use = unset.uses.first { $0.unset == value && ($0.step == nil || $0.step == node.localID) }
                    notes.append(
                        .init(
                            "the request used \(value.subject), which was \(value.value): \(value.reason)",
                            at: use?.range))
                }
            }
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
