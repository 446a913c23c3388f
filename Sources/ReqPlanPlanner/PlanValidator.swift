import ReqPlanSyntax

/// Everything `reqplan validate` learns about one plan file.
public struct ValidationReport: Sendable {
    /// The path shown in diagnostics.
    public var path: String
    /// The text, when it could be read.
    public var source: SourceFile?
    /// The AST, when the file is a plan.
    public var plan: Plan?
    /// The DAG, when the plan has no errors.
    public var graph: PlanGraph?
    /// Every diagnostic from every stage, ordered by position.
    public var diagnostics: [Diagnostic]

    /// Errors found.
    public var errorCount: Int { diagnostics.count { $0.severity == .error } }
    /// Warnings found.
    public var warningCount: Int { diagnostics.count { $0.severity == .warning } }

    /// Whether the plan passes: no errors, and with `strict` no warnings either.
    public func isValid(strict: Bool) -> Bool {
        errorCount == 0 && (!strict || warningCount == 0)
    }
}

/// Runs the static pipeline on a plan: YAML → AST → DAG, collecting every diagnostic.
public enum PlanValidator {
    /// Validates the plan file at `path`.
    /// - Parameters:
    ///   - path: the file to read.
    ///   - displayPath: the path shown in diagnostics and the summary (default: `path`).
    ///   - limits: size and alias-expansion limits.
    public static func validate(
        fileAt path: String, displayPath: String? = nil, limits: ParseLimits = ParseLimits()
    ) -> ValidationReport {
        let shown = displayPath ?? path
        return report(PlanParser.parseFile(atPath: path, displayPath: shown, limits: limits), path: shown)
    }

    /// Validates plan text.
    public static func validate(_ source: SourceFile, limits: ParseLimits = ParseLimits()) -> ValidationReport {
        report(PlanParser.parse(source, limits: limits), path: source.path)
    }

    private static func report(_ parsed: ParseResult, path: String) -> ValidationReport {
        var diagnostics = parsed.diagnostics
        var graph: PlanGraph?
        if let plan = parsed.plan {
            let planned = Planner.plan(plan)
            diagnostics += planned.diagnostics
            if !parsed.hasErrors { graph = planned.graph }
        }
        return ValidationReport(path: path, source: parsed.source, plan: parsed.plan, graph: graph,
                                diagnostics: deduplicated(diagnostics).sortedBySource())
    }

    /// Drops exact repeats (the same problem reached twice through merge keys or aliases).
    private static func deduplicated(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        var seen: Set<Diagnostic> = []
        return diagnostics.filter { seen.insert($0).inserted }
    }
}
