import ReqPlanSyntax

/// The index of a step in `PlanGraph.nodes`.
public typealias NodeID = Int

/// A resolved plan: every step as a node, its dependencies with their reasons,
/// and the static analyses the executor and `reqplan plan` use.
///
/// Built by `Planner.plan(_:)` from a parsed `Plan`; only built for plans with
/// no errors in names or cycles, so a graph is always a DAG.
///
/// Sub-plans are nested, not referenced: a `plan` step's node has the sub-plan's steps as its members,
/// copied from the sub-plan's own graph (checked once per file, `PlanLibrary`) with their ids prefixed by
/// the step's (`login/token`, and `a/b/c` two levels down), so the schedule, the waves and the critical
/// path, the retention analysis and every report see one graph. Each copy is an *instance* of its file
/// (`instances`): expressions inside it resolve against that file's steps, inputs and vars, and its
/// requests use that file's `defaults`.
///
/// - Edges: a sub-plan's own edges come from its check (they point inside it); the `plan` step gets the
///   edges of what its `inputs` read, and its members start after it starts, like a group's. Reading
///   `steps.X.outputs` (or needing `X`) waits for the step's end, so for every step of the sub-plan.
/// - Retention: a sub-plan's `usage` is what its own expressions and outputs read (its outputs are
///   evaluated when its step ends, from the results it kept); the including plan adds its reads of the
///   step (`results[*].…`, the whole result) through the ancestor walk of `retention(of:)`. Reading
///   `outputs` keeps nothing more.
/// - A file used by two steps is checked once and copied twice (two instances, two sets of nodes), since
///   each run of it has its own results.
public struct PlanGraph: Sendable {
    /// The plan it was built from.
    public let plan: Plan
    /// Every step, parents before children, in document order (a sub-plan's steps right after its step).
    public let nodes: [StepNode]
    /// The top-level steps, in order.
    public let roots: [NodeID]
    /// Step id → node, for every step: a step of the plan by its id, a sub-plan's step by its path
    /// (`login/token`). Expressions of a file address steps through its instance's `index`.
    public let index: [String: NodeID]
    /// The plan itself (instance 0) and every sub-plan run by a `plan` step, in the order of their steps.
    public let instances: [PlanInstance]
    /// `plan` step → the instance it runs.
    let callees: [NodeID: Int]
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
    /// The operation of each request step bound to an API description (`openapi:`), by the step's path
    /// (`login/token` for a sub-plan's step).
    public internal(set) var apiOperations: [String: BoundOperation] = [:]
    /// The scenario the plan was narrowed to (`--scenario`), with what it left out; `nil` for a whole plan.
    public internal(set) var scenario: PlanScenario? = nil

    /// The node of a step id (a sub-plan's step by its path, `login/token`).
    public func node(_ id: String) -> StepNode? {
        index[id].map { nodes[$0] }
    }

    /// The instance a `plan` step runs.
    public func subPlanInstance(of node: NodeID) -> Int? {
        callees[node]
    }

    /// The plan a step belongs to: the plan itself, or the sub-plan whose instance holds it.
    public func plan(of node: NodeID) -> Plan {
        instances[nodes[node].instance].plan
    }

    /// Every file of the graph (the plan and its sub-plans), each once: for rendering diagnostics.
    public var sources: [SourceFile] {
        var seen: Set<String> = []
        return instances.map(\.plan.source).filter { seen.insert($0.path).inserted }
    }

    /// Where `instance` is included, innermost first: one `included from FILE:LINE:COL` note per `plan`
    /// step between it and the plan (none for the plan itself).
    public func inclusionNotes(of instance: Int) -> [Diagnostic.Note] {
        var notes: [Diagnostic.Note] = []
        var current = instances[instance]
        while let caller = current.caller, let call = nodes[caller].step.subPlan {
            let including = instances[nodes[caller].instance]
            notes.append(.includedFrom(including.plan.source.path, at: call.file.range))
            current = including
        }
        return notes
    }
}

/// One run of a plan file in a graph: the plan itself (instance 0), or a sub-plan run by a `plan` step.
/// A file used by two `plan` steps has two instances, each with its own steps, inputs and vars.
public struct PlanInstance: Sendable {
    /// The file's AST.
    public let plan: Plan
    /// The file, absolute with symbolic links resolved, when known (its relative paths resolve against
    /// its folder).
    public let file: String?
    /// The `plan` step that runs it; `nil` for the plan itself.
    public let caller: NodeID?
    /// The file's own step ids → nodes: what `steps.X` means inside it.
    public let index: [String: NodeID]
    /// Its top-level steps, in order.
    public let roots: [NodeID]
    /// For each var, the steps it reads, directly or through other vars: whatever reads the var waits for them.
    public let varSteps: [String: [NodeID]]
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
        /// A sub-plan: its members are the sub-plan's top-level steps.
        case plan

        /// Whether a node of this kind is one unit of work: a request, or a for_each over one.
        public var isUnit: Bool { self == .request || self == .forEachRequest }
    }

    /// A step id as one part of a step's path (`id`): `/` and `~` written `~1` and `~0` (RFC 6901), so no
    /// id can stand for a path; any other id as it is.
    public static func pathPart(_ id: String) -> String {
        guard id.contains("/") || id.contains("~") else { return id }
        return id.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// The node's index.
    public let nodeID: NodeID
    /// The step id: the id written in the plan, or for a step of a sub-plan its path (`login/token`). The
    /// path is unambiguous whatever characters ids hold: an id that holds `/` or `~` (an Arazzo stepId may)
    /// is written with them as JSON Pointer writes them (`~1`, `~0`: `sub~1inner` is a step `sub/inner`,
    /// `sub/inner` the step `inner` of the sub-plan `sub`), `StepNode.pathPart(_:)`.
    public let id: String
    /// The id written in its own file (`token` for `login/token`).
    public let localID: String
    /// The kind.
    public let kind: Kind
    /// The step as parsed.
    public let step: Step
    /// The enclosing group, sequence or for_each.
    public let parent: NodeID?
    /// Members, in order.
    public internal(set) var children: [NodeID]
    /// The innermost enclosing for_each, if the step runs once per item.
    public let loop: NodeID?
    /// Nesting depth (0 for top-level steps).
    public let depth: Int
    /// What the step waits for, explicit and implicit, without duplicates.
    public internal(set) var dependencies: [Dependency]
    /// The instance of the plan file it belongs to (`PlanGraph.instances`): 0 for the plan itself.
    public let instance: Int

    /// Whether this node sends requests itself (a request, or a for_each over a request).
    public var isUnit: Bool { kind.isUnit }
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
        /// Read through `vars.NAME`, a var that reads the step (directly or through other vars).
        case variable(String)
    }

    /// The step waited for.
    public let target: NodeID
    /// Why.
    public let reason: Reason
    /// Where the need, the reference or the member was written.
    public let range: SourceRange

    /// Whether a result flows along it (a reference, directly or through a var), not only an order.
    public var carriesData: Bool {
        switch reason {
        case .reference, .variable: true
        case .needs, .sequence: false
        }
    }
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
