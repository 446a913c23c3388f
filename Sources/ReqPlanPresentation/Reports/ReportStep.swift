import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax

/// One step of a report: a step of the plan, one item of a for_each, or one run of a step inside
/// a for_each's group body.
///
/// Ids are stable (they depend on the plan and the items, never on timing): a step outside
/// for_each bodies has its own id (`login`); an item is its for_each's id with its position
/// (`upload[2]`); a step inside a for_each body carries the position of each enclosing item,
/// outermost first (`pay[0]`, and `line[1][3]` inside two for_each).
public struct ReportStep: Sendable {
    /// What a report step is.
    public enum Kind: String, Sendable, Hashable {
        /// A request step, or an item of a for_each over a request.
        case request
        /// A group, or an item of a for_each over a group (its members are its children).
        case group
        /// A sequence.
        case sequence
        /// A for_each (its items are its children).
        case forEach = "for_each"
        /// A sub-plan (its steps are its children, ids `login/token`).
        case plan
    }

    /// The stable report id.
    public var id: String
    /// The step id in the plan (for an item, its for_each's id).
    public var step: String
    /// For an item of a for_each, its position in the list.
    public var item: Int?
    /// The kind.
    public var kind: Kind
    /// The report id of the enclosing group, sequence, for_each, item or sub-plan.
    public var parent: String?
    /// How it ended.
    public var result: StepResult
    /// Members or items, in order.
    public var children: [ReportStep]
    /// The positions of the items this step is in, outermost first (an item's own position last).
    public var itemPath: [Int]
    /// The node of the step in the plan's graph (for an item, the for_each's).
    public var nodeID: NodeID
    /// A request's operation in the plan's API description (`openapi:`): `petstore.showPetById`.
    public var operation: String? = nil
    /// Where the plan writes the expectation a failed request did not meet: `plans/x.yaml:12:15`.
    public var failedExpectation: String? = nil

    /// Whether this is an item of a for_each.
    public var isItem: Bool { item != nil }
}

/// Builds the report tree from a run's results, following the plan's structure.
struct ReportTreeBuilder {
    let graph: PlanGraph
    let result: RunResult

    /// The top-level steps.
    func roots() -> [ReportStep] {
        graph.roots.map { id in
            let node = graph.nodes[id]
            let stepResult =
                result.results[node.id]
                ?? StepResult(id: node.id, state: .cancelled, reason: StepReason(.cancelled, "never started"))
            return step(node, stepResult, parent: nil, path: [])
        }
    }

    private static func suffix(_ path: [Int]) -> String {
        path.map { "[\($0)]" }.joined()
    }

    private func step(_ node: StepNode, _ stepResult: StepResult, parent: String?, path: [Int]) -> ReportStep {
        let id = node.id + Self.suffix(path)
        let kind: ReportStep.Kind
        var children: [ReportStep] = []
        switch node.kind {
        case .request:
            kind = .request
        case .group, .sequence, .plan:
            kind = node.kind == .group ? .group : node.kind == .sequence ? .sequence : .plan
            children = members(of: node, in: stepResult, parent: id, path: path)
        case .forEachRequest, .forEachGroup:
            kind = .forEach
            children = (stepResult.children ?? []).enumerated().map { position, itemResult in
                item(node, itemResult, parent: id, path: path + [itemResult.itemIndex ?? position])
            }
        }
        return ReportStep(
            id: id, step: node.id, item: nil, kind: kind, parent: parent, result: stepResult,
            children: children, itemPath: path, nodeID: node.nodeID, operation: operation(of: node),
            failedExpectation: place(of: stepResult, in: node))
    }

    /// `file:line:column` of the expectation a failed request did not meet, in the file of its step.
    private func place(of stepResult: StepResult, in node: StepNode) -> String? {
        guard stepResult.state == .failed, let range = stepResult.reason?.range else { return nil }
        return "\(graph.plan(of: node.nodeID).source.path):\(range.start.line):\(range.start.column)"
    }

    private func item(_ node: StepNode, _ itemResult: StepResult, parent: String, path: [Int]) -> ReportStep {
        let id = node.id + Self.suffix(path)
        let isGroup = node.kind == .forEachGroup
        let children = isGroup ? members(of: node, in: itemResult, parent: id, path: path) : []
        return ReportStep(
            id: id, step: node.id, item: path.last, kind: isGroup ? .group : .request, parent: parent,
            result: itemResult, children: children, itemPath: path, nodeID: node.nodeID,
            operation: operation(of: node), failedExpectation: place(of: itemResult, in: node))
    }

    /// The operation label of a request (or for_each over a request) bound to an API description.
    private func operation(of node: StepNode) -> String? {
        node.kind == .request || node.kind == .forEachRequest ? graph.apiOperations[node.id]?.label : nil
    }

    /// The members of a group, sequence or for_each group body, with their results: those the
    /// collection gathered, else (it did not run) those the run recorded, else ended like it.
    private func members(of node: StepNode, in parentResult: StepResult, parent: String, path: [Int])
        -> [ReportStep]
    {
        let gathered = parentResult.children.flatMap { $0.count == node.children.count ? $0 : nil }
        return node.children.enumerated().map { position, child in
            let member = graph.nodes[child]
            let memberResult =
                gathered?[position]
                ?? (path.isEmpty ? result.results[member.id] : nil)
                ?? Self.notRun(member, parent: parentResult)
            return step(member, memberResult, parent: parent, path: path)
        }
    }

    /// The result of a member whose collection never ran, as the executor records it.
    private static func notRun(_ node: StepNode, parent: StepResult) -> StepResult {
        let cancelled = parent.state == .cancelled
        var result = StepResult(
            id: node.id, state: cancelled ? .cancelled : .skipped,
            reason: StepReason(cancelled ? .cancelled : .dependency, "`\(parent.id)` did not run"))
        result.causedByFailure = parent.causedByFailure || parent.state == .failed || cancelled
        result.end = parent.end
        return result
    }
}
