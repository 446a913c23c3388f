import ReqPlanSyntax

extension GraphPicture {
    /// The picture as the JSON report's `graph`: each step in document order (`id`, `kind`, `parent`, `wave`,
    /// `loop`, `needs` with whether a value flows, `detail`) and the critical path. `reqplan report merge`
    /// draws a plan's graph from it.
    var jsonValue: Value {
        let order = documentOrder
        return .object([
            .init(
                "nodes",
                .list(
                    order.map { index in
                        let node = nodes[index]
                        return .object(
                            [
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
                            ]
                                + (node.jumps.isEmpty
                                    ? []
                                    : [
                                        .init(
                                            "jumps",
                                            .list(
                                                node.jumps.map {
                                                    .object([
                                                        .init("step", .string(nodes[$0.target].id)),
                                                        .init("action", .string($0.label)),
                                                        .init("back", .bool($0.back)),
                                                    ])
                                                }))
                                    ]))
                    })),
            .init("critical_path", .list(order.filter(critical.contains).map { .string(nodes[$0].id) })),
        ])
    }

    /// The picture read back from a JSON report's `graph`.
    /// - Parameters:
    ///   - value: the `graph`.
    ///   - title: the plan's name, or its file.
    ///   - prefix: where the report is in the document read, put before the fields errors name (`plans[2].`).
    /// - Throws: `ReportReadError` naming the first field missing, of the wrong type or out of its range, or a step
    ///   named twice.
    init(json value: Value, title: String, at prefix: String = "") throws(ReportReadError) {
        let reader = JSONReportReader(prefix: prefix)
        let listed = try reader.list(value["nodes"], "graph.nodes")
        var indices: [String: Int] = [:]
        for (position, node) in listed.enumerated() {
            let id = try reader.string(node["id"], "graph.nodes[\(position)].id")
            guard indices.updateValue(position, forKey: id) == nil else {
                throw reader.problem("graph.nodes[\(position)].id", "names the step `\(id)` a second time")
            }
        }
        // A wave holds at least one step: there are fewer waves than steps.
        let waves = 0...max(0, listed.count - 1)
        var nodes: [Node] = []
        for (position, node) in listed.enumerated() {
            let field = "graph.nodes[\(position)]"
            var waits: [(target: Int, carriesData: Bool)] = []
            for (index, need) in try reader.list(node["needs"], "\(field).needs").enumerated() {
                let step = try reader.string(need["step"], "\(field).needs[\(index)].step")
                guard let target = indices[step] else {
                    throw reader.problem("\(field).needs[\(index)].step", "names no step of the graph: `\(step)`")
                }
                waits.append((target, try reader.bool(need["data"], "\(field).needs[\(index)].data")))
            }
            // Reports written before control flows have none.
            var jumps: [(target: Int, label: String, back: Bool)] = []
            if let listed = node["jumps"], listed != .null {
                for (index, jump) in try reader.list(listed, "\(field).jumps").enumerated() {
                    let step = try reader.string(jump["step"], "\(field).jumps[\(index)].step")
                    guard let target = indices[step] else {
                        throw reader.problem("\(field).jumps[\(index)].step", "names no step of the graph: `\(step)`")
                    }
                    jumps.append(
                        (
                            target, try reader.string(jump["action"], "\(field).jumps[\(index)].action"),
                            try reader.bool(jump["back"], "\(field).jumps[\(index)].back")
                        ))
                }
            }
            var wave: Int?
            if let written = node["wave"], written != .null {
                wave = try reader.int(written, "\(field).wave", in: waves, "a wave")
            }
            nodes.append(
                Node(
                    id: try reader.string(node["id"], "\(field).id"),
                    kind: try reader.string(node["kind"], "\(field).kind"), wave: wave,
                    isLoop: try reader.bool(node["loop"], "\(field).loop"),
                    parent: try reader.optionalString(node["parent"], "\(field).parent").flatMap { indices[$0] },
                    waits: waits, detail: try reader.string(node["detail"], "\(field).detail"), jumps: jumps))
        }
        var critical: Set<Int> = []
        for (index, step) in try reader.list(value["critical_path"], "graph.critical_path").enumerated() {
            let id = try reader.string(step, "graph.critical_path[\(index)]")
            guard let node = indices[id] else {
                throw reader.problem("graph.critical_path[\(index)]", "names no step of the graph: `\(id)`")
            }
            critical.insert(node)
        }
        self.init(title: title, documentOrder: nodes, critical: critical)
    }
}
