import Foundation
import ReqPlanSyntax

/// Which operations of an API description, and which of their documented response statuses, a suite of
/// plans exercises (`reqplan coverage`), read statically from the plans' bindings: a request step bound
/// to an operation (`operation:`, or matched from `method` + `url`) exercises it, and each declared
/// status that the step can succeed with (its `expect.status`, else `defaults.expect.status`, else `2xx`).
public struct APICoverage: Sendable {
    /// One operation of the description and what exercises it.
    public struct Entry: Sendable {
        /// The operation.
        public var operation: APIOperation
        /// The steps bound to it: `plans/data-flow.yaml: fetch`.
        public var steps: [String]
        /// Its declared statuses (`default` left out), each with whether some step expects it.
        public var statuses: [(status: APIStatus, covered: Bool)]

        /// Whether some step is bound to it.
        public var isCovered: Bool { !steps.isEmpty }
    }

    /// Every operation of the description, in document order.
    public var entries: [Entry]

    /// Builds the coverage of `description` by the plans' graphs.
    /// - Parameter graphs: each plan's path (as shown) and graph. An operation is recognised by its
    ///   method and path template, so plans may bind any copy of the document.
    public init(of description: APIDescription, by graphs: [(path: String, graph: PlanGraph)]) {
        entries = description.operations.map { operation in
            var steps: [String] = []
            var expected: [StatusPattern] = []
            for (path, graph) in graphs {
                for node in graph.nodes {
                    guard let bound = graph.apiOperations[node.id], bound.operation.method == operation.method,
                        bound.operation.path == operation.path
                    else { continue }
                    steps.append("\(path): \(node.id)")
                    let expectation = node.step.expect ?? graph.plan(of: node.nodeID).defaults.expect
                    expected += expectation?.status?.map(\.value) ?? [.classOf(2)]
                }
            }
            let statuses = operation.responses.compactMap(\.status).map { status in
                (status: status, covered: expected.contains { $0.overlaps(status) })
            }
            return Entry(operation: operation, steps: steps, statuses: statuses)
        }
    }

    /// How many operations are exercised.
    public var coveredCount: Int { entries.count { $0.isCovered } }
}
