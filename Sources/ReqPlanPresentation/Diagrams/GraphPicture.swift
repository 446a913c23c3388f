import ReqPlanPlanner
import ReqPlanSyntax

/// What the picture of a plan's graph draws, and only that: each step's id, kind, place in the nesting,
/// wave and waits, and the critical path. It is made from the plan's graph, or read back from a JSON report's
/// `graph` (`reqplan report merge` draws the graphs of plans it did not plan).
struct GraphPicture: Sendable {
    /// One step.
    struct Node: Sendable {
        /// The step id (for a step of a sub-plan, its path: `login/token`).
        var id: String
        /// `request`, `group`, `sequence`, `for_each` or `plan`.
        var kind: String
        /// The column of a step that sends requests (a request, or a for_each over one): the wave it can start
        /// in. Nil for a collection, drawn as a frame around its members.
        var wave: Int?
        /// A for_each over a request.
        var isLoop: Bool
        /// The enclosing collection.
        var parent: Int?
        /// Members, in order.
        var children: [Int] = []
        /// Nesting depth (0 for top-level steps).
        var depth = 0
        /// What it waits for, and whether a value flows along the wait.
        var waits: [(target: Int, carriesData: Bool)]
        /// A request's method and URL as written (`for each x · GET …` for a loop), a sub-plan's file.
        var detail: String
        /// Where a control flow's actions send control from it (`FlowControl`): the step, the action, and
        /// whether it goes back (a loop).
        var jumps: [(target: Int, label: String, back: Bool)] = []

        /// Whether it is a box (it sends requests) rather than a frame.
        var isUnit: Bool { wave != nil }
    }

    /// The plan's name, or its file.
    var title: String
    let nodes: [Node]
    /// Top-level steps, in order.
    let roots: [Int]
    /// The steps of the critical path.
    var critical: Set<Int>
    /// Every node, a collection before its members, members in order (from `roots`, through `children`).
    let documentOrder: [Int]
    /// For each node, its place in `documentOrder` and the place just after the last of its members, at any
    /// depth: a node holds another when the other's place is in its span.
    private let spans: [Range<Int>]

    /// Nodes with their parents and children set, and the top-level ones.
    /// - Complexity: O(*n*) in the nodes, however deep they nest (no recursion).
    init(title: String, nodes: [Node], roots: [Int], critical: Set<Int>) {
        self.title = title
        self.nodes = nodes
        self.roots = roots
        self.critical = critical
        var order: [Int] = []
        order.reserveCapacity(nodes.count)
        var spans = Array(repeating: 0..<0, count: nodes.count)
        // Depth first, with a stack of its own: a graph read back from a report may nest 50,000 deep.
        var stack: [(node: Int, next: Int)] = []
        for root in roots {
            spans[root] = order.count..<order.count
            order.append(root)
            stack.append((root, 0))
            while let (node, next) = stack.last {
                let children = nodes[node].children
                guard next < children.count else {
                    stack.removeLast()
                    spans[node] = spans[node].lowerBound..<order.count
                    continue
                }
                stack[stack.count - 1].next += 1
                let child = children[next]
                spans[child] = order.count..<order.count
                order.append(child)
                stack.append((child, 0))
            }
        }
        self.documentOrder = order
        self.spans = spans
    }

    /// Nodes in document order (a collection before its members, members in order) with their parents set;
    /// children, depths and roots follow. A parent that is not an earlier node makes a top-level step, so what
    /// is read back always nests as a tree.
    init(title: String, documentOrder nodes: [Node], critical: Set<Int>) {
        var nodes = nodes
        var roots: [Int] = []
        for index in nodes.indices {
            if let parent = nodes[index].parent, parent >= 0, parent < index {
                nodes[parent].children.append(index)
                nodes[index].depth = nodes[parent].depth + 1
            } else {
                nodes[index].parent = nil
                roots.append(index)
            }
        }
        self.init(title: title, nodes: nodes, roots: roots, critical: critical)
    }

    /// The picture of a plan's graph.
    init(_ graph: PlanGraph) {
        var waves: [NodeID: Int] = [:]
        for (wave, members) in graph.waves.enumerated() {
            for id in members { waves[id] = wave }
        }
        var jumps: [NodeID: [(target: Int, label: String, back: Bool)]] = [:]
        for edge in graph.controlEdges {
            guard let to = edge.to else { continue }
            jumps[edge.from, default: []].append((to, edge.label, edge.back))
        }
        let nodes = graph.nodes.map { node in
            var detail = ""
            if let request = node.step.request {
                detail = request.effectiveMethod.rawValue + " " + Self.withoutUserInformation(request.url.description)
            }
            if case .forEach(let loop) = node.step.kind { detail = "for each \(loop.loopLabel) · " + detail }
            if let call = node.step.subPlan { detail = call.file.value }
            return Node(
                id: node.id, kind: node.step.kindName, wave: node.isUnit ? waves[node.nodeID] ?? 0 : nil,
                isLoop: node.kind == .forEachRequest, parent: node.parent, children: node.children, depth: node.depth,
                waits: node.dependencies.map { ($0.target, $0.carriesData) }, detail: detail,
                jumps: jumps[node.nodeID] ?? [])
        }
        self.init(
            title: graph.plan.name?.value ?? graph.plan.source.path, nodes: nodes, roots: graph.roots,
            critical: Set(graph.criticalPath))
    }

    /// A URL as written with its user information left out (`http://carol:${{ inputs.pw }}@host/` →
    /// `http://host/`): pictures and reports show URLs as every output does, without credentials, even those
    /// written with expressions.
    static func withoutUserInformation(_ written: String) -> String {
        guard let scheme = written.range(of: "://") else { return written }
        let rest = written[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return written }
        return String(written[..<scheme.upperBound]) + String(rest[rest.index(after: at)...])
    }

    /// Whether one of the two nodes holds the other (a member's wait on its collection is not drawn).
    /// - Complexity: O(1).
    func isContainment(_ first: Int, _ second: Int) -> Bool {
        func holds(_ outer: Int, _ inner: Int) -> Bool {
            outer != inner && spans[outer].contains(spans[inner].lowerBound)
        }
        return holds(first, second) || holds(second, first)
    }
}
