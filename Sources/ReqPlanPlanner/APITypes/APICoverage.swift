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

    /// A table: one line per operation, `✓`/`✗`, its statuses (`200✓ 404✗`), the steps; then the totals.
    public func table() -> String {
        let names = entries.map { $0.operation.id ?? "-" }
        let labels = entries.map(\.operation.label)
        let nameWidth = max(9, names.map(\.count).max() ?? 0)
        let labelWidth = max(8, labels.map(\.count).max() ?? 0)
        func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
        }
        var out = "  " + pad("operation", nameWidth) + "  " + pad("request", labelWidth) + "  statuses\n"
        for (index, entry) in entries.enumerated() {
            let statuses = entry.statuses.map { "\($0.status)\($0.covered ? "✓" : "✗")" }.joined(separator: " ")
            var line =
                (entry.isCovered ? "✓ " : "✗ ") + pad(names[index], nameWidth) + "  "
                + pad(labels[index], labelWidth) + "  " + (statuses.isEmpty ? "-" : statuses)
            if entry.isCovered { line += "  (\(entry.steps.joined(separator: ", ")))" }
            out += line.trimmingCharacters(in: .whitespaces) + "\n"
        }
        let statusCount = entries.reduce(0) { $0 + $1.statuses.count }
        let statusCovered = entries.reduce(0) { $0 + $1.statuses.count { $0.covered } }
        out +=
            "\n\(coveredCount) of \(entries.count) operations exercised; "
            + "\(statusCovered) of \(statusCount) documented response statuses expected\n"
        return out
    }

    /// The same as JSON (`--format json`): `operations` (each with `id`, `method`, `path`, `covered`,
    /// `steps`, `statuses` of `{status, covered}`), and the counts.
    public func json() -> Value {
        let operations: [Value] = entries.map { entry in
            .object([
                .init("id", entry.operation.id.map(Value.string) ?? .null),
                .init("method", .string(entry.operation.method)),
                .init("path", .string(entry.operation.path)),
                .init("covered", .bool(entry.isCovered)),
                .init("steps", .list(entry.steps.map(Value.string))),
                .init(
                    "statuses",
                    .list(
                        entry.statuses.map { status in
                            .object([
                                .init("status", .string(status.status.description)),
                                .init("covered", .bool(status.covered)),
                            ])
                        })),
            ])
        }
        return .object([
            .init("operations", .list(operations)),
            .init("covered", .int(coveredCount)),
            .init("total", .int(entries.count)),
        ])
    }
}
