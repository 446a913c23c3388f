import ReqPlanSyntax

// `vars:` — named values of a plan, read as `vars.NAME`.
//
// A var is resolved like an output (it may read `inputs`, `env`, `steps` outside for_each bodies and other
// vars; no item, no `success()`), but it creates no dependency of its own: the steps it reads, directly or
// through the vars it reads (`varSteps`), become dependencies of every step that reads it, so a reader
// starts only once they have all ended. At run time a var is computed once, the first time something reads
// it; whatever reads it has waited for those steps, so its value is the one their results give.
// Vars that read each other in a circle are a cycle (RP0302).

extension NameResolver {
    /// Resolves every var's value, reports cycles between vars, and computes `varSteps`.
    mutating func resolveVars() {
        for variable in plan.vars {
            let scope = ExpressionScope(
                node: nil, items: [], allowsSteps: true, allowsStatusFunctions: false, createsDependencies: false,
                context: "var `\(variable.name.value)`", variable: variable.name.value)
            for expression in variable.value.expressions { resolve(expression, in: scope) }
        }
        reportVarCycles()
        for variable in plan.vars {
            var visited: Set<String> = []
            var steps: [NodeID] = []
            collectSteps(of: variable.name.value, visited: &visited, into: &steps)
            varSteps[variable.name.value] = steps
        }
    }

    /// The steps `name` reads, then those of the vars it reads, each once (cycles already reported).
    private func collectSteps(of name: String, visited: inout Set<String>, into steps: inout [NodeID]) {
        guard visited.insert(name).inserted else { return }
        for read in varStepReads[name] ?? [] where !steps.contains(read.target) { steps.append(read.target) }
        for other in varVarReads[name] ?? [] { collectSteps(of: other.value, visited: &visited, into: &steps) }
    }

    /// One RP0302 per circle of vars reading each other, in the order the vars are written.
    private mutating func reportVarCycles() {
        var state: [String: Bool] = [:]  // false: on the current path; true: done
        var path: [(name: String, via: Located<String>?)] = []
        var reported: Set<String> = []

        func visit(_ name: String, via: Located<String>?, resolver: inout NameResolver) {
            if state[name] == true { return }
            if state[name] == false {
                guard let start = path.firstIndex(where: { $0.name == name }) else { return }
                let cycle = Array(path[start...]) + [(name, via)]
                let members = cycle.dropLast().map(\.name)
                guard reported.insert(Set(members).sorted().joined(separator: ",")).inserted else { return }
                resolver.reportVarCycle(cycle)
                return
            }
            state[name] = false
            path.append((name, via))
            for read in resolver.varVarReads[name] ?? [] where resolver.varsByName[read.value] != nil {
                visit(read.value, via: read, resolver: &resolver)
            }
            path.removeLast()
            state[name] = true
        }
        for variable in plan.vars { visit(variable.name.value, via: nil, resolver: &self) }
    }

    /// `cycle` is the vars in the order they read each other, the first repeated at the end, each with
    /// the reference that reads it.
    private mutating func reportVarCycle(_ cycle: [(name: String, via: Located<String>?)]) {
        let edges = Array(zip(cycle, cycle.dropFirst()))
        guard let first = edges.first, let primary = first.1.via else { return }
        if edges.count == 1 {
            diagnostics.error(
                .cycle, "var `\(first.0.name)` reads itself", at: primary.range,
                hint: "a var cannot read its own value")
            return
        }
        let message = "dependency cycle: " + cycle.map { "`vars.\($0.name)`" }.joined(separator: " → ")
        let notes = edges.dropFirst().compactMap { edge -> Diagnostic.Note? in
            edge.1.via.map { .init("`vars.\(edge.0.name)` reads `vars.\(edge.1.name)` here", at: $0.range) }
        }
        diagnostics.error(
            .cycle, message, at: primary.range, notes: notes,
            hint: "vars that read each other have no value to start from; break the circle")
    }

    /// `vars.NAME`: the var must exist; a reader waits for the steps it reads; `defaults` may read only
    /// vars that read no step.
    mutating func resolveVarReference(_ reference: Reference, in scope: ExpressionScope) {
        guard let name = reference.memberName(at: 0) else {
            diagnostics.error(.unknownVar, "`vars` needs a var name, as in `vars.base`", at: reference.range)
            return
        }
        guard varsByName[name.value] != nil else {
            if plan.unreadVarNames.contains(name.value) { return }
            let names = plan.vars.map(\.name.value)
            let suggestion = Suggestion.replacement(for: name.value, in: names)
            let hint =
                suggestion?.hint
                ?? (names.isEmpty
                    ? "declare it under `vars:`" : "vars are " + names.map { "`\($0)`" }.joined(separator: ", "))
            diagnostics.error(
                .unknownVar, "unknown var `\(name.value)`", at: name.range, hint: hint, fix: suggestion?.fix)
            return
        }
        if let variable = scope.variable {
            varVarReads[variable, default: []].append(Located(name.value, at: reference.range))
            return
        }
        let steps = varSteps[name.value] ?? []
        if !scope.allowsSteps {
            if let step = steps.first {
                diagnostics.error(
                    .invalidExpression,
                    "\(scope.context) cannot read step results, and `vars.\(name.value)` reads "
                        + "`steps.\(nodes[step].id)`",
                    at: reference.range,
                    hint:
                        "defaults apply to every request, so they may only use `inputs`, `env` "
                        + "and vars that read no step"
                )
            }
            return
        }
        guard scope.createsDependencies, let node = scope.node else { return }
        for step in steps {
            addDependency(of: node, on: step, reason: .variable(name.value), range: reference.range)
        }
    }
}
