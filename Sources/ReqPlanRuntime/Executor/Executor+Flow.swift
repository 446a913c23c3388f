import ReqPlanPlanner
import ReqPlanSyntax

extension Executor {
    /// Runs a sequence whose members a control flow moves between (`FlowControl`: an Arazzo workflow's
    /// `goto` and `end` actions, loops included), as a state machine: the first member runs, then after each
    /// member the first transition that applies says where control goes. Members run one at a time; a member
    /// that reads another reads its latest visit.
    ///
    /// - A failure a transition takes is handled (`StepResult.handledBy`): the member keeps its failure, the
    ///   sequence does not fail for it. A failure none takes ends the sequence failed.
    /// - A member runs at most `flow.maxVisits` times: one more ends the sequence failed, saying so.
    /// - Every visit's attempts are kept, numbered on, each saying its visit; the member's result is its last
    ///   visit's. A member control never reached is skipped.
    /// - Returns: the members' results, in the sequence's order.
    func runFlow(_ node: StepNode, _ flow: FlowControl, frame: Frame, scope: Scope) async -> [StepResult] {
        let members = node.children
        var results: [StepResult?] = Array(repeating: nil, count: members.count)
        /// Each member's subtree's last results (a sub-plan's steps), to fire when the flow ends.
        var nested: [NodeID: StepResult] = [:]
        var visits = Array(repeating: 0, count: members.count)
        var current: Int? = members.isEmpty ? nil : 0
        var cancelled = false
        while let position = current {
            if Task.isCancelled {
                cancelled = true
                break
            }
            guard position < members.count, position < flow.members.count else { break }
            let member = members[position]
            visits[position] += 1
            if visits[position] > flow.maxVisits {
                var failed = results[position] ?? StepResult(id: graph.nodes[member].id, state: .failed)
                failed.state = .failed
                failed.handledBy = nil
                failed.reason = StepReason(
                    .evaluation,
                    "control came back to step `\(graph.nodes[member].localID)` after \(flow.maxVisits) visits; a loop "
                        + "runs a step at most \(flow.maxVisits) times")
                results[position] = failed
                break
            }
            let before = results[position]?.attempts.count ?? 0
            var result = await Self.$currentVisit.withValue((visits[position], before)) {
                await runVisit(member, of: members, frame: frame, scope: scope, nested: &nested)
            }
            // Every visit is kept: the attempts of the earlier ones first.
            if let earlier = results[position] {
                result.attempts = earlier.attempts + result.attempts
                result.ready = earlier.ready ?? result.ready
            }
            if visits[position] > 1 { result.visits = visits[position] }
            results[position] = result
            frame.completion(of: member)?.setLatest(result)
            if result.state == .cancelled || Task.isCancelled {
                cancelled = true
                break
            }
            let control = flow.members[position]
            let context = evaluationContext(frame: frame, instance: node.instance, succeeded: true, failed: false)
            let succeeded = result.state == .succeeded || result.state == .skipped
            let taken = (succeeded ? control.onSuccess : control.onFailure).first { transition in
                guard let when = transition.when else { return true }
                return (try? ExpressionEvaluator.condition(when, in: context)) == true
            }
            if !succeeded {
                guard let taken else { break }
                results[position]?.handledBy = taken.name
                frame.completion(of: member)?.setLatest(results[position] ?? result)
            }
            let target = taken?.target ?? control.next
            switch target {
            case .end: current = nil
            case .member(let next): current = next
            }
        }
        // The flow has ended: each member's completion fires with its last visit (a member never reached is
        // skipped, or cancelled with the flow), and so do its subtree's, for what waits after the flow and
        // for the run's results.
        var finished: [StepResult] = []
        for (position, member) in members.enumerated() {
            let result: StepResult
            if let visited = results[position] {
                result = visited
            } else {
                var unreached = StepResult(
                    id: graph.nodes[member].id, state: cancelled ? .cancelled : .skipped,
                    reason: cancelled
                        ? scope.cancellationReason ?? StepReason(.cancelled, "cancelled")
                        : StepReason(.condition, "control never came to it (`goto`, `end`)"))
                unreached.causedByFailure = cancelled
                result = unreached
            }
            finished.append(finish(member, frame: frame, result))
            for descendant in descendants(of: member) {
                frame.completion(of: descendant)?.fire(
                    nested[descendant]
                        ?? StepResult(
                            id: graph.nodes[descendant].id, state: .skipped,
                            reason: StepReason(.condition, "`\(graph.nodes[member].id)` did not run it")))
            }
        }
        return finished
    }

    /// One visit of a flow's member: what it waits for outside the flow (the flow orders its `members`), then
    /// its request or its steps, in a frame of its own (a sub-plan's steps have fresh completions each visit);
    /// their results go to `nested`.
    private func runVisit(
        _ id: NodeID, of members: [NodeID], frame: Frame, scope: Scope, nested: inout [NodeID: StepResult]
    ) async -> StepResult {
        let node = graph.nodes[id]
        for dependency in node.dependencies where !members.contains(dependency.target) {
            guard let completion = frame.completion(of: dependency.target), await completion.wait() != nil else {
                return cancelledResult(node, scope: scope, started: false)
            }
        }
        let start = now()
        observer.stepStarted(node.id, item: frame.itemIndex, at: start)
        let inside = descendants(of: id)
        // A group or a loop runs as a step of its own, whose completion is the visit's too.
        let isStep = node.kind != .request && node.kind != .plan
        let visitFrame = Frame(
            parent: frame, loop: frame.loop, itemIndex: frame.itemIndex, items: frame.items,
            nodes: isStep ? inside + [id] : inside)
        let context = evaluationContext(frame: visitFrame, instance: node.instance, succeeded: true, failed: false)
        var result: StepResult
        switch node.step.kind {
        case .request(let spec):
            result = await runRequest(node, spec, frame: visitFrame, scope: scope, itemIndex: nil, context: context)
        case .plan(let call):
            result = await runSubPlan(node, call, frame: visitFrame, scope: scope, context: context)
        case .group, .sequence, .forEach:
            // Not made by the Arazzo reader; run as a step of its own, once per visit.
            result = await runStep(id, frame: visitFrame, scope: scope)
        }
        for descendant in inside {
            if let own = visitFrame.completions[descendant]?.result { nested[descendant] = own }
        }
        result.ready = result.ready ?? start
        result.start = start
        result.end = now()
        observer.stepFinished(result)
        return result
    }

    /// Every node below `id` that runs in the same frame (a sub-plan's or a group's steps; not a for_each's
    /// items).
    func descendants(of id: NodeID) -> [NodeID] {
        var found: [NodeID] = []
        var pending = graph.nodes[id].children
        while let next = pending.popLast() {
            guard graph.nodes[next].loop == graph.nodes[id].loop else { continue }
            found.append(next)
            pending += graph.nodes[next].children
        }
        return found
    }
}
