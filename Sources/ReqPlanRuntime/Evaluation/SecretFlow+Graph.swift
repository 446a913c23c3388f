import ReqPlanPlanner
import ReqPlanSyntax

extension SecretFlow {
    /// The flow of every instance of `graph` (indexed as `graph.instances`).
    ///
    /// A sub-plan's input carries a secret when the calling step gives it a value that does, and a
    /// `plan` step's output when the sub-plan declares it secret or computes it from a secret; vars and
    /// for_each items carry one when their value reads one. These depend on each other across files, so
    /// the sets grow until nothing changes (they only grow, and are bounded by the names in the plans).
    /// - Complexity: O(*i* × *e*) per round, for *i* instances and *e* expressions, over at most as many
    ///   rounds as there are names that can carry a secret.
    public static func flows(of graph: PlanGraph) -> [SecretFlow] {
        var flows = graph.instances.map { instance in
            var flow = SecretFlow()
            // Declared secret, or read by a password or token (a secret from the start of the run).
            let credentials = instance.plan.inputsReadAsCredentials
            for input in instance.plan.inputs where input.secret || credentials.contains(input.name.value) {
                flow.inputs.insert(input.name.value)
                if let variable = input.env?.value { flow.environment.insert(variable) }
            }
            flow.headers.formUnion(instance.plan.redactHeaders.map { $0.value.lowercased() })
            return flow
        }
        var changed = true
        while changed {
            changed = false
            for (index, instance) in graph.instances.enumerated() {
                let before = flows[index]
                var flow = before
                // Vars read other vars: grow until stable within the file.
                var grew = true
                while grew {
                    grew = false
                    for variable in instance.plan.vars where !flow.variables.contains(variable.name.value) {
                        if flow.carriesSecret(variable.value) {
                            flow.variables.insert(variable.name.value)
                            grew = true
                        }
                    }
                }
                for step in instance.plan.allSteps {
                    if case .forEach(let loop) = step.kind, let items = loop.items, flow.carriesSecret(items) {
                        flow.items.insert(loop.itemName.value)
                    }
                    guard let call = step.subPlan, let node = instance.index[step.id.value],
                        let callee = graph.subPlanInstance(of: node)
                    else { continue }
                    // What the step gives the sub-plan, and what it gives back.
                    for input in call.inputs where flow.carriesSecret(input.value) {
                        if flows[callee].inputs.insert(input.name.value).inserted { changed = true }
                    }
                    let calleeFlow = flows[callee]
                    let secretOutputs = graph.instances[callee].plan.outputs.filter {
                        $0.isSecret || calleeFlow.carriesSecret($0.value)
                    }.map(\.name.value)
                    flow.stepOutputs[step.id.value, default: []].formUnion(secretOutputs)
                }
                if flow != before {
                    flows[index] = flow
                    changed = true
                }
            }
        }
        return flows
    }
}
