import ReqPlanSyntax

/// Everything `reqplan validate` learns about one plan file.
public struct ValidationReport: Sendable {
    /// The path shown in diagnostics.
    public var path: String
    /// The text, when it could be read.
    public var source: SourceFile?
    /// The AST, when the file is a plan.
    public var plan: Plan?
    /// The DAG, when the plan has no errors (nor any sub-plan it includes).
    public var graph: PlanGraph?
    /// Every diagnostic from every stage, of the plan and of the sub-plans it includes, ordered by position.
    public var diagnostics: [Diagnostic]
    /// The text of the plan and of every file it includes, for rendering diagnostics.
    public var sources: [SourceFile] = []
    /// The display paths of the plan files it includes as sub-plans, directly or not.
    public var includedFiles: [String] = []
    /// The API descriptions the plan binds (`openapi:`) that could be read, by entry name (read in outline
    /// mostly: each operation's id, method, path and summary; see `APIDescription.details`).
    public var apis: [String: APIDescription] = [:]
    /// The operation of each of the plan's own request steps that is bound to one, by step id, read in full
    /// (parameters, responses and the schemas they refer to); there even when the plan has errors.
    public var operations: [String: BoundOperation] = [:]
    /// How many of the plan's steps' API checks were kept from the check before and how many were done again,
    /// when the library has an `APICheckCache` and the plan binds an API description.
    public var apiStepChecks: APICheckCache.StepChecks?

    /// Errors found.
    public var errorCount: Int { diagnostics.count { $0.severity == .error } }
    /// Warnings found.
    public var warningCount: Int { diagnostics.count { $0.severity == .warning } }

    /// Whether the plan passes: no errors, and with `strict` no warnings either.
    public func isValid(strict: Bool) -> Bool {
        errorCount == 0 && (!strict || warningCount == 0)
    }
}

/// Runs the static pipeline on a plan: YAML → AST → DAG, sub-plans included, collecting every diagnostic.
public enum PlanValidator {
    /// Validates the plan file at `path`, and the files it names (sub-plans, `body_file`, multipart `file`).
    /// - Parameters:
    ///   - path: the file to read.
    ///   - displayPath: the path shown in diagnostics and the summary (default: `path`).
    ///   - limits: size and alias-expansion limits.
    ///   - allowFilesOutside: let the files it names be outside its folder (`--allow-files-outside`).
    ///   - library: where checked files are kept; share one across the files of one command, so a
    ///     sub-plan they all include is read and checked once.
    public static func validate(
        fileAt path: String, displayPath: String? = nil, limits: ParseLimits = ParseLimits(),
        allowFilesOutside: Bool = false, library: PlanLibrary = PlanLibrary()
    ) -> ValidationReport {
        let boundary = FileBoundary(
            planFile: path, allowOutside: allowFilesOutside, outsideSetting: limits.outsideSetting)
        return report(
            library.check(
                fileAt: path, displayPath: displayPath ?? path, limits: limits,
                boundary: boundary))
    }

    /// Validates plan text (its sub-plans are read relative to the folder of `source.path`; the other
    /// files it names are not checked, as there is no plan file to find them from).
    public static func validate(
        _ source: SourceFile, limits: ParseLimits = ParseLimits(),
        library: PlanLibrary = PlanLibrary()
    ) -> ValidationReport {
        report(library.check(source, limits: limits))
    }

    private static func report(_ checked: CheckedPlan) -> ValidationReport {
        ValidationReport(
            path: checked.path, source: checked.source, plan: checked.plan, graph: checked.graph,
            diagnostics: deduplicated(checked.diagnostics)
                .sortedBySource(),
            sources: checked.sources,
            includedFiles: checked.includedFiles, apis: checked.apis, operations: checked.operations,
            apiStepChecks: checked.apiStepChecks)
    }

    /// Drops exact repeats (the same problem reached twice through merge keys or aliases).
    private static func deduplicated(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        var seen: Set<Diagnostic> = []
        return diagnostics.filter { seen.insert($0).inserted }
    }
}
