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
    /// Each expectation of a request checked against the response its last try got, met or not.
    public var expectations: [ReportExpectation] = []

    /// Whether this is an item of a for_each.
    public var isItem: Bool { item != nil }

    /// `roots` and everything in them, a step before its members and items, in document order.
    static func documentOrder(_ roots: [ReportStep]) -> [ReportStep] {
        var list: [ReportStep] = []
        func visit(_ step: ReportStep) {
            list.append(step)
            step.children.forEach(visit)
        }
        roots.forEach(visit)
        return list
    }
}

/// One expectation of a request and how the response met it, as reports show it.
public struct ReportExpectation: Sendable, Hashable {
    /// What it checks, on one line: `status 2xx`, ``body `$.id`: type number``, ``fits `petstore.getPet` ``.
    public var text: String
    /// Where the plan writes it: `plans/x.yaml:12:15`; nil for what no plan writes.
    public var at: String?
    /// Why the response did not meet it; empty when it did.
    public var problems: [String]

    /// Whether the response met it.
    public var passed: Bool { problems.isEmpty }

    /// The longest `text` kept: an expectation longer than that is cut with `…`.
    static let longestText = 160

    public init(text: String, at: String?, problems: [String]) {
        self.text = text.count > Self.longestText ? String(text.prefix(Self.longestText - 1)) + "…" : text
        self.at = at
        self.problems = problems
    }

    /// A check of a step written in `source`.
    init(_ check: ExpectationCheck, in source: SourceFile) {
        self.init(
            text: Self.text(of: check.subject, in: source),
            at: check.range.map { "\(source.path):\($0.start.line):\($0.start.column)" }, problems: check.problems)
    }

    /// What a check checks, on one line: `status 200 or 201`, ``body `$.id`: type number``.
    static func text(of subject: ExpectationCheck.Subject, in source: SourceFile) -> String {
        switch subject {
        case .status(let patterns): "status " + patterns.map(\.description).joined(separator: " or ")
        case .header(let header): "header `\(header.name.value)`: " + text(of: header.matcher, in: source)
        case .body(let item):
            (item.pathText == "$" ? "body: " : "body `\(item.pathText)`: ") + text(of: item.matcher, in: source)
        case .condition(let condition): condition.written.value
        case .maxDuration(let limit): "within \(limit)"
        case .schema(let label): "fits `\(label)`"
        }
    }

    /// A matcher's tests: `== "Nobody"`, `type string, length 3`.
    private static func text(of matcher: Matcher, in source: SourceFile) -> String {
        func written(_ template: ValueTemplate) -> String {
            if let value = template.literalValue { return value.jsonText() }
            return source.oneLineText(of: template.range)
        }
        var tests: [String] = []
        if let equals = matcher.equals { tests.append("== " + written(equals)) }
        if let exists = matcher.exists { tests.append(exists.value ? "exists" : "absent") }
        if let pattern = matcher.matches { tests.append("matches `\(pattern.value)`") }
        if let type = matcher.type { tests.append("type \(type.value)") }
        if let contains = matcher.contains { tests.append("contains " + written(contains)) }
        if let length = matcher.length { tests.append("length \(length.value)") }
        return tests.joined(separator: ", ")
    }
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
            failedExpectation: place(of: stepResult, in: node), expectations: expectations(of: stepResult, in: node))
    }

    /// The checks of a request's last response, in the words of the file of its step.
    private func expectations(of stepResult: StepResult, in node: StepNode) -> [ReportExpectation] {
        guard !stepResult.checks.isEmpty else { return [] }
        let source = graph.plan(of: node.nodeID).source
        return stepResult.checks.map { ReportExpectation($0, in: source) }
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
            operation: operation(of: node), failedExpectation: place(of: itemResult, in: node),
            expectations: expectations(of: itemResult, in: node))
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
