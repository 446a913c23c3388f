import ReqPlanSyntax

/// What of a response the executor must keep after the step ends.
public struct Retention: Sendable, Hashable {
    /// Keep the parsed body.
    public var body: Bool
    /// Keep the headers.
    public var headers: Bool
    /// Keep the cookies the response set (`steps.X.cookies`).
    public var cookies: Bool = false
}

extension PlanGraph {
    /// What to keep of the responses of `node` (of each item, for a for_each over a request):
    /// what expressions read of the step itself, or of it through an enclosing group's,
    /// sequence's or for_each's `results`.
    public func retention(of node: NodeID) -> Retention {
        var keep = Retention(body: false, headers: false)
        func add(_ field: ResultField?, whole: Bool) {
            if whole || field == .body { keep.body = true }
            if whole || field == .headers { keep.headers = true }
            if whole || field == .cookies { keep.cookies = true }
        }
        if let own = usage[node] {
            let fields = nodes[node].kind == .forEachRequest ? own.itemFields : own.fields
            add(nil, whole: own.whole)
            for field in fields { add(field, whole: false) }
        }
        // Reached through an ancestor's `results`: `steps.g.results[*].body`, or deeper (`results[*].results`).
        var current = nodes[node].parent
        while let ancestor = current {
            if let usage = usage[ancestor] {
                let readsResults = usage.fields.contains(.results)
                add(
                    nil,
                    whole: usage.whole || (readsResults && usage.itemFields.isEmpty)
                        || usage.itemFields.contains(.results))
                for field in usage.itemFields { add(field, whole: false) }
            }
            current = nodes[ancestor].parent
        }
        return keep
    }
}
