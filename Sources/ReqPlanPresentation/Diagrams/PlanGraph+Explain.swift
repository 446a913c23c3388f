import ReqPlanPlanner
import ReqPlanSyntax

extension PlanGraph {
    /// How a node is named in schedules: its id, with `×item` for a for_each.
    private func unitName(_ id: NodeID) -> String {
        let node = nodes[id]
        return node.kind == .forEachRequest ? "\(node.id) (for_each)" : node.id
    }

    private var counts: String {
        var requests = 0
        var loops = 0
        var groups = 0
        var sequences = 0
        var subPlans = 0
        for node in nodes {
            switch node.kind {
            case .request: requests += 1
            case .forEachRequest, .forEachGroup: loops += 1
            case .group: groups += 1
            case .sequence: sequences += 1
            case .plan: subPlans += 1
            }
        }
        var parts = ["\(requests) request\(requests == 1 ? "" : "s")"]
        if loops > 0 { parts.append("\(loops) for_each") }
        if groups > 0 { parts.append("\(groups) group\(groups == 1 ? "" : "s")") }
        if sequences > 0 { parts.append("\(sequences) sequence\(sequences == 1 ? "" : "s")") }
        if subPlans > 0 { parts.append("\(subPlans) sub-plan\(subPlans == 1 ? "" : "s")") }
        return "\(nodes.count) (" + parts.joined(separator: ", ") + ")"
    }

    private func usageText(_ usage: ResultUsage) -> String {
        var parts: [String] = []
        if usage.whole { parts.append("whole result") }
        parts += usage.fields.sorted().filter { $0 != .results || usage.itemFields.isEmpty }.map(\.rawValue)
        parts += usage.itemFields.sorted().map { "results[*].\($0.rawValue)" }
        return parts.joined(separator: ", ")
    }

    /// A polled request's waits and bound: `every 1s, at most 30 polls`, `every 200ms × 2 up to 5s, for at most 2m`.
    private static func pollText(_ poll: PollPolicy) -> String {
        var text: String
        switch poll.interval {
        case .fixed(let interval): text = "every \(interval)"
        case .backoff(let initial, let factor, let max):
            let times = factor.rounded() == factor ? String(Int(factor)) : String(factor)
            text = "every \(initial) × \(times) up to \(max)"
        }
        if let attempts = poll.attempts?.value { text += ", at most \(attempts) poll\(attempts == 1 ? "" : "s")" }
        if let timeout = poll.timeout?.value { text += ", for at most \(timeout)" }
        if poll.unsafe?.value == true { text += ", unsafe" }
        return text
    }

    /// The schedule the executor will follow, for people (`reqplan plan`).
    public func explanation() -> String {
        var out = ""
        out += "plan: \(plan.name?.value ?? "(unnamed)")\n"
        out += "file: \(plan.source.path)\n"
        out += "steps: \(counts)\n"
        var limits = ["plan-wide \(plan.concurrency.map { String($0.value) } ?? "unlimited")"]
        for node in nodes {
            // A sub-plan's own `concurrency` bounds its requests, as the step's does.
            let own = [
                node.step.concurrency?.value,
                subPlanInstance(of: node.nodeID).flatMap {
                    instances[$0].plan.concurrency?.value
                },
            ].compactMap { $0 }
            if let limit = own.min() { limits.append("\(node.id) \(limit)") }
        }
        out += "concurrency: " + limits.joined(separator: ", ") + "\n"
        out += "on failure: \(plan.onFailure?.value.rawValue ?? FailurePolicy.continue.rawValue)\n"
        let polled = nodes.compactMap { node in node.step.poll.map { (node.id, $0) } }
        if !polled.isEmpty {
            out += "\npolling (requests sent again until their `until` holds):\n"
            for (id, poll) in polled { out += "  \(id): \(Self.pollText(poll))\n" }
        }
        out += "\nwaves (steps that can start together):\n"
        let width = String(waves.count).count
        for (number, wave) in waves.enumerated() {
            let label = String(number + 1)
            out +=
                "  " + String(repeating: " ", count: width - label.count) + label + ". "
                + wave.map(unitName).joined(separator: ", ") + "\n"
        }
        out += "\ncritical path (\(criticalPath.count) step\(criticalPath.count == 1 ? "" : "s") one after another): "
        out += criticalPath.map(unitName).joined(separator: " → ") + "\n"
        out += controlFlowText()

        out += "\nreads:\n"
        let inputs = inputsRead.map { name -> String in
            let secret = plan.inputs.first(where: { $0.name.value == name })?.secret == true
            return secret ? "\(name) (secret)" : name
        }
        out += "  inputs: " + (inputs.isEmpty ? "none" : inputs.joined(separator: ", ")) + "\n"
        out += "  environment: " + (environmentRead.isEmpty ? "none" : environmentRead.joined(separator: ", ")) + "\n"

        out += subPlansText()

        // Each request's operation in the plan's API descriptions (`openapi:`), sub-plans' included.
        let bound = nodes.compactMap { node in apiOperations[node.id].map { (node.id, $0) } }
        if !bound.isEmpty {
            out += "\noperations (openapi:):\n"
            for (id, operation) in bound {
                out += "  \(id): \(operation.label)"
                out += operation.operation.id == nil ? "\n" : " (\(operation.operation.label))\n"
            }
        }

        let kept = nodes.filter { usage[$0.nodeID] != nil }
        out += "\nresults read later (the rest keep only status, size and timing):\n"
        if kept.isEmpty { out += "  none\n" }
        for node in kept {
            if let usage = usage[node.nodeID] { out += "  \(node.id): \(usageText(usage))\n" }
        }
        return out
    }

    /// The same schedule as JSON (`reqplan plan --format json`).
    public func explanationJSON() -> Value {
        func ids(_ list: [NodeID]) -> Value { .list(list.map { .string(nodes[$0].id) }) }
        var steps: [Value] = []
        for node in nodes {
            var fields: [Value.Field] = [
                .init("id", .string(node.id)),
                .init("kind", .string(node.step.kindName)),
                .init("parent", node.parent.map { .string(nodes[$0].id) } ?? .null),
                .init(
                    "needs",
                    .list(
                        node.dependencies.map { dependency in
                            .object([
                                .init("step", .string(nodes[dependency.target].id)),
                                .init(
                                    "reason",
                                    .string(
                                        {
                                            switch dependency.reason {
                                            case .needs: "needs"
                                            case .reference: "reference"
                                            case .sequence: "sequence"
                                            case .variable: "var"
                                            }
                                        }())),
                            ])
                        })),
            ]
            if let usage = usage[node.nodeID] { fields.append(.init("read_later", .string(usageText(usage)))) }
            if let poll = node.step.poll { fields.append(.init("poll", .string(Self.pollText(poll)))) }
            if let bound = apiOperations[node.id] { fields.append(.init("operation", .string(bound.label))) }
            if let call = node.step.subPlan, let instance = subPlanInstance(of: node.nodeID) {
                fields.append(.init("sub_plan", subPlanJSON(call, instances[instance])))
            }
            steps.append(.object(fields))
        }
        return .object([
            .init("plan", plan.name.map { .string($0.value) } ?? .null),
            .init("file", .string(plan.source.path)),
            .init("concurrency", plan.concurrency.map { .int($0.value) } ?? .null),
            .init("waves", .list(waves.map(ids))),
            .init("critical_path", ids(criticalPath)),
            .init("inputs", .list(inputsRead.map(Value.string))),
            .init("environment", .list(environmentRead.map(Value.string))),
            .init("vars", .list(plan.vars.map { .string($0.name.value) })),
            .init("steps", .list(steps)),
        ])
    }

    // MARK: Sub-plans and vars

    /// The vars and the sub-plans: what each sub-plan step runs, what it is given and what it returns.
    private func subPlansText() -> String {
        var out = ""
        if !plan.vars.isEmpty {
            out += "\nvars:\n"
            for variable in plan.vars {
                let steps = instances[0].varSteps[variable.name.value] ?? []
                let names = steps.map { nodes[$0].id }.joined(separator: ", ")
                let waits = steps.isEmpty ? "" : " (waits for \(names))"
                out += "  \(variable.name.value)\(waits)\n"
            }
        }
        let calls = nodes.filter { $0.kind == .plan }
        guard !calls.isEmpty else { return out }
        out += "\nsub-plans:\n"
        for node in calls {
            guard let call = node.step.subPlan, let instance = subPlanInstance(of: node.nodeID) else { continue }
            let sub = instances[instance].plan
            out += "  \(node.id): \(sub.source.path)\n"
            let given = Set(call.inputs.map(\.name.value))
            let inputs = sub.inputs.map { input -> String in
                var text = input.name.value
                if input.secret { text += " (secret)" }
                if !given.contains(input.name.value) { text += input.isRequired ? " (missing)" : " (default)" }
                return text
            }
            out += "    inputs: " + (inputs.isEmpty ? "none" : inputs.joined(separator: ", ")) + "\n"
            let outputs = sub.outputs.map { $0.name.value + ($0.isSecret ? " (secret)" : "") }
            out += "    outputs: " + (outputs.isEmpty ? "none" : outputs.joined(separator: ", ")) + "\n"
        }
        return out
    }

    private func subPlanJSON(_ call: SubPlanCall, _ instance: PlanInstance) -> Value {
        .object([
            .init("file", .string(instance.plan.source.path)),
            .init("inputs", .list(call.inputs.map { .string($0.name.value) })),
            .init(
                "outputs",
                .list(
                    instance.plan.outputs.map { output in
                        .object([.init("name", .string(output.name.value)), .init("secret", .bool(output.isSecret))])
                    })),
        ])
    }
}
