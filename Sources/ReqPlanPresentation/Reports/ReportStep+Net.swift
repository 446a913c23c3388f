import ReqPlanRuntime

extension ReportStep {
    /// The step as reports show it: its result through `net` (`RunResult.netted(by:)`), and what the plan's
    /// own text adds (its expectations as written, the one that failed), its members' and items' too.
    func netted(by net: Redactor) -> ReportStep {
        guard !net.texts.isEmpty else { return self }
        var shown = self
        shown.result = result.netted(by: net)
        shown.failedExpectation = net.redact(failedExpectation)
        shown.expectations = expectations.map { expectation in
            var expectation = expectation
            expectation.text = net.redact(expectation.text)
            expectation.problems = expectation.problems.map(net.redact)
            return expectation
        }
        shown.children = children.map { $0.netted(by: net) }
        return shown
    }
}

extension GraphPicture {
    /// The picture with each step's detail (a request's URL as written) through `net`.
    func netted(by net: Redactor) -> GraphPicture {
        guard !net.texts.isEmpty else { return self }
        var nodes = self.nodes
        for index in nodes.indices { nodes[index].detail = net.redact(nodes[index].detail) }
        var picture = GraphPicture(title: title, nodes: nodes, roots: roots, critical: critical)
        picture.title = title
        return picture
    }
}
