import ReqPlanSyntax

extension PlanGraph {
    /// Whether any request of the graph takes its credentials from an OAuth 2.0 grant (`auth: { oauth2 }`,
    /// its own or its plan's `defaults`, an API description's included): only then does a run need a token
    /// cache of its own.
    /// - Complexity: O(*n*), the number of nodes.
    public var usesOAuth2: Bool {
        nodes.contains { node in
            let spec: RequestSpec
            switch node.step.kind {
            case .request(let request): spec = request
            case .forEach(let loop):
                guard case .request(let request) = loop.body else { return false }
                spec = request
            default: return false
            }
            guard case .oauth2? = (spec.auth ?? instances[node.instance].plan.defaults.auth)?.value else {
                return false
            }
            return true
        }
    }
}
