import ReqPlanPlanner
import ReqPlanSyntax

/// How `reqplan validate` prints its reports.
public enum ValidationOutput {
    /// Compiler-style diagnostics with source excerpts, then a summary line.
    /// - Parameters:
    ///   - reports: one per plan file, in the order given.
    ///   - colors: color with ANSI escapes.
    ///   - explain: after each valid plan, print the schedule (`--explain`).
    ///   - parallel: the Arazzo documents among `reports` read again with `--parallel`: with `explain`, what
    ///     it would change in each one's schedule.
    public static func text(
        _ reports: [ValidationReport], colors: Bool, explain: Bool, strict: Bool, parallel: [ValidationReport] = []
    ) -> String {
        let renderer = DiagnosticRenderer(colors: colors, files: reports.flatMap(\.sources))
        var out = ""
        for report in reports {
            if !report.diagnostics.isEmpty {
                out += renderer.text(report.diagnostics) + "\n"
            }
            if explain, let graph = report.graph {
                out += graph.explanation()
                if let other = parallel.first(where: { $0.path == report.path })?.graph {
                    out += graph.parallelGain(other)
                }
                out += "\n"
            }
        }
        out += summary(reports, strict: strict) + "\n"
        return out
    }

    /// One line: how many plans were checked and what was found.
    public static func summary(_ reports: [ValidationReport], strict: Bool) -> String {
        let invalid = reports.filter { !$0.isValid(strict: strict) }
        let errors = reports.reduce(0) { $0 + $1.errorCount }
        let warnings = reports.reduce(0) { $0 + $1.warningCount }
        func plural(_ count: Int, _ word: String) -> String { "\(count) \(word)\(count == 1 ? "" : "s")" }
        if reports.count == 1, let report = reports.first {
            let counts = [errors > 0 ? plural(errors, "error") : nil, warnings > 0 ? plural(warnings, "warning") : nil]
                .compactMap { $0 }.joined(separator: ", ")
            if invalid.isEmpty {
                return "\(report.path): valid" + (counts.isEmpty ? "" : " (\(counts))")
            }
            return "\(report.path): invalid (\(counts))"
        }
        var line =
            "checked \(plural(reports.count, "plan")): \(reports.count - invalid.count) valid, \(invalid.count) invalid"
        if errors + warnings > 0 {
            line +=
                " ("
                + [errors > 0 ? plural(errors, "error") : nil, warnings > 0 ? plural(warnings, "warning") : nil]
                .compactMap { $0 }.joined(separator: ", ") + ")"
        }
        return line
    }

    /// A JSON document: `{ "valid": …, "plans": [ { "file", "valid", "errors", "warnings", "diagnostics" } ] }`.
    public static func json(_ reports: [ValidationReport], strict: Bool) -> String {
        let plans: [Value] = reports.map { report in
            .object([
                .init("file", .string(report.path)),
                .init("valid", .bool(report.isValid(strict: strict))),
                .init("errors", .int(report.errorCount)),
                .init("warnings", .int(report.warningCount)),
                .init("diagnostics", DiagnosticRenderer.json(report.diagnostics)),
            ])
        }
        let document = Value.object([
            .init("format", .string("reqplan-validate/1")),
            .init("valid", .bool(reports.allSatisfy { $0.isValid(strict: strict) })),
            .init("plans", .list(plans)),
        ])
        return document.jsonText(pretty: true) + "\n"
    }

    /// GitHub Actions annotations (`::error file=…,line=…,col=…::message`), then the summary.
    public static func github(_ reports: [ValidationReport], strict: Bool) -> String {
        let renderer = DiagnosticRenderer(colors: false, files: [])
        return reports.map { renderer.github($0.diagnostics) }.joined() + summary(reports, strict: strict) + "\n"
    }

    /// GitLab's code-quality report (`DiagnosticRenderer.codeQuality`): one JSON array over every plan, for
    /// `artifacts: reports: codequality:`; the summary goes to standard error, for the job's log.
    public static func gitlab(_ reports: [ValidationReport]) -> String {
        Value.list(reports.flatMap { DiagnosticRenderer.codeQuality($0.diagnostics, file: $0.path) })
            .jsonText(pretty: true) + "\n"
    }
}
