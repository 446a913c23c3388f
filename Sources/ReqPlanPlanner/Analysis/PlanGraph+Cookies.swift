import ReqPlanSyntax

extension PlanGraph {
    /// Whether the run's cookie jar applies to the requests of `node`: the `cookies:` of the node itself
    /// or of its innermost enclosing group, sequence, for_each or `plan` step that sets one (a sub-plan
    /// file's own `cookies` coming before its step's), else the plan's, else true.
    /// - Complexity: O(*d*), the node's nesting depth.
    public func usesCookies(_ node: NodeID) -> Bool {
        var current: NodeID? = node
        while let id = current {
            if let setting = nodes[id].step.cookies { return setting.value }
            let parent = nodes[id].parent
            if let parent, nodes[parent].instance != nodes[id].instance,
                let setting = instances[nodes[id].instance].plan.cookies
            {
                return setting.value
            }
            current = parent
        }
        return plan.cookies?.value ?? true
    }
}
