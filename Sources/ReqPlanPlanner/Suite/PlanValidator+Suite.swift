import Dispatch
import ReqPlanSyntax
import Synchronization

extension PlanValidator {
    /// Validates every plan file of a suite: one report per file, and one per folder that holds no
    /// plan (its RP0710), in suite order. This is the one place where the files of a suite are
    /// validated together (`reqplan validate` and `reqplan run` with several files or folders); the
    /// files are read and checked on every core at once.
    /// - Parameter limits: size and alias-expansion limits, for each file.
    public static func validate(suite: SuiteFiles, limits: ParseLimits = ParseLimits()) -> [ValidationReport] {
        let files = suite.files
        let results = Mutex<[ValidationReport?]>(Array(repeating: nil, count: files.count))
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let report = validate(fileAt: files[index], limits: limits)
            results.withLock { $0[index] = report }
        }
        var reports = results.withLock { $0 }.compactMap { $0 }
        for problem in suite.problems {
            let path = problem.file ?? "."
            reports.append(ValidationReport(path: path, source: nil, plan: nil, graph: nil, diagnostics: [problem]))
        }
        return reports.sorted { SuiteFiles.inOrder($0.path, $1.path) }
    }
}
