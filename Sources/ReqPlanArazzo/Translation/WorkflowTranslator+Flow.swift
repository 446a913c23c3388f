import ReqPlanSyntax

/// `goto` and `end` on success in a sequential workflow, as conditions: control goes from a step that
/// succeeded to the target of the first of its `onSuccess` actions whose criteria all hold, to the end of the
/// workflow for an `end`, and to the next step when none holds. Each step after the first then runs when
/// control reaches it (its `if:`): when some earlier step that succeeded sends it there. A step control does
/// not reach ends `skipped` by its own condition, which is not a failure, and its dependents decide for
/// themselves in the same way. Only forward jumps are run: a `goto` to an earlier step (a loop), to a
/// workflow, on failure, or in a workflow ordered by `dependsOn` is refused as not supported yet.
extension WorkflowTranslator {
    /// Where control may go when a step has succeeded: the step at `target` (nil: the end of the workflow)
    /// when `when` holds.
    struct Transfer {
        var target: Int?
        var when: Expression
    }

    /// The condition under which each step runs (by index), when some step's `onSuccess` moves control;
    /// empty otherwise, and then every step runs after the one before it. Reports the actions that cannot
    /// run.
    mutating func controlFlow() -> [Int: Expression] {
        var transfers: [[Transfer]] = []
        var moves = false
        for (index, step) in workflow.steps.enumerated() {
            let (outgoing, jumps) = self.transfers(from: step, at: index)
            transfers.append(outgoing)
            moves = moves || jumps
        }
        guard moves else { return [:] }
        var conditions: [Int: Expression] = [:]
        for index in workflow.steps.indices.dropFirst() {
            let range = workflow.steps[index].id.range
            let arriving = transfers.joined().filter { $0.target == index }.map(\.when)
            conditions[index] =
                arriving.dropFirst().reduce(arriving.first ?? .literal(.bool(false), range)) {
                    .binary(.or, $0, $1, range)
                }
        }
        return conditions
    }

    /// The ways control leaves step `index` when it succeeds, and whether any of them is not simply the
    /// next step.
    private mutating func transfers(from step: ArazzoStep, at index: Int) -> ([Transfer], Bool) {
        let range = step.id.range
        let succeeded = Expression.binary(
            .equal, path("steps", [.member(step.id.value), .member("state")], at: range),
            .literal(.string("succeeded"), range), range)
        var notEarlier = succeeded
        var result: [Transfer] = []
        var jumps = false
        let isLast = index == workflow.steps.count - 1
        let entries = step.onSuccess.isEmpty ? workflow.successActions : step.onSuccess
        for entry in entries {
            guard let action = action(entry, success: true), let target = destination(of: action, from: index)
            else { continue }
            let criteria = action.criteria.compactMap { criterion($0, of: step, place: .after(step)) }
                .map(\.expression)
            guard criteria.count == action.criteria.count else { continue }
            let fires = criteria.dropFirst().reduce(criteria.first ?? .literal(.bool(true), action.kind.range)) {
                .binary(.and, $0, $1, action.kind.range)
            }
            result.append(Transfer(target: target.index, when: .binary(.and, notEarlier, fires, range)))
            notEarlier = .binary(.and, notEarlier, .not(fires, range), range)
            jumps = jumps || target.index != index + 1 && !(target.index == nil && isLast)
        }
        if !isLast { result.append(Transfer(target: index + 1, when: notEarlier)) }
        return (result, jumps)
    }

    /// Where an `onSuccess` action sends control.
    private enum Destination {
        /// The step at this index, after the one the action belongs to.
        case step(Int)
        /// The end of the workflow.
        case end

        var index: Int? {
            if case .step(let index) = self { return index }
            return nil
        }
    }

    /// Where an `onSuccess` action sends control from step `index`; `nil` (reported) when it cannot be run.
    private mutating func destination(of action: Action, from index: Int) -> Destination? {
        switch action.kind.value {
        case .retry:
            diagnostics.error(
                .invalidValue, "a `retry` action belongs in `onFailure`", at: action.kind.range,
                hint: "on success a step ends the workflow (`end`) or goes to another step (`goto`)")
            return nil
        case .end:
            if workflow.declaresStepDependencies, index != workflow.steps.count - 1 {
                unsupportedFlow("an `end` action", at: action.kind.range)
                return nil
            }
            return .end
        case .goto:
            if let target = action.workflowID {
                // Elsewhere the workflow runs as a state machine (`needsStateMachine`).
                if calledWorkflow(target) != nil { unsupportedFlow("a `goto` to a workflow", at: action.kind.range) }
                return nil
            }
            guard let target = action.stepID else { return nil }
            guard let found = workflow.position(of: target.value) else {
                unknownGotoTarget(target)
                return nil
            }
            if workflow.declaresStepDependencies {
                unsupportedFlow("a `goto`", at: action.kind.range)
                return nil
            }
            guard found > index else {
                diagnostics.error(
                    .arazzoUnsupported,
                    "a `goto` to step `\(target.value)`, which is not after step `\(workflow.steps[index].id.value)` "
                        + "(a loop), is not supported yet", at: target.range,
                    hint: "a `retry` action in `onFailure` sends a request again until its criteria hold")
                return nil
            }
            return .step(found)
        }
    }

    private mutating func unsupportedFlow(_ what: String, at range: SourceRange) {
        diagnostics.error(
            .arazzoUnsupported,
            "\(what) in a workflow whose steps declare `dependsOn` is not supported yet", at: range,
            hint: "there each step runs when what it depends on has ended, not after the one before it")
    }

    mutating func unknownGotoTarget(_ target: Located<String>) {
        let suggestion = Suggestion.replacement(for: target.value, in: workflow.steps.map(\.id.value))
        diagnostics.error(
            .unknownArazzoStep,
            "`goto` names step `\(target.value)`, which is no step of workflow `\(workflow.id.value)`",
            at: target.range, hint: suggestion?.hint, fix: suggestion?.fix)
    }
}
