import Foundation
import ReqPlanPlanner
import ReqPlanSyntax

/// How `reqplan coverage` prints an ``APICoverage``: a table, or JSON.
extension APICoverage {
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
