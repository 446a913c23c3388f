/// The precedence graph the executor follows, with two vertices per step:
/// its start and its end.
///
/// An edge `a → b` means "`a` waits for `b`". A step starts when everything
/// its start waits for has happened: the ends of its dependencies and the
/// start of its parent. A group ends when all its members have ended; a
/// request ends after it started. Cycles in this graph are exactly the plans
/// that can never run.
public struct ScheduleGraph: Sendable {
    /// A vertex: a step's start or end.
    public struct Vertex: Hashable, Sendable {
        public let node: NodeID
        public let isEnd: Bool
        /// The vertex's index in `waitsFor`.
        public var index: Int { node * 2 + (isEnd ? 1 : 0) }
        public static func start(_ node: NodeID) -> Vertex { Vertex(node: node, isEnd: false) }
        public static func end(_ node: NodeID) -> Vertex { Vertex(node: node, isEnd: true) }
        init(node: NodeID, isEnd: Bool) {
            self.node = node
            self.isEnd = isEnd
        }
        init(index: Int) {
            self.node = index / 2
            self.isEnd = index % 2 == 1
        }
    }

    /// Why a vertex waits for another.
    public enum EdgeKind: Sendable, Hashable {
        /// A dependency of the step (`needs`, a reference, or the previous sequence member).
        case dependency(Dependency)
        /// A member starts once its parent has started.
        case parentStart
        /// A group, sequence or for_each ends once each member has ended.
        case memberEnd
        /// A step ends after it started.
        case run
    }

    /// An edge out of a vertex.
    public struct Edge: Sendable, Hashable {
        public let to: Int
        public let kind: EdgeKind
    }

    /// For each vertex index, the vertices it waits for.
    public let waitsFor: [[Edge]]

    /// Number of vertices (two per step).
    public var vertexCount: Int { waitsFor.count }

    init(nodes: [StepNode]) {
        var edges = [[Edge]](repeating: [], count: nodes.count * 2)
        // By index: a loop over the nodes themselves would copy each one (its strings and arrays retained).
        for index in nodes.indices {
            let start = Vertex.start(nodes[index].nodeID).index
            let end = Vertex.end(nodes[index].nodeID).index
            for dependency in nodes[index].dependencies {
                edges[start].append(Edge(to: Vertex.end(dependency.target).index, kind: .dependency(dependency)))
            }
            if let parent = nodes[index].parent {
                edges[start].append(Edge(to: Vertex.start(parent).index, kind: .parentStart))
            }
            edges[end].append(Edge(to: start, kind: .run))
            for child in nodes[index].children {
                edges[end].append(Edge(to: Vertex.end(child).index, kind: .memberEnd))
            }
        }
        self.waitsFor = edges
    }

    /// The vertices in an order where each comes after everything it waits for,
    /// or `nil` when there is a cycle.
    /// - Complexity: O(*V* + *E*).
    public func topologicalOrder() -> [Int]? {
        var remaining = waitsFor.map(\.count)
        // Who waits for each vertex, in one flat list: the waiters of `v` are `waiters[start[v]..<start[v + 1]]`,
        // in increasing order (one array instead of one per vertex).
        // Only each edge's end is read (`waitsFor[v][e].to`): a copy of the edge would retain its kind's payload.
        var start = [Int](repeating: 0, count: vertexCount + 1)
        for vertex in waitsFor.indices {
            for edge in waitsFor[vertex].indices { start[waitsFor[vertex][edge].to + 1] += 1 }
        }
        for vertex in 0..<vertexCount { start[vertex + 1] += start[vertex] }
        var waiters = [Int](repeating: 0, count: start[vertexCount])
        var next = start
        for vertex in waitsFor.indices {
            for edge in waitsFor[vertex].indices {
                let to = waitsFor[vertex][edge].to
                waiters[next[to]] = vertex
                next[to] += 1
            }
        }
        // Vertices in the order they become ready: the first ones wait for nothing.
        var order = (0..<vertexCount).filter { remaining[$0] == 0 }
        order.reserveCapacity(vertexCount)
        var cursor = 0
        while cursor < order.count {
            let vertex = order[cursor]
            cursor += 1
            for index in start[vertex]..<start[vertex + 1] {
                let waiter = waiters[index]
                remaining[waiter] -= 1
                if remaining[waiter] == 0 { order.append(waiter) }
            }
        }
        return order.count == vertexCount ? order : nil
    }

    /// One cycle for each strongly connected component that has one, each as the
    /// list of edges taken, starting from the smallest vertex of the component.
    /// - Complexity: O(*V* + *E*) (Tarjan's algorithm, iterative).
    public func cycles() -> [[(from: Int, edge: Edge)]] {
        let count = vertexCount
        var indexOf = [Int](repeating: -1, count: count)
        var lowLink = [Int](repeating: 0, count: count)
        var onStack = [Bool](repeating: false, count: count)
        var stack: [Int] = []
        var nextIndex = 0
        var components: [[Int]] = []

        for root in 0..<count where indexOf[root] == -1 {
            var work: [(vertex: Int, edge: Int)] = [(root, 0)]
            indexOf[root] = nextIndex
            lowLink[root] = nextIndex
            nextIndex += 1
            stack.append(root)
            onStack[root] = true
            while let (vertex, edgeIndex) = work.last {
                if edgeIndex < waitsFor[vertex].count {
                    work[work.count - 1].edge += 1
                    let next = waitsFor[vertex][edgeIndex].to
                    if indexOf[next] == -1 {
                        indexOf[next] = nextIndex
                        lowLink[next] = nextIndex
                        nextIndex += 1
                        stack.append(next)
                        onStack[next] = true
                        work.append((next, 0))
                    } else if onStack[next] {
                        lowLink[vertex] = min(lowLink[vertex], indexOf[next])
                    }
                    continue
                }
                work.removeLast()
                if let parent = work.last {
                    lowLink[parent.vertex] = min(lowLink[parent.vertex], lowLink[vertex])
                }
                if lowLink[vertex] == indexOf[vertex] {
                    var component: [Int] = []
                    while let top = stack.popLast() {
                        onStack[top] = false
                        component.append(top)
                        if top == vertex { break }
                    }
                    let selfLoop = waitsFor[vertex].contains { $0.to == vertex }
                    if component.count > 1 || selfLoop { components.append(component) }
                }
            }
        }

        return components.map { component in
            let members = Set(component)
            let start = component.min() ?? 0
            // Breadth-first search inside the component for the shortest way back to `start`.
            var previous: [Int: (from: Int, edge: Edge)] = [:]
            var queue = [start]
            var cursor = 0
            var found = false
            search: while cursor < queue.count {
                let vertex = queue[cursor]
                cursor += 1
                for edge in waitsFor[vertex] where members.contains(edge.to) {
                    if edge.to == start {
                        previous[start] = (vertex, edge)
                        found = true
                        break search
                    }
                    if previous[edge.to] == nil && edge.to != start {
                        previous[edge.to] = (vertex, edge)
                        queue.append(edge.to)
                    }
                }
            }
            guard found else { return [] }
            var path: [(from: Int, edge: Edge)] = []
            var current = start
            repeat {
                guard let step = previous[current] else { break }
                path.append(step)
                current = step.from
            } while current != start && path.count <= component.count
            return path.reversed()
        }.filter { !$0.isEmpty }
    }
}
