import Dispatch
import ReqPlanSyntax
import Synchronization

extension PlanValidator {
    /// Validates every plan file of a suite: one report per file, and one per folder that holds no
    /// plan (its RP0710), in suite order. This is the one place where the files of a suite are
    /// validated together (`reqplan validate` and `reqplan run` with several files or folders); the
    /// files are read and checked on every core at once, through one library, so a sub-plan they
    /// share is read and checked once.
    /// - Parameters:
    ///   - limits: size and alias-expansion limits, for each file.
    ///   - allowFilesOutside: let the files the plans name be outside their folders.
    ///   - library: where checked plan files are kept.
    public static func validate(
        suite: SuiteFiles, limits: ParseLimits = ParseLimits(), allowFilesOutside: Bool = false,
        library: PlanLibrary = PlanLibrary()
    ) -> [ValidationReport] {
        let files = suite.files
        let results = Mutex<[ValidationReport?]>(Array(repeating: nil, count: files.count))
        @Sendable func check(_ index: Int) {
            let report = validate(
                fileAt: files[index], limits: limits, allowFilesOutside: allowFilesOutside,
                library: library)
            results.withLock { $0[index] = report }
        }
        // The first file alone first: the sub-plans most files of a suite share (a login) are then in
        // the library before the others start, instead of being read once per core. (Waiting for a file
        // another thread is checking could deadlock on a cycle between two suite files.)
        if !files.isEmpty { check(0) }
        DispatchQueue.concurrentPerform(iterations: max(0, files.count - 1)) { check($0 + 1) }
        var reports = results.withLock { $0 }.compactMap { $0 }
        for problem in suite.problems {
            let path = problem.file ?? "."
            reports.append(ValidationReport(path: path, source: nil, plan: nil, graph: nil, diagnostics: [problem]))
        }
        return reports.sorted { SuiteFiles.inOrder($0.path, $1.path) }
    }
}
