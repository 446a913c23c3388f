import ReqPlanSyntax

/// The index of a step in `PlanGraph.nodes`.
public typealias NodeID = Int

/// A resolved plan: every step as a node, its dependencies with their reasons,
/// and the static analyses the executor and `reqplan plan` use.
///
/// Built by `Planner.plan(_:)` from a parsed `Plan`; only built for plans with
/// no errors in names or cycles, so a graph is always a DAG.
public struct PlanGraph: Sendable {
    /// The plan it was built from.
    public let plan: Plan
    /// Every step, parents before children, in document order.
    public let nodes: [StepNode]
    /// The top-level steps, in order.
    public let roots: [NodeID]
    /// Step id → node.
    public let index: [String: NodeID]
    /// The scheduling graph: which step boundary waits for which.
    public let schedule: ScheduleGraph
    /// What each step's result must keep for later expressions and outputs.
    public let usage: [NodeID: ResultUsage]
    /// Inputs read by some expression, in declaration order.
    public let inputsRead: [String]
    /// Environment variables the plan reads (through inputs' `env:` or `env.X`).
    public let environmentRead: [String]
    /// The units (requests and for_each over requests) that can start together,
    /// wave by wave, if every unit took the same time.
    public let waves: [[NodeID]]
    /// The longest chain of units that must run one after another.
    public let criticalPath: [NodeID]

    /// The node of a step id.
    public func node(_ id: String) -> StepNode? {
        index[id].map { nodes[$0] }
    }
}

/// One step of the plan in the graph.
public struct StepNode: Sendable {
    /// The kinds of node.
    public enum Kind: String, Sendable, Hashable {
        case request, group, sequence
        /// A for_each whose body is a request: one unit that sends one request per item.
        case forEachRequest = "for_each"
        /// A for_each whose body is a group: its members run once per item.
        case forEachGroup = "for_each group"
    }

    /// The node's index.
    public let nodeID: NodeID
    /// The step id.
    public let id: String
    /// The kind.
    public let kind: Kind
    /// The step as parsed.
    public let step: Step
    /// The enclosing group, sequence or for_each.
    public let parent: NodeID?
    /// Members, in order.
    public let children: [NodeID]
    /// The innermost enclosing for_each, if the step runs once per item.
    public let loop: NodeID?
    /// Nesting depth (0 for top-level steps).
    public let depth: Int
    /// What the step waits for, explicit and implicit, without duplicates.
    public internal(set) var dependencies: [Dependency]

    /// Whether this node sends requests itself (a request, or a for_each over a request).
    public var isUnit: Bool { kind == .request || kind == .forEachRequest }
}

/// Why one step waits for another.
public struct Dependency: Sendable, Hashable {
    /// How the dependency arose.
    public enum Reason: Sendable, Hashable {
        /// Listed in `needs:`.
        case needs
        /// Read through `steps.X` in an expression.
        case reference
        /// The previous member of the same sequence.
        case sequence
    }

    /// The step waited for.
    public let target: NodeID
    /// Why.
    public let reason: Reason
    /// Where the need, the reference or the member was written.
    public let range: SourceRange
}

/// What later expressions read of a step's result, so the executor keeps only that.
public struct ResultUsage: Sendable, Hashable {
    /// Fields of the result itself (`steps.X.body`).
    public var fields: Set<ResultField> = []
    /// Fields of each element of `results` (`steps.X.results[*].body`).
    public var itemFields: Set<ResultField> = []
    /// The whole result is read (`steps.X` alone, or `steps.X.results` alone).
    public var whole = false

    /// Whether the response body must be kept.
    public var keepsBody: Bool { whole || fields.contains(.body) || itemFields.contains(.body) }

    /// Creates an empty usage.
    public init() {}
}
