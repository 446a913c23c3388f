import ReqPlanSyntax

/// One named scenario of a plan (`--scenario ID` of `reqplan run` and `reqplan load`): the step `ID` and
/// what it transitively needs, nothing else.
///
/// - **Kept whole**: the step with all its members, and every step something kept depends on (`needs:`,
///   a `steps.X` or `vars.X` read, the member before it in a sequence), each with all its members (needing
///   a collection waits for all of it).
/// - **Kept as a container**: each group, sequence or for_each around something kept, with only the kept
///   members, and with what it depends on itself (its members wait for it). A sequence with flow control
///   (an Arazzo workflow's) is kept whole.
/// - **Left out**: every other step; the plan's `outputs:` that read a step left out (directly or through a
///   var), those vars, and the `slo:` items of a step left out. The iteration's `slo:` limits stay: they
///   hold the scenario's iterations.
public struct PlanScenario: Sendable {
    /// The step id given.
    public let id: String
    /// The plan's own steps run with all their members.
    public let whole: Set<String>
    /// The groups, sequences and for_each run only for the kept members inside them.
    public let containers: Set<String>
    /// The outputs left out because they read a step left out, in the plan's order.
    public internal(set) var outputsLeftOut: [String] = []
    /// The steps whose `slo:` items were left out, in the plan's order (once each).
    public internal(set) var objectivesLeftOut: [String] = []
    /// The vars left out because they read a step left out (directly or through other vars).
    public internal(set) var varsLeftOut: Set<String> = []

    /// Whether the step of this id (one of the plan's own) runs in the scenario.
    public func runs(_ id: String) -> Bool { whole.contains(id) || containers.contains(id) }

    /// What the scenario leaves out that the user may have expected, one sentence each (for notes).
    public var notes: [String] {
        var notes: [String] = []
        if !outputsLeftOut.isEmpty {
            let names = outputsLeftOut.map { "`\($0)`" }.joined(separator: ", ")
            notes.append(
                "--scenario \(VisibleText.line(id)): "
                    + (outputsLeftOut.count == 1
                        ? "output \(names) reads steps it does not run, and is left out"
                        : "outputs \(names) read steps it does not run, and are left out"))
        }
        if !objectivesLeftOut.isEmpty {
            let names = objectivesLeftOut.map { "`\($0)`" }.joined(separator: ", ")
            notes.append(
                "--scenario \(VisibleText.line(id)): the `slo:` limits of step\(objectivesLeftOut.count == 1 ? "" : "s") "
                    + "\(names), which it does not run, are left out")
        }
        return notes
    }
}

extension PlanGraph {
    /// The scenario of the step `id`: the step, what it transitively depends on, and the collections around
    /// them (`PlanScenario`).
    /// - Parameter id: one of the plan's own step ids, at any depth.
    /// - Returns: the scenario, or RP0213 (with a did-you-mean hint) when the plan has no step `id`.
    /// - Complexity: O(*n* + *e*) in steps (sub-plans' included) and dependencies.
    public func scenario(_ id: String) -> Result<PlanScenario, Diagnostic> {
        guard let start = instances[0].index[id] else { return .failure(unknownScenario(id)) }
        var whole = Set<NodeID>()
        var containers = Set<NodeID>()
        // An explicit stack of (node, kept whole): plans nest deep and have many steps.
        var pending: [(NodeID, Bool)] = [(start, true)]
        while let (node, isWhole) = pending.popLast() {
            // A sequence with flow control (goto, end) runs only as written: whole.
            if isWhole || nodes[node].step.flow != nil {
                guard whole.insert(node).inserted else { continue }
                pending.append(contentsOf: nodes[node].children.map { ($0, true) })
            } else {
                guard !whole.contains(node), containers.insert(node).inserted else { continue }
            }
            pending.append(contentsOf: nodes[node].dependencies.map { ($0.target, true) })
            if let parent = nodes[node].parent { pending.append((parent, false)) }
        }
        containers.subtract(whole)
        func ids(_ set: Set<NodeID>) -> Set<String> {
            Set(set.lazy.filter { self.nodes[$0].instance == 0 }.map { self.nodes[$0].id })
        }
        var scenario = PlanScenario(id: id, whole: ids(whole), containers: ids(containers))
        let kept = whole.union(containers)
        scenario.varsLeftOut = Set(
            instances[0].varSteps.filter { _, steps in steps.contains { !kept.contains($0) } }.keys)
        let varsLeftOut = scenario.varsLeftOut
        for output in plan.outputs
        where output.value.expressions.contains(where: { expression in
            expression.references.contains { reference in
                guard let name = reference.memberName(at: 0)?.value else { return false }
                switch reference.root.value {
                case "steps": return !scenario.runs(name)
                case "vars": return varsLeftOut.contains(name)
                default: return false
                }
            }
        }) {
            scenario.outputsLeftOut.append(output.name.value)
        }
        for objective in plan.slo {
            guard case .step(let step) = objective.subject, !scenario.runs(step.value),
                !scenario.objectivesLeftOut.contains(step.value)
            else { continue }
            scenario.objectivesLeftOut.append(step.value)
        }
        return .success(scenario)
    }

    /// RP0213: `--scenario` names no step of the plan; the hint says the closest id, or where a sub-plan's
    /// step is, or which steps there are.
    private func unknownScenario(_ id: String) -> Diagnostic {
        let shown = VisibleText.line(id)
        let own = nodes.lazy.filter { $0.instance == 0 }.map(\.id)
        let hint: String
        if let node = index[id], let caller = instances[nodes[node].instance].caller {
            hint = "`\(shown)` is a step of the sub-plan that `\(nodes[caller].id)` runs: run `\(nodes[caller].id)`"
        } else if let suggestion = Suggestion.didYouMean(id, in: own) {
            hint = suggestion
        } else {
            let top = instances[0].roots.prefix(10).map { "`\(nodes[$0].id)`" }.joined(separator: ", ")
            hint = "a scenario is a step id of the plan, at any depth; its top-level steps: \(top)"
        }
        var diagnostic = Diagnostic.error(
            .unknownScenario,
            id.isEmpty ? "--scenario names no step" : "--scenario `\(shown)`: the plan has no step `\(shown)`",
            at: nil, hint: hint)
        diagnostic.file = plan.source.path
        return diagnostic
    }
}

extension Plan {
    /// The plan of `scenario`: only the steps it runs (the containers with only their kept members), and
    /// neither the outputs, vars nor `slo:` items that read steps it leaves out.
    public func keeping(_ scenario: PlanScenario) -> Plan {
        var plan = self
        plan.steps = Self.keeping(steps, scenario)
        plan.outputs = outputs.filter { !scenario.outputsLeftOut.contains($0.name.value) }
        plan.vars = vars.filter { !scenario.varsLeftOut.contains($0.name.value) }
        plan.slo = slo.filter { objective in
            guard case .step(let step) = objective.subject else { return true }
            return scenario.runs(step.value)
        }
        return plan
    }

    /// `steps` with those `scenario` leaves out removed, at every depth (nesting is bounded by the parser's
    /// limit, so the recursion is).
    private static func keeping(_ steps: [Step], _ scenario: PlanScenario) -> [Step] {
        steps.compactMap { step in
            if scenario.whole.contains(step.id.value) { return step }
            guard scenario.containers.contains(step.id.value) else { return nil }
            switch step.kind {
            case .group(let members): return step.with(kind: .group(keeping(members, scenario)))
            case .sequence(let members): return step.with(kind: .sequence(keeping(members, scenario)))
            case .forEach(var loop):
                if case .group(let members) = loop.body { loop.body = .group(keeping(members, scenario)) }
                return step.with(kind: .forEach(loop))
            case .request, .plan: return step
            }
        }
    }
}
