import ReqPlanPlanner

extension PlanGraph {
    /// What `--parallel` would change in an Arazzo document's schedule (`validate --explain`), this graph
    /// being the document read in list order and `parallel` the same document read by its data flow: for
    /// each workflow whose steps would start sooner, the waves they would start in, and the requests the
    /// critical path would lose (each one a request's time saved on the run's wall time).
    public func parallelGain(_ parallel: PlanGraph) -> String {
        let before = wavesByWorkflow()
        let after = parallel.wavesByWorkflow()
        var out =
            "\nwith --parallel (a workflow without step `dependsOn` run by its data flow, writes kept in order):\n"
        var changed = false
        for (workflow, waves) in after {
            let was = before.first { $0.workflow == workflow }?.waves.count ?? 0
            guard waves.count < was else { continue }
            changed = true
            out += "  \(workflow.isEmpty ? plan.name?.value ?? "(the workflow)" : workflow): "
            out += "\(was) waves → \(waves.count): "
            out += waves.map { $0.joined(separator: ", ") }.joined(separator: " | ") + "\n"
        }
        if !changed {
            out +=
                "  no step would start sooner: each reads what the one before it gives, or may touch what it writes\n"
        }
        let saved = criticalPath.count - parallel.criticalPath.count
        out += "critical path: \(criticalPath.count) → \(parallel.criticalPath.count) steps one after another"
        if saved > 0 { out += ": the time of \(saved) request\(saved == 1 ? "" : "s") saved" }
        return out + "\n"
    }

    /// The waves of each workflow's steps (the part of a step's id before its last `/`, empty for the
    /// workflow read alone), in the order its steps first appear, each wave's step names in order.
    private func wavesByWorkflow() -> [(workflow: String, waves: [[String]])] {
        var result: [(workflow: String, waves: [[String]])] = []
        for wave in waves {
            var seen: [String: [String]] = [:]
            var order: [String] = []
            for id in wave where nodes[id].kind != .plan {
                let full = nodes[id].id
                let cut = full.lastIndex(of: "/")
                let workflow = cut.map { String(full[..<$0]) } ?? ""
                let name = cut.map { String(full[full.index(after: $0)...]) } ?? full
                if seen[workflow] == nil { order.append(workflow) }
                seen[workflow, default: []].append(name)
            }
            for workflow in order {
                let names = seen[workflow] ?? []
                if let index = result.firstIndex(where: { $0.workflow == workflow }) {
                    result[index].waves.append(names)
                } else {
                    result.append((workflow, [names]))
                }
            }
        }
        return result
    }
}
