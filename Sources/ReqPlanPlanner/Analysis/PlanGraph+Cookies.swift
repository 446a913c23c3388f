import ReqPlanSyntax

extension PlanGraph {
    /// Whether the run's cookie jar applies to the requests of `node`: the `cookies:` of the node itself
    /// or of its innermost enclosing group, sequence or for_each that sets one, else the plan's, else true.
    /// - Complexity: O(*d*), the node's nesting depth.
    public func usesCookies(_ node: NodeID) -> Bool {
        var current: NodeID? = node
        while let id = current {
            if let setting = nodes[id].step.cookies { return setting.value }
            current = nodes[id].parent
        }
        return plan.cookies?.value ?? true
    }
}
