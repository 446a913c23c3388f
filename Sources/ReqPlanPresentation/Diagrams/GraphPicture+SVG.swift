import ReqPlanPlanner

extension PlanGraph {
    /// The plan's graph as a self-contained SVG picture (`reqplan graph --format svg`, and the HTML report's
    /// graph): each step that sends requests a box in the column of its wave, groups, sequences, for_each over
    /// groups and sub-plans frames around their members, an arrow for each wait (dashed when a value flows
    /// along it), the critical path drawn heavier. With `states` (step id → `succeeded`, `failed`,
    /// `skipped`, `cancelled`), each step is coloured by the state it ended in.
    public func svg(states: [String: String] = [:]) -> String {
        GraphPicture(self).svg(states: states)
    }
}

extension GraphPicture {
    /// The picture as SVG, each step coloured by its state in `states` (step id → state).
    func svg(states: [String: String] = [:]) -> String {
        let layout = GraphLayout(self)
        var xml = XMLWriter()
        xml.start(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("class", "reqplan-graph"),
                ("width", SVG.number(layout.width)), ("height", SVG.number(layout.height)),
                ("viewBox", "0 0 \(SVG.number(layout.width)) \(SVG.number(layout.height))"),
                ("font-family", "-apple-system, Segoe UI, Helvetica, Arial, sans-serif"), ("font-size", "12"),
            ])
        xml.element("title", content: "reqplan: \(title)")
        xml.element("style", content: Self.style)
        xml.start("defs")
        xml.start(
            "marker",
            [
                ("id", "arrow"), ("viewBox", "0 0 10 10"), ("refX", "10"), ("refY", "5"), ("markerWidth", "8"),
                ("markerHeight", "8"), ("markerUnits", "userSpaceOnUse"), ("orient", "auto-start-reverse"),
            ])
        xml.element("path", [("d", "M 0 0 L 10 5 L 0 10 z"), ("class", "arrowhead")])
        xml.end()
        xml.end()
        // Frames first, outermost first, so that what they hold is drawn over them.
        for index in nodes.indices.sorted(by: { nodes[$0].depth < nodes[$1].depth }) where !nodes[index].isUnit {
            let node = nodes[index]
            guard let rect = layout.rects[index] else { continue }
            var title = "\(node.id) · \(node.kind)"
            if node.kind == "plan", !node.detail.isEmpty { title += " " + node.detail }
            xml.start(
                "g",
                [
                    ("class", "frame kind-\(node.kind) \(Self.stateClass(states[node.id]))"),
                    ("data-step", node.id),
                ]
                    + (node.parent.map { [("data-parent", nodes[$0].id)] } ?? []))
            xml.element("title", content: title + (states[node.id].map { "\n" + $0 } ?? ""))
            xml.element("rect", Self.attributes(rect) + [("rx", "6")])
            xml.element(
                "text", [("x", SVG.number(rect.x + 8)), ("y", SVG.number(rect.y + 15)), ("class", "frame-title")],
                content: Self.fitted(title, width: rect.width - 16))
            xml.end()
        }
        for (index, node) in nodes.enumerated() {
            for dependency in node.waits where !isContainment(dependency.target, index) {
                guard let from = layout.rects[dependency.target], let to = layout.rects[index] else { continue }
                let (x1, y1, x2, y2) = (from.right, from.middle, to.x, to.middle)
                let bend = max(24, (x2 - x1) / 2)
                var classes = ["edge"]
                if dependency.carriesData { classes.append("data") }
                if critical.contains(dependency.target) && critical.contains(index) { classes.append("critical") }
                xml.element(
                    "path",
                    [
                        ("class", classes.joined(separator: " ")),
                        (
                            "d",
                            "M \(SVG.number(x1)) \(SVG.number(y1)) C \(SVG.number(x1 + bend)) \(SVG.number(y1)), "
                                + "\(SVG.number(x2 - bend)) \(SVG.number(y2)), \(SVG.number(x2)) \(SVG.number(y2))"
                        ),
                        ("marker-end", "url(#arrow)"), ("data-from", nodes[dependency.target].id), ("data-to", node.id),
                    ])
            }
        }
        // A control flow's jumps (`goto`), a loop back included: arcs over the boxes, the action as their title.
        for (index, node) in nodes.enumerated() {
            for jump in node.jumps {
                guard let from = layout.rects[index], let to = layout.rects[jump.target] else { continue }
                let (x1, x2) = (from.x + from.width / 2, to.x + to.width / 2)
                let lift = max(20, abs(x2 - x1) / 4)
                let top = min(from.y, to.y) - lift
                xml.start(
                    "path",
                    [
                        ("class", "jump" + (jump.back ? " back" : "")),
                        (
                            "d",
                            "M \(SVG.number(x1)) \(SVG.number(from.y)) C \(SVG.number(x1)) \(SVG.number(top)), "
                                + "\(SVG.number(x2)) \(SVG.number(top)), \(SVG.number(x2)) \(SVG.number(to.y))"
                        ),
                        ("marker-end", "url(#arrow)"), ("data-from", node.id), ("data-to", nodes[jump.target].id),
                    ])
                xml.element("title", content: jump.label + (jump.back ? " (back: a loop)" : ""))
                xml.end()
            }
        }
        for (index, node) in nodes.enumerated() where node.isUnit {
            guard let rect = layout.rects[index] else { continue }
            var classes = ["step", Self.stateClass(states[node.id])]
            if node.isLoop { classes.append("loop") }
            if critical.contains(index) { classes.append("critical") }
            xml.start(
                "g",
                [("class", classes.joined(separator: " ")), ("data-step", node.id)]
                    + (node.parent.map { [("data-parent", nodes[$0].id)] } ?? []))
            let detail = node.detail
            let waits = node.waits.map { nodes[$0.target].id }
            xml.element(
                "title",
                content: ([node.id, detail] + (states[node.id].map { [$0] } ?? [])
                    + (waits.isEmpty ? [] : ["waits for " + waits.joined(separator: ", ")])).joined(separator: "\n"))
            xml.element("rect", Self.attributes(rect) + [("rx", "4")])
            xml.element(
                "text", [("x", SVG.number(rect.x + 8)), ("y", SVG.number(rect.y + 16)), ("class", "step-id")],
                content: Self.fitted(node.id, width: rect.width - 16))
            xml.element(
                "text", [("x", SVG.number(rect.x + 8)), ("y", SVG.number(rect.y + 31)), ("class", "step-detail")],
                content: Self.fitted(detail, width: rect.width - 16))
            xml.end()
        }
        xml.end()
        return xml.text
    }

    private static let style = """
        .step rect { fill: #ffffff; stroke: #6b7280; stroke-width: 1.2; }
        .step.loop rect { stroke-width: 2.4; stroke-dasharray: 5 2; }
        .step.critical rect { stroke: #1f2937; stroke-width: 2.4; }
        .frame rect { fill: #f3f4f6; fill-opacity: 0.55; stroke: #9ca3af; stroke-dasharray: 4 3; }
        .frame.kind-plan rect { fill: #eef2ff; stroke: #6366f1; }
        .frame-title { fill: #374151; font-weight: 600; }
        .step-id { fill: #111827; font-weight: 600; }
        .step-detail { fill: #4b5563; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 11px; }
        .edge { fill: none; stroke: #6b7280; stroke-width: 1.2; }
        .edge.data { stroke-dasharray: 4 3; }
        .edge.critical { stroke: #1f2937; stroke-width: 2.4; }
        .jump { fill: none; stroke: #2563eb; stroke-width: 1.6; stroke-dasharray: 6 3; }
        .arrowhead { fill: #6b7280; }
        .succeeded rect { fill: #dcfce7; stroke: #16a34a; }
        .failed rect { fill: #fee2e2; stroke: #dc2626; }
        .skipped rect { fill: #f3f4f6; stroke: #9ca3af; }
        .cancelled rect { fill: #fef3c7; stroke: #d97706; }
        """

    private static func stateClass(_ state: String?) -> String { state ?? "planned" }

    private static func attributes(_ rect: GraphLayout.Rect) -> [(String, String)] {
        [
            ("x", SVG.number(rect.x)), ("y", SVG.number(rect.y)), ("width", SVG.number(rect.width)),
            ("height", SVG.number(rect.height)),
        ]
    }

    /// `text` cut to what fits in `width` (about 6.6 units a character at 12 px), with `…`.
    private static func fitted(_ text: String, width: Double) -> String {
        let room = max(4, Int(width / 6.6))
        return text.count <= room ? text : String(text.prefix(room - 1)) + "…"
    }
}
