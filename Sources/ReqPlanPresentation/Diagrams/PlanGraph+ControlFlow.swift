import ReqPlanPlanner
import ReqPlanSyntax

extension PlanGraph {
    /// One way control moves between the members of a control flow (`FlowControl`): from a member to
    /// another, on success or on failure, with the action's name; `back` when it goes to the member itself
    /// or an earlier one (a loop).
    struct ControlEdge {
        var from: NodeID
        var to: NodeID?
        var onFailure: Bool
        var name: String
        var back: Bool

        /// The edge's label in pictures: `goto again`, `on failure: goto fallback`.
        var label: String { (onFailure ? "on failure: " : "") + name.replacingOccurrences(of: "`", with: "") }
    }

    /// Every transition of every control flow in the plan, in order (those to the end as `to: nil`).
    var controlEdges: [ControlEdge] {
        var edges: [ControlEdge] = []
        for node in nodes {
            guard let flow = node.step.flow else { continue }
            let members = node.children
            for (position, control) in flow.members.enumerated() where position < members.count {
                for (transitions, onFailure) in [(control.onSuccess, false), (control.onFailure, true)] {
                    for transition in transitions {
                        var to: NodeID?
                        var back = false
                        if case .member(let target) = transition.target, target < members.count {
                            to = members[target]
                            back = target <= position
                        }
                        edges.append(
                            ControlEdge(
                                from: members[position], to: to, onFailure: onFailure, name: transition.name, back: back
                            ))
                    }
                }
            }
        }
        return edges
    }

    /// The control flows of the plan in words, for `reqplan plan`: each transition, back edges marked.
    func controlFlowText() -> String {
        let edges = controlEdges
        guard !edges.isEmpty else { return "" }
        var out = "\ncontrol flow (the state machine of a workflow's actions; a step runs at most "
        out += "\(FlowControl.defaultMaxVisits) times):\n"
        for edge in edges {
            let target = edge.to.map { "`\(nodes[$0].id)`" } ?? "the end"
            out += "  `\(nodes[edge.from].id)` → \(target): \(edge.label)" + (edge.back ? " (back: a loop)" : "") + "\n"
        }
        return out
    }
}
