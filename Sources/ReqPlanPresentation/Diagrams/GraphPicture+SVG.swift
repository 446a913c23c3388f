import ReqPlanPlanner

extension PlanGraph {
    /// The plan's graph as a self-contained SVG picture (`reqplan graph --format svg`, and the HTML report's
    /// graph): each step that sends requests a box in the column of its wave, groups, sequences, for_each over
    /// groups and sub-plans frames around their members, an arrow for each wait (dashed when a value flows
    /// along it) that runs along rows and column gaps and so crosses no box, the critical path drawn heavier. With `states` (step id → `succeeded`, `failed`,
    /// `skipped`, `cancelled`), each step is coloured by the state it ended in.
    public func svg(states: [String: String] = [:]) -> String {
        GraphPicture(self).svg(states: states)
    }
}

extension GraphPicture {
    /// The picture as SVG, each step coloured by its state in `states` (step id → state).
    func svg(states: [String: String] = [:]) -> String {
        let layout = GraphLayout(self)
        let arrow = SVG.Marker(id: "arrow", path: "M 0 0 L 10 5 L 0 10 z", className: "arrowhead")
        let definitions: [any SVGElement] = [SVG.Definitions(children: [arrow])]
        let arrows = waitArrows(layout, arrow: arrow.id) + jumpArrows(layout, arrow: arrow.id)
        // A route that turns after the last column (a jump, an arrow that goes back) widens the picture.
        let right = arrows.flatMap(\.points).map(\.x.value).max() ?? 0
        return SVG.Document(
            width: SVG.Unit(max(layout.width, right + GraphLayout.margin / 2)), height: SVG.Unit(layout.height),
            className: "reqplan-graph", fontSize: 12, title: "reqplan: \(title)", style: Self.style,
            children: definitions + frames(layout, states: states) + arrows + boxes(layout, states: states)
        ).text
    }

    /// Frames, outermost first, so that what they hold is drawn over them.
    private func frames(_ layout: GraphLayout, states: [String: String]) -> [any SVGElement] {
        nodes.indices.sorted { nodes[$0].depth < nodes[$1].depth }.compactMap { index -> (any SVGElement)? in
            let node = nodes[index]
            guard !node.isUnit, let rect = layout.rects[index] else { return nil }
            var title = "\(node.id) · \(node.kind)"
            if node.kind == "plan", !node.detail.isEmpty { title += " " + node.detail }
            return SVG.Group(
                className: "frame kind-\(node.kind) \(Self.stateClass(states[node.id]))", data: stepData(node),
                title: title + (states[node.id].map { "\n" + $0 } ?? ""),
                children: [
                    Self.rect(rect, radius: 6),
                    SVG.Text(
                        at: SVG.Point(rect.x + 8, rect.y + 15), className: "frame-title",
                        content: Self.fitted(title, width: rect.width - 16)),
                ])
        }
    }

    /// An arrow for each wait (but a member's on its collection), routed around the boxes; the arrows into
    /// one step share a track in the gap before it, and the steps reached through one gap each have their own.
    private func waitArrows(_ layout: GraphLayout, arrow: String) -> [SVG.Path] {
        let waits = nodes.indices.flatMap { index in
            nodes[index].waits.filter { !isContainment($0.target, index) }.map { (to: index, wait: $0) }
        }
        var tracks: [Int: Double] = [:]
        let ends = Set(waits.map(\.to)).compactMap { index in layout.rects[index].map { (index, $0) } }
        for gap in Dictionary(grouping: ends, by: { GraphLayout.gap(before: $0.1).lowerBound }).values {
            let ordered = gap.sorted { ($0.1.y, $0.0) < ($1.1.y, $1.0) }
            for (position, end) in ordered.enumerated() {
                tracks[end.0] = Double(position + 1) / Double(ordered.count + 1)
            }
        }
        return waits.compactMap { to, wait -> SVG.Path? in
            guard let from = layout.rects[wait.target], let rect = layout.rects[to] else { return nil }
            var classes = ["edge"]
            if wait.carriesData { classes.append("data") }
            if critical.contains(wait.target) && critical.contains(to) { classes.append("critical") }
            return SVG.Path(
                points: layout.waitRoute(from: from, to: rect, track: tracks[to] ?? 0.5), cornerRadius: 6,
                className: classes.joined(separator: " "), arrow: arrow,
                data: [("from", nodes[wait.target].id), ("to", nodes[to].id)])
        }
    }

    /// A control flow's jumps (`goto`), a loop back included: brackets on the right, the action as their title.
    private func jumpArrows(_ layout: GraphLayout, arrow: String) -> [SVG.Path] {
        nodes.indices.flatMap { index in
            nodes[index].jumps.compactMap { jump -> SVG.Path? in
                guard let from = layout.rects[index], let to = layout.rects[jump.target] else { return nil }
                return SVG.Path(
                    points: layout.jumpRoute(from: from, to: to), cornerRadius: 6,
                    className: "jump" + (jump.back ? " back" : ""), arrow: arrow,
                    data: [("from", nodes[index].id), ("to", nodes[jump.target].id)],
                    title: jump.label + (jump.back ? " (back: a loop)" : ""))
            }
        }
    }

    /// Each step that sends requests: a box with its id and what it sends, the steps it waits for on hover.
    private func boxes(_ layout: GraphLayout, states: [String: String]) -> [any SVGElement] {
        nodes.indices.compactMap { index -> (any SVGElement)? in
            let node = nodes[index]
            guard node.isUnit, let rect = layout.rects[index] else { return nil }
            var classes = ["step", Self.stateClass(states[node.id])]
            if node.isLoop { classes.append("loop") }
            if critical.contains(index) { classes.append("critical") }
            let waits = node.waits.map { nodes[$0.target].id }
            let title =
                [node.id, node.detail] + (states[node.id].map { [$0] } ?? [])
                + (waits.isEmpty ? [] : ["waits for " + waits.joined(separator: ", ")])
            return SVG.Group(
                className: classes.joined(separator: " "), data: stepData(node),
                title: title.joined(separator: "\n"),
                children: [
                    Self.rect(rect, radius: 4),
                    SVG.Text(
                        at: SVG.Point(rect.x + 8, rect.y + 16), className: "step-id",
                        content: Self.fitted(node.id, width: rect.width - 16)),
                    SVG.Text(
                        at: SVG.Point(rect.x + 8, rect.y + 31), className: "step-detail",
                        content: Self.fitted(node.detail, width: rect.width - 16)),
                ])
        }
    }

    /// A step's `data-step`, and `data-parent` when it is a member.
    private func stepData(_ node: Node) -> [(name: String, value: String)] {
        [("step", node.id)] + (node.parent.map { [("parent", nodes[$0].id)] } ?? [])
    }

    private static func rect(_ rect: GraphLayout.Rect, radius: SVG.Unit) -> SVG.Rect {
        SVG.Rect(
            x: SVG.Unit(rect.x), y: SVG.Unit(rect.y), width: SVG.Unit(rect.width), height: SVG.Unit(rect.height),
            radius: radius)
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

    /// `text` cut to what fits in `width` (about 6.6 units a character at 12 px), with `…`.
    private static func fitted(_ text: String, width: Double) -> String {
        let room = max(4, Int(width / 6.6))
        return text.count <= room ? text : String(text.prefix(room - 1)) + "…"
    }
}
