import ReqPlanSyntax

extension PlanValidator {
    /// Validates every plan file of a suite: one report per file, and one per folder that holds no
    /// plan (its RP0710), in suite order. This is the one place where the files of a suite are
    /// validated together (`reqplan validate` and `reqplan run` with several files or folders).
    /// - Parameter limits: size and alias-expansion limits, for each file.
    public static func validate(suite: SuiteFiles, limits: ParseLimits = ParseLimits()) -> [ValidationReport] {
        var reports = suite.files.map { validate(fileAt: $0, limits: limits) }
        for problem in suite.problems {
            let path = problem.file ?? "."
            reports.append(ValidationReport(path: path, source: nil, plan: nil, graph: nil, diagnostics: [problem]))
        }
        return reports.sorted { SuiteFiles.inOrder($0.path, $1.path) }
    }
}
