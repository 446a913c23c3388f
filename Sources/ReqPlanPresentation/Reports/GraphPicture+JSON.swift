import ReqPlanSyntax

extension GraphPicture {
    /// The picture as the JSON report's `graph`: each step in document order (`id`, `kind`, `parent`, `wave`,
    /// `loop`, `needs` with whether a value flows, `detail`) and the critical path. `reqplan report merge`
    /// draws a plan's graph from it.
    var jsonValue: Value {
        var order: [Int] = []
        func visit(_ index: Int) {
            order.append(index)
            nodes[index].children.forEach(visit)
        }
        roots.forEach(visit)
        return .object([
            .init(
                "nodes",
                .list(
                    order.map { index in
                        let node = nodes[index]
                        return .object([
                            .init("id", .string(node.id)),
                            .init("kind", .string(node.kind)),
                            .init("parent", node.parent.map { .string(nodes[$0].id) } ?? .null),
                            .init("wave", node.wave.map(Value.int) ?? .null),
                            .init("loop", .bool(node.isLoop)),
                            .init(
                                "needs",
                                .list(
                                    node.waits.map {
                                        .object([
                                            .init("step", .string(nodes[$0.target].id)),
                                            .init("data", .bool($0.carriesData)),
                                        ])
                                    })),
                            .init("detail", .string(node.detail)),
                        ])
                    })),
            .init("critical_path", .list(order.filter(critical.contains).map { .string(nodes[$0].id) })),
        ])
    }

    /// The picture read back from a JSON report's `graph`.
    /// - Throws: `ReportReadError` naming the first field missing or of the wrong type, or a step named twice.
    init(json value: Value, title: String) throws(ReportReadError) {
        let reader = JSONReportReader()
        let listed = try reader.list(value["nodes"], "graph.nodes")
        var indices: [String: Int] = [:]
        for (position, node) in listed.enumerated() {
            let id = try reader.string(node["id"], "graph.nodes[\(position)].id")
            guard indices.updateValue(position, forKey: id) == nil else {
                throw ReportReadError("`graph.nodes[\(position)].id`: the step `\(id)` is named twice")
            }
        }
        var nodes: [Node] = []
        for (position, node) in listed.enumerated() {
            let field = "graph.nodes[\(position)]"
            var waits: [(target: Int, carriesData: Bool)] = []
            for (index, need) in try reader.list(node["needs"], "\(field).needs").enumerated() {
                let step = try reader.string(need["step"], "\(field).needs[\(index)].step")
                guard let target = indices[step] else {
                    throw ReportReadError("`\(field).needs[\(index)].step`: no step `\(step)` in the graph")
                }
                waits.append((target, try reader.bool(need["data"], "\(field).needs[\(index)].data")))
            }
            nodes.append(
                Node(
                    id: try reader.string(node["id"], "\(field).id"),
                    kind: try reader.string(node["kind"], "\(field).kind"),
                    wave: try reader.optionalInt(node["wave"], "\(field).wave"),
                    isLoop: try reader.bool(node["loop"], "\(field).loop"),
                    parent: try reader.optionalString(node["parent"], "\(field).parent").flatMap { indices[$0] },
                    waits: waits, detail: try reader.string(node["detail"], "\(field).detail")))
        }
        var critical: Set<Int> = []
        for (index, step) in try reader.list(value["critical_path"], "graph.critical_path").enumerated() {
            let id = try reader.string(step, "graph.critical_path[\(index)]")
            guard let node = indices[id] else {
                throw ReportReadError("`graph.critical_path[\(index)]`: no step `\(id)` in the graph")
            }
            critical.insert(node)
        }
        self.init(title: title, documentOrder: nodes, critical: critical)
    }
}
