import ReqPlanSyntax

extension ArazzoReader {
    /// The planner's hint in Arazzo's terms: a parameter is added to the step's `parameters`, an input is
    /// read as `$inputs.NAME`, an operation is named by its `operationId` alone, and a value that may be
    /// absent has no `if:` or `default(…)` to guard it.
    public func rephrase(_ diagnostic: Diagnostic) -> Diagnostic {
        guard let hint = diagnostic.hint else { return diagnostic }
        var rephrased = diagnostic
        switch diagnostic.code {
        case .pathParameter where hint.contains("; give `path: {"):
            let path = hint.prefix { $0 != ";" }
            rephrased.hint = path + "; add it to the step's `parameters` with `in: path`"
        case .unusedInput:
            if let name = hint.firstMatch(of: /\$\{\{ inputs\.([^ }]+) \}\}/)?.output.1 {
                rephrased.hint = "remove it from the workflow's `inputs`, or read it with `$inputs.\(name)`"
            }
        case .possiblyAbsent:
            rephrased.hint = "the request would go without it: check that the response gives it"
        case .unknownOperation:
            if let match = hint.firstMatch(of: /did you mean `[^`.]+\.([^`]+)`\?/) {
                rephrased.hint = "did you mean `\(match.output.1)`?"
            }
        default:
            break
        }
        return rephrased
    }
}
