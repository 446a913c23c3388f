import ReqPlanSyntax

/// A workflow whose actions move control in ways a DAG cannot run (a `goto` back to an earlier step, a
/// `goto` or an `end` on failure, a `goto` to a workflow) runs as a state machine (`FlowControl`): its steps
/// become the members of one sequence, `flow`, and after each member the first of its actions that applies
/// says where control goes. A failure an action takes is handled; a step runs at most
/// `FlowControl.defaultMaxVisits` times. Forward `goto`s and `end` on success alone keep their lighter form,
/// conditions on the steps (`controlFlow()`).
extension WorkflowTranslator {
    /// The id of the sequence that holds a state machine's steps.
    static let flowStepID = "flow"

    /// The actions of a step, the workflow's after its own: the workflow's apply to every step, a step's
    /// action of the same name overriding one (the spec: "can be overridden at the step level but cannot be
    /// removed there").
    func entries(of step: ArazzoStep, success: Bool) -> [ActionEntry] {
        let own = success ? step.onSuccess : step.onFailure
        let inherited = success ? workflow.successActions : workflow.failureActions
        let names = Set(own.compactMap { peek($0, success: success)?.name?.value })
        return own
            + inherited.filter { entry in peek(entry, success: success)?.name.map { !names.contains($0.value) } ?? true
            }
    }

    /// An action without reporting what is wrong with it (that is reported where it is translated).
    func peek(_ entry: ActionEntry, success: Bool) -> Action? {
        switch entry {
        case .action(let action): return action
        case .reference(let reference):
            let prefix = success ? "$components.successActions." : "$components.failureActions."
            guard reference.value.hasPrefix(prefix) else { return nil }
            let name = String(reference.value.dropFirst(prefix.count))
            return success ? document.components.successActions[name] : document.components.failureActions[name]
        }
    }

    /// Whether the workflow's actions need the state machine: a `goto` to a workflow, a `goto` to the step
    /// itself or an earlier one, or a `goto` or an `end` on failure.
    func needsStateMachine() -> Bool {
        for (index, step) in workflow.steps.enumerated() {
            for entry in entries(of: step, success: true) {
                guard let action = peek(entry, success: true), action.kind.value == .goto else { continue }
                if action.workflowID != nil { return true }
                if let target = action.stepID, let found = workflow.position(of: target.value), found <= index {
                    return true
                }
            }
            for entry in entries(of: step, success: false) {
                guard let action = peek(entry, success: false) else { continue }
                if action.kind.value == .goto || action.kind.value == .end { return true }
            }
        }
        return false
    }

    /// Which steps control may reach from each step (its next one, and its actions' targets), for the check
    /// that a step reads only outputs of steps that may have run before it.
    func reachability() -> [Set<Int>] {
        let count = workflow.steps.count
        var edges: [[Int]] = Array(repeating: [], count: count)
        for (index, step) in workflow.steps.enumerated() {
            if index + 1 < count { edges[index].append(index + 1) }
            for entry in entries(of: step, success: true) + entries(of: step, success: false) {
                guard let action = peek(entry, success: true) ?? peek(entry, success: false),
                    action.kind.value == .goto, let target = action.stepID,
                    let found = workflow.position(of: target.value)
                else { continue }
                edges[index].append(found)
            }
        }
        return (0..<count).map { start in
            var seen: Set<Int> = []
            var pending = edges[start]
            while let next = pending.popLast() {
                guard seen.insert(next).inserted else { continue }
                pending += edges[next]
            }
            return seen
        }
    }

    /// The state machine over the translated `members` (one per step of the workflow, in order): their control,
    /// and the members it adds, one per `goto` to a workflow (a sub-plan of that workflow, after which the
    /// workflow ends).
    mutating func stateMachine(over members: [Step]) -> (members: [Step], flow: FlowControl) {
        var all = members
        var control: [FlowControl.Member] = []
        for (index, step) in workflow.steps.enumerated() {
            var success: [FlowControl.Transition] = []
            var failure: [FlowControl.Transition] = []
            for entry in entries(of: step, success: true) {
                guard let action = action(entry, success: true) else { continue }
                if let transition = transition(for: action, from: step, success: true, adding: &all) {
                    success.append(transition)
                }
            }
            for entry in entries(of: step, success: false) {
                guard let action = action(entry, success: false), action.kind.value != .retry else { continue }
                if let transition = transition(for: action, from: step, success: false, adding: &all) {
                    failure.append(transition)
                }
            }
            let next: FlowControl.Target = index + 1 < workflow.steps.count ? .member(index + 1) : .end
            control.append(FlowControl.Member(onSuccess: success, onFailure: failure, next: next))
        }
        // The workflows a `goto` runs: then the workflow ends (a one-way transfer).
        for _ in members.count..<all.count {
            control.append(FlowControl.Member(onSuccess: [], onFailure: [], next: .end))
        }
        return (all, FlowControl(members: control))
    }

    /// Where an action sends control from `step`; nil (reported) when it cannot.
    private mutating func transition(
        for action: Action, from step: ArazzoStep, success: Bool, adding members: inout [Step]
    ) -> FlowControl.Transition? {
        let criteria = action.criteria.compactMap { criterion($0, of: step, place: .after(step)) }.map(\.expression)
        guard criteria.count == action.criteria.count else { return nil }
        let range = action.kind.range
        let when = criteria.dropFirst().reduce(criteria.first) { partial, next in
            partial.map { .binary(.and, $0, next, range) }
        }
        let name = "\(action.kind.value.rawValue)" + (action.name.map { " `\($0.value)`" } ?? "")
        switch action.kind.value {
        case .retry:
            diagnostics.error(
                .invalidValue, "a `retry` action belongs in `onFailure`", at: range,
                hint: "on success a step ends the workflow (`end`) or goes to another step (`goto`)")
            return nil
        case .end:
            return FlowControl.Transition(target: .end, when: when, name: name, range: range)
        case .goto:
            if let target = action.stepID {
                guard let found = workflow.position(of: target.value) else {
                    unknownGotoTarget(target)
                    return nil
                }
                return FlowControl.Transition(
                    target: .member(found), when: when, name: name + " to `\(target.value)`", range: range)
            }
            guard let written = action.workflowID, let (called, file) = calledWorkflowAndFile(written) else {
                return nil
            }
            var inputs: [SubPlanInput] = []
            for entry in action.parameters {
                guard let parameter = resolve(entry) else { continue }
                if let location = parameter.location {
                    diagnostics.error(
                        .invalidArazzoParameter,
                        "a parameter of an action that runs a workflow has `in: \(location.value)`",
                        at: location.range, hint: "a workflow's parameters are its inputs: leave `in` out")
                }
                inputs.append(SubPlanInput(name: parameter.name, value: givenValue(parameter.value, in: .after(step))))
            }
            var id = "\(step.id.value) goto \(called.id.value)"
            while members.contains(where: { $0.id.value == id }) || workflow.step(id) != nil { id += "'" }
            let call = SubPlanCall(
                file: Located(file, at: written.range), inputs: inputs, key: written, inputsKey: nil,
                entry: called.id.value)
            members.append(
                Step(
                    id: Located(id, at: written.range), kind: .plan(call), needs: [], condition: nil,
                    description: "the workflow a `goto` of step `\(step.id.value)` runs", timeout: nil, retry: nil,
                    expect: nil, concurrency: nil, onFailure: nil, range: action.range))
            return FlowControl.Transition(
                target: .member(members.count - 1), when: when, name: name + " to workflow `\(called.id.value)`",
                range: range)
        }
    }
}
