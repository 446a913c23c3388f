import Foundation
import ReqPlanPlanner
import ReqPlanSyntax

extension PlanGraph {
    /// The DAG as a Mermaid flowchart; groups, sequences, for_each over groups and sub-plans are subgraphs.
    ///
    /// Solid arrows are `needs` and sequence order; dotted arrows carry data (`steps.X` references, and
    /// `vars.X` of a var that reads the step).
    public func mermaid() -> String {
        var out = "flowchart LR\n"
        func label(_ node: StepNode) -> String {
            var text = node.id
            if let request = node.step.request {
                text += "<br/>" + request.effectiveMethod.rawValue + " " + request.url.description
            }
            if case .forEach(let loop) = node.step.kind {
                text += "<br/>for each " + loop.loopLabel
            }
            return "\"" + mermaidEscape(text) + "\""
        }
        func emit(_ id: NodeID, indent: String) {
            let node = nodes[id]
            switch node.kind {
            case .request:
                out += indent + "n\(id)[\(label(node))]\n"
            case .forEachRequest:
                out += indent + "n\(id)[[\(label(node))]]\n"
            case .group, .sequence, .forEachGroup, .plan:
                let title =
                    "\(node.id) · \(node.step.kindName)"
                    + (node.kind == .forEachGroup ? " " + (loopItemName(node) ?? "") : "")
                    + (node.step.subPlan.map { " " + $0.file.value } ?? "")
                out += indent + "subgraph n\(id)[\"\(mermaidEscape(title))\"]\n"
                if node.kind == .sequence { out += indent + "  direction LR\n" }
                for child in node.children { emit(child, indent: indent + "  ") }
                out += indent + "end\n"
            }
        }
        for root in roots { emit(root, indent: "  ") }
        for node in nodes {
            for dependency in node.dependencies {
                let arrow = dependency.carriesData ? "-.->" : "-->"
                out += "  n\(dependency.target) \(arrow) n\(node.nodeID)\n"
            }
        }
        // A control flow's transitions, back edges (loops) included: thick arrows with the action.
        for edge in controlEdges {
            guard let to = edge.to else { continue }
            out += "  n\(edge.from) == \"\(mermaidEscape(edge.label))\" ==> n\(to)\n"
        }
        return out
    }

    /// The DAG in Graphviz DOT; groups, sequences, for_each over groups and sub-plans are clusters.
    public func dot() -> String {
        var out = "digraph plan {\n  rankdir=LR;\n  compound=true;\n"
        out += "  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n"
        if let name = plan.name?.value { out += "  label=\(dotQuote(name));\n  labelloc=t;\n" }
        func emit(_ id: NodeID, indent: String) {
            let node = nodes[id]
            switch node.kind {
            case .request, .forEachRequest:
                var text = node.id
                if let request = node.step.request {
                    text += "\n" + request.effectiveMethod.rawValue + " " + request.url.description
                }
                if let item = loopItemName(node) { text += "\nfor each " + item }
                let shape = node.kind == .forEachRequest ? ", shape=box3d" : ""
                out += indent + "n\(id) [label=\(dotQuote(text))\(shape)];\n"
            case .group, .sequence, .forEachGroup, .plan:
                out += indent + "subgraph cluster_n\(id) {\n"
                var title = "\(node.id) (\(node.step.kindName))"
                if let item = loopItemName(node) { title += " for each " + item }
                if let call = node.step.subPlan { title += " " + call.file.value }
                out += indent + "  label=\(dotQuote(title));\n"
                for child in node.children { emit(child, indent: indent + "  ") }
                out += indent + "}\n"
            }
        }
        for root in roots { emit(root, indent: "  ") }
        for node in nodes {
            for dependency in node.dependencies {
                guard let from = representative(dependency.target), let to = representative(node.nodeID) else {
                    continue
                }
                var attributes: [String] = []
                if dependency.carriesData { attributes.append("style=dashed") }
                if !nodes[dependency.target].isUnit { attributes.append("ltail=cluster_n\(dependency.target)") }
                if !node.isUnit { attributes.append("lhead=cluster_n\(node.nodeID)") }
                let suffix = attributes.isEmpty ? "" : " [" + attributes.joined(separator: ", ") + "]"
                out += "  n\(from) -> n\(to)\(suffix);\n"
            }
        }
        // A control flow's transitions, back edges (loops) included: bold, labelled with the action.
        for edge in controlEdges {
            guard let target = edge.to, let from = representative(edge.from), let to = representative(target) else {
                continue
            }
            let color = edge.onFailure ? "firebrick" : "royalblue"
            out += "  n\(from) -> n\(to) [label=\(dotQuote(edge.label)), style=bold, color=\(color)"
            out += edge.back ? ", constraint=false];\n" : "];\n"
        }
        out += "}\n"
        return out
    }

    private func loopItemName(_ node: StepNode) -> String? {
        if case .forEach(let loop) = node.step.kind { return loop.loopLabel }
        return nil
    }

    /// The first unit inside a node (itself for units), which stands for a cluster in DOT edges.
    private func representative(_ id: NodeID) -> NodeID? {
        var current = id
        while !nodes[current].isUnit {
            guard let first = nodes[current].children.first else { return nil }
            current = first
        }
        return current
    }

    private func mermaidEscape(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "#quot;").replacingOccurrences(of: "<br/>", with: "\u{0}")
            .replacingOccurrences(of: "<", with: "#lt;").replacingOccurrences(of: ">", with: "#gt;")
            .replacingOccurrences(of: "\u{0}", with: "<br/>")
    }

    private func dotQuote(_ text: String) -> String {
        "\""
            + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}

extension ForEach {
    /// What a diagram says the loop runs over: its item's name, and the data file its rows come from
    /// (`product in data/products.csv`).
    var loopLabel: String {
        guard let file else { return itemName.value }
        return itemName.value + " in " + file.path.value
    }
}
