import ReqPlanSyntax

/// The result of planning: the graph when the plan is sound, and every diagnostic.
public struct PlanningResult: Sendable {
    /// The DAG, or `nil` when names or cycles are wrong.
    public var graph: PlanGraph?
    /// Every problem found by the planner (warnings included).
    public var diagnostics: [Diagnostic]
}

/// A sub-plan as the planner of an including plan sees it: the result of checking its file, done once per
/// file (`PlanLibrary`).
public struct IncludedPlan: Sendable {
    /// Its AST, when the file is a plan: the call's inputs and the outputs read are checked against it.
    public var plan: Plan?
    /// Its graph, when it and its own sub-plans have no errors: its steps nest under the `plan` step.
    public var graph: PlanGraph?

    /// Creates the view of a sub-plan.
    public init(plan: Plan?, graph: PlanGraph?) {
        self.plan = plan
        self.graph = graph
    }
}

/// Turns a parsed plan into a DAG (AST → DAG): resolves names, collects
/// explicit and implicit edges, finds cycles, and computes waves, the
/// critical path and which results later steps read.
public enum Planner {
    /// Plans a parsed plan.
    /// - Parameters:
    ///   - plan: the AST from `PlanParser`.
    ///   - file: the plan's file, absolute, when it has one (a sub-plan's relative paths resolve against its folder).
    ///   - subPlans: the sub-plan of each `plan` step, by step id (`PlanLibrary` reads and checks them);
    ///     a step without one nests nothing, and its call is not checked.
    /// - Returns: the graph (when there are no errors) and the diagnostics.
    /// - Complexity: O(*n* + *e*) in steps (sub-plans' included) and dependencies.
    ///   - limits: how deep steps may nest, a sub-plan's counted below its `plan` step, and how many steps
    ///     the sub-plans may bring in (`ParseLimits`).
    public static func plan(
        _ plan: Plan, file: String? = nil, subPlans: [String: IncludedPlan] = [:], limits: ParseLimits = ParseLimits()
    ) -> PlanningResult {
        var collector = DiagnosticCollector(file: plan.source.path)
        var built = buildNodes(plan, subPlans: subPlans, limits: limits)
        for diagnostic in built.diagnostics { collector.emit(diagnostic) }

        // The resolver holds the only reference to the nodes, so adding dependencies does not copy them all.
        let nodes = built.nodes
        built.nodes = []
        var resolver = NameResolver(
            plan: plan, nodes: nodes, index: built.localIndex, diagnostics: collector,
            subPlans: subPlans)
        resolver.resolveAll()
        removeFlowEdges(&resolver.nodes)
        addSequenceEdges(&resolver.nodes)
        collector = resolver.diagnostics
        let resolved = resolver.nodes

        // Warnings: inputs nobody reads, conditions that are never true. An input is not
        // reported when a misspelling of it was, or when an expression that did not parse may read it.
        let inputsToCheck = plan.hasMalformedExpressions ? [] : plan.inputs
        for input in inputsToCheck where !resolver.inputsUsed.contains(input.name.value) {
            if let env = input.env?.value, resolver.envUsed.contains(env) { continue }
            if resolver.inputsSuggested.contains(input.name.value) { continue }
            if plan.inputsReadWhereNotEvaluated.contains(input.name.value) { continue }
            collector.warning(
                .unusedInput, "input `\(input.name.value)` is never used", at: input.name.range,
                hint: plan.notation.unusedInputHint(input.name.value))
        }
        // By index: a loop over the nodes themselves would copy each one (its strings and arrays retained).
        for index in resolved.indices where resolved[index].instance == 0 {
            guard let condition = resolved[index].step.condition, let value = ConstantFolder.value(of: condition),
                !value.isTrue
            else { continue }
            collector.warning(
                .neverTrue, "the `if` of step `\(resolved[index].id)` is never true, so the step never runs",
                at: condition.range,
                hint: value.type == .boolean
                    ? "remove the step, or fix the condition"
                    : "a condition must be a boolean; only `true` runs the step")
        }

        let schedule = ScheduleGraph(nodes: resolved)
        // A graph has a topological order exactly when it has no cycle: the cycles are looked for only then.
        let order = schedule.topologicalOrder()
        if order == nil {
            for cycle in schedule.cycles() {
                collector.emit(cycleDiagnostic(cycle, nodes: resolved))
            }
        }

        guard !collector.hasErrors, let order else {
            return PlanningResult(graph: nil, diagnostics: collector.diagnostics)
        }
        let (waves, criticalPath) = analyse(schedule: schedule, order: order, nodes: resolved)
        let inputsRead = plan.inputs.map(\.name.value).filter { resolver.inputsUsed.contains($0) }
        var environment: [String] = []
        for input in plan.inputs {
            if let env = input.env?.value, !environment.contains(env),
                resolver.inputsUsed.contains(input.name.value) || resolver.envUsed.contains(env)
            {
                environment.append(env)
            }
        }
        // What the sub-plans read of the environment is read by this plan too.
        for included in subPlans.values {
            for env in included.graph?.environmentRead ?? [] where !environment.contains(env) {
                environment.append(env)
            }
        }
        var usage = built.usage
        for (node, own) in resolver.usage { usage[node] = own }
        let top = PlanInstance(
            plan: plan, file: file, caller: nil, index: built.localIndex,
            roots: built.roots, varSteps: resolver.varSteps)
        let graph = PlanGraph(
            plan: plan, nodes: resolved, roots: built.roots, index: built.index, instances: [top] + built.instances,
            callees: built.callees, schedule: schedule, usage: usage, inputsRead: inputsRead,
            environmentRead: environment, waves: waves, criticalPath: criticalPath)
        return PlanningResult(graph: graph, diagnostics: collector.diagnostics)
    }

    // MARK: Nodes

    /// The nodes of a plan before resolution, its sub-plans' nested.
    private struct BuiltNodes {
        var nodes: [StepNode] = []
        var roots: [NodeID] = []
        /// Every step: the plan's by id, the sub-plans' by path.
        var index: [String: NodeID] = [:]
        /// The plan's own steps by id.
        var localIndex: [String: NodeID] = [:]
        /// The sub-plans' instances (the plan itself is instance 0, not in this list).
        var instances: [PlanInstance] = []
        var callees: [NodeID: Int] = [:]
        /// What the sub-plans' own expressions read of their steps.
        var usage: [NodeID: ResultUsage] = [:]
        /// Sub-plans whose steps would nest too deep here (RP0008).
        var diagnostics: [Diagnostic] = []
    }

    private static func buildNodes(_ plan: Plan, subPlans: [String: IncludedPlan], limits: ParseLimits) -> BuiltNodes {
        let maxNesting = limits.maxNesting
        // Steps taken in from sub-plans so far, each counted as often as it is run.
        var included = 0
        var built = BuiltNodes()
        // Iterative depth-first walk: (step, parent, loop, depth). Children ids are patched after.
        var childIDs: [[NodeID]] = []
        let count = plan.stepCount
        built.nodes.reserveCapacity(count)
        childIDs.reserveCapacity(count)
        built.localIndex.reserveCapacity(count)
        var stack: [(step: Step, parent: NodeID?, loop: NodeID?, depth: Int)] =
            plan.steps.reversed().map { ($0, nil, nil, 0) }
        while let (step, parent, loop, depth) = stack.popLast() {
            let id = built.nodes.count
            let kind: StepNode.Kind
            switch step.kind {
            case .request: kind = .request
            case .group: kind = .group
            case .sequence: kind = .sequence
            case .forEach(let forEach):
                if case .request = forEach.body { kind = .forEachRequest } else { kind = .forEachGroup }
            case .plan: kind = .plan
            }
            built.nodes.append(
                StepNode(
                    nodeID: id, id: StepNode.pathPart(step.id.value), localID: step.id.value, kind: kind, step: step,
                    parent: parent, children: [], loop: loop, depth: depth, dependencies: [],
                    instance: 0))
            childIDs.append([])
            if built.localIndex[step.id.value] == nil { built.localIndex[step.id.value] = id }
            if let parent { childIDs[parent].append(id) } else { built.roots.append(id) }
            let memberLoop = kind == .forEachGroup ? id : loop
            for member in step.members.reversed() {
                stack.append((member, id, memberLoop, depth + 1))
            }
            if kind == .plan, let sub = subPlans[step.id.value]?.graph, let call = step.subPlan {
                // Each file's own steps nest at most `maxNesting` deep (the reader stops there); nested under
                // this step, a sub-plan's steps may not go deeper either.
                let deepest = depth + 1 + (sub.nodes.lazy.map(\.depth).max() ?? 0)
                if deepest >= maxNesting {
                    built.diagnostics.append(
                        .error(
                            .nestedTooDeep,
                            "the steps of sub-plan `\(call.file.value)` would nest \(deepest + 1) levels deep here, "
                                + "more than \(maxNesting)",
                            at: call.file.range,
                            hint: "run the sub-plan from a step fewer levels deep, or flatten its groups"))
                    continue
                }
                included += sub.nodes.count
                if included > limits.maxIncludedSteps {
                    built.diagnostics.append(
                        .error(
                            .subPlansTooLarge,
                            "with sub-plan `\(call.file.value)`, this plan runs more than \(limits.maxIncludedSteps) "
                                + "steps of sub-plans (each counted as often as it is run)",
                            at: call.file.range,
                            hint: "a sub-plan run from several steps is copied for each; run it once, or from a "
                                + "for_each"))
                    continue
                }
                nest(sub, under: id, loop: loop, depth: depth, into: &built, childIDs: &childIDs)
            }
        }
        for (node, children) in childIDs.enumerated() where !children.isEmpty {
            built.nodes[node].children = children
        }
        // `index` holds the sub-plans' steps so far (`nest`); each wins over a step of this plan of the same id,
        // as when both were entered in order. Without sub-plans it is this plan's own index, not hashed twice.
        // By the ids nodes have (`StepNode.pathPart`): the same as the local ids but for one that holds `/`.
        let own =
            built.localIndex.keys.contains(where: { StepNode.pathPart($0) != $0 })
            ? Dictionary(
                built.localIndex.map { (StepNode.pathPart($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
            : built.localIndex
        built.index = built.index.isEmpty ? own : own.merging(built.index) { _, nested in nested }
        return built
    }

    /// Copies a sub-plan's graph under its `plan` step `caller`, right after it (so nodes stay in document
    /// order, parents first): node ids shift by the number of nodes before, step ids get the step's id and
    /// `/` in front, its instances follow this plan's, and its resolved dependencies and what its
    /// expressions read come along (it was checked once, as its own file).
    private static func nest(
        _ sub: PlanGraph, under caller: NodeID, loop: NodeID?, depth: Int,
        into built: inout BuiltNodes, childIDs: inout [[NodeID]]
    ) {
        let offset = built.nodes.count
        let instanceOffset = built.instances.count + 1
        let prefix = built.nodes[caller].id + "/"
        for node in sub.nodes {
            let id = node.nodeID + offset
            built.nodes.append(
                StepNode(
                    nodeID: id, id: prefix + node.id, localID: node.localID, kind: node.kind, step: node.step,
                    parent: node.parent.map { $0 + offset } ?? caller, children: [],
                    loop: node.loop.map { $0 + offset } ?? loop, depth: depth + 1 + node.depth,
                    dependencies: node.dependencies.map {
                        Dependency(target: $0.target + offset, reason: $0.reason, range: $0.range)
                    },
                    instance: node.instance + instanceOffset))
            childIDs.append(node.children.map { $0 + offset })
            built.index[prefix + node.id] = id
        }
        childIDs[caller] = sub.roots.map { $0 + offset }
        for instance in sub.instances {
            built.instances.append(
                PlanInstance(
                    plan: instance.plan, file: instance.file, caller: instance.caller.map { $0 + offset } ?? caller,
                    index: instance.index.mapValues { $0 + offset }, roots: instance.roots.map { $0 + offset },
                    varSteps: instance.varSteps.mapValues { $0.map { $0 + offset } }))
        }
        built.callees[caller] = instanceOffset
        for (node, instance) in sub.callees { built.callees[node + offset] = instance + instanceOffset }
        for (node, usage) in sub.usage { built.usage[node + offset] = usage }
    }

    /// In a sequence whose control flow moves between its members (`Step.flow`), a member that reads another
    /// does not wait for it: the flow runs them in the order control takes, back to an earlier one too. Only
    /// the sequence's order stays (`addSequenceEdges`), for the analyses and the pictures.
    private static func removeFlowEdges(_ nodes: inout [StepNode]) {
        for id in nodes.indices where nodes[id].step.flow != nil && nodes[id].instance == 0 {
            let members = Set(nodes[id].children)
            for member in members {
                nodes[member].dependencies.removeAll { members.contains($0.target) }
            }
        }
    }

    /// Each sequence member waits for the one before it.
    private static func addSequenceEdges(_ nodes: inout [StepNode]) {
        // A sub-plan's sequences have their edges already, from its own planning.
        for id in nodes.indices where nodes[id].kind == .sequence && nodes[id].instance == 0 {
            let children = nodes[id].children
            for (previous, next) in zip(children, children.dropFirst()) {
                if nodes[next].dependencies.contains(where: { $0.target == previous }) { continue }
                nodes[next].dependencies.append(
                    Dependency(target: previous, reason: .sequence, range: nodes[next].step.id.range))
            }
        }
    }

    // MARK: Cycles

    private static func cycleDiagnostic(_ cycle: [(from: Int, edge: ScheduleGraph.Edge)], nodes: [StepNode])
        -> Diagnostic
    {
        // Collapse start/end vertices to step names, keeping the edges that explain the cycle.
        var names: [String] = []
        var notes: [Diagnostic.Note] = []
        var primary: SourceRange?
        var memberOfOwnGroup = false
        var throughSequence = false
        // Start at the first dependency written in the plan, which becomes the primary location.
        let first = cycle.firstIndex(where: { if case .dependency = $0.edge.kind { true } else { false } }) ?? 0
        for (from, edge) in cycle[first...] + cycle[..<first] {
            let source = nodes[ScheduleGraph.Vertex(index: from).node]
            let target = nodes[ScheduleGraph.Vertex(index: edge.to).node]
            if names.last != source.id { names.append(source.id) }
            switch edge.kind {
            case .dependency(let dependency):
                let note: String
                switch dependency.reason {
                case .needs: note = "`\(source.id)` needs `\(target.id)` here"
                case .reference: note = "`\(source.id)` reads the result of `\(target.id)` here"
                case .sequence:
                    let sequence = source.parent.map { nodes[$0].id } ?? ""
                    note = "`\(source.id)` comes after `\(target.id)` in sequence `\(sequence)`"
                    throughSequence = true
                case .variable(let name):
                    note = "`\(source.id)` reads `vars.\(name)`, which reads the result of `\(target.id)`, here"
                }
                notes.append(.init(note, at: dependency.range))
                if primary == nil { primary = dependency.range }
                if isAncestor(target.nodeID, of: source.nodeID, in: nodes) { memberOfOwnGroup = true }
            case .memberEnd:
                notes.append(
                    .init(
                        "`\(source.id)` ends only when its member `\(target.id)` has ended",
                        at: target.step.id.range))
            case .parentStart, .run:
                break
            }
        }
        if let first = names.first { names.append(first) }
        var collapsed: [String] = []
        for name in names where collapsed.last != name { collapsed.append(name) }
        if collapsed.count == 1, let only = collapsed.first { collapsed.append(only) }
        let message: String
        let hint: String
        if collapsed.count == 2 && collapsed[0] == collapsed[1], let variable = selfVariable(cycle) {
            message = "step `\(collapsed[0])` depends on itself through `vars.\(variable)`"
            hint = "`vars.\(variable)` reads the result of `\(collapsed[0])`, so `\(collapsed[0])` cannot read it"
        } else if collapsed.count == 2 && collapsed[0] == collapsed[1] {
            message = "step `\(collapsed[0])` depends on itself"
            hint = "a step cannot read its own result or need itself"
        } else {
            message = "dependency cycle: " + collapsed.map { "`\($0)`" }.joined(separator: " → ")
            if memberOfOwnGroup {
                hint = "a member cannot need the group, sequence or for_each it belongs to"
            } else if throughSequence {
                hint = "sequence members run in the order written, so a member cannot read or need a later one"
            } else {
                hint = "break the cycle by removing one of these dependencies"
            }
        }
        // The primary location is the first edge; the notes explain the edges after it.
        return .error(.cycle, message, at: primary, notes: Array(notes.dropFirst()), hint: hint)
    }

    /// The var through which a step depends on itself, when that is how.
    private static func selfVariable(_ cycle: [(from: Int, edge: ScheduleGraph.Edge)]) -> String? {
        for (_, edge) in cycle {
            if case .dependency(let dependency) = edge.kind, case .variable(let name) = dependency.reason {
                return name
            }
        }
        return nil
    }

    private static func isAncestor(_ ancestor: NodeID, of node: NodeID, in nodes: [StepNode]) -> Bool {
        var current = nodes[node].parent
        while let parent = current {
            if parent == ancestor { return true }
            current = nodes[parent].parent
        }
        return false
    }

    // MARK: Analyses

    /// Waves and the critical path, in units (requests and for_each over requests).
    private static func analyse(schedule: ScheduleGraph, order: [Int], nodes: [StepNode])
        -> (waves: [[NodeID]], criticalPath: [NodeID])
    {
        var distance = [Int](repeating: 0, count: schedule.vertexCount)
        var previous = [Int](repeating: -1, count: schedule.vertexCount)
        for vertex in order {
            // Only the kind is read: copying the whole node (or edge) would retain its strings and arrays.
            let isUnit = nodes[vertex / 2].kind.isUnit
            var best = 0
            var bestPrevious = -1
            for edge in schedule.waitsFor[vertex].indices {
                let to = schedule.waitsFor[vertex][edge].to
                var weight = 0
                if isUnit, case .run = schedule.waitsFor[vertex][edge].kind { weight = 1 }
                let candidate = distance[to] + weight
                if bestPrevious == -1 || candidate > best {
                    best = candidate
                    bestPrevious = to
                }
            }
            distance[vertex] = best
            previous[vertex] = bestPrevious
        }
        var waves: [[NodeID]] = []
        for node in nodes.indices where nodes[node].kind.isUnit {
            let wave = distance[ScheduleGraph.Vertex.start(node).index]
            while waves.count <= wave { waves.append([]) }
            waves[wave].append(node)
        }
        waves.removeAll { $0.isEmpty }

        guard var vertex = distance.indices.max(by: { (distance[$0], $1) < (distance[$1], $0) }) else {
            return (waves, [])
        }
        var path: [NodeID] = []
        while vertex != -1 {
            let node = vertex / 2
            if vertex % 2 == 1, nodes[node].kind.isUnit, path.last != node { path.append(node) }
            vertex = previous[vertex]
        }
        return (waves, path.reversed())
    }
}

/// Folds expressions whose value is known before running (`false`, `1 == 2`).
enum ConstantFolder {
    static func value(of expression: Expression) -> Value? {
        switch expression {
        case .literal(let value, _): return value
        case .variable, .access: return nil
        case .call(let name, _, _): return name.value == "always" ? .bool(true) : nil
        case .not(let operand, _):
            guard case .bool(let value)? = self.value(of: operand) else { return nil }
            return .bool(!value)
        case .binary(let op, let left, let right, _):
            let lhs = value(of: left)
            let rhs = value(of: right)
            switch op {
            case .and:
                if lhs == .bool(false) || rhs == .bool(false) { return .bool(false) }
                if lhs == .bool(true), rhs == .bool(true) { return .bool(true) }
                return nil
            case .or:
                if lhs == .bool(true) || rhs == .bool(true) { return .bool(true) }
                if lhs == .bool(false), rhs == .bool(false) { return .bool(false) }
                return nil
            case .equal:
                guard let lhs, let rhs else { return nil }
                return .bool(lhs.languageEquals(rhs))
            case .notEqual:
                guard let lhs, let rhs else { return nil }
                return .bool(!lhs.languageEquals(rhs))
            default:
                return nil
            }
        }
    }
}
