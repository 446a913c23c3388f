import ReqPlanSyntax

extension ArazzoReader {
    /// The planner's hint in Arazzo's terms: a parameter is added to the step's `parameters`, an input is
    /// read as `$inputs.NAME`, an operation is named by its `operationId` alone, and a value that may be
    /// absent has no `if:` or `default(…)` to guard it (nor the fix that writes one).
    public func rephrase(_ diagnostic: Diagnostic) -> Diagnostic {
        guard let hint = diagnostic.hint else { return diagnostic }
        var rephrased = diagnostic
        switch diagnostic.code {
        case .pathParameter where hint.contains("; give `path: {"):
            let path = hint.prefix { $0 != ";" }
            rephrased.hint = path + "; add it to the step's `parameters` with `in: path`"
        // Read with string searches, not regular expressions: a literal regex is compiled at each call, which
        // was a third of the time of validating a 10,000-step workflow with an error at each step.
        case .unusedInput:
            if let name = Self.text(in: hint, after: "${{ inputs.", before: " }}") {
                rephrased.hint = "remove it from the workflow's `inputs`, or read it with `$inputs.\(name)`"
            }
        case .possiblyAbsent:
            rephrased.hint = "the request would go without it: check that the response gives it"
            // No `default(…)` to wrap the value in.
            rephrased.fix = nil
        case .unknownOperation:
            if let name = Self.text(in: hint, after: "did you mean `", before: "`?"),
                let dot = name.firstIndex(of: "."),
                !name[..<dot].isEmpty, name.index(after: dot) < name.endIndex
            {
                let candidate = String(name[name.index(after: dot)...])
                rephrased.hint = "did you mean `\(candidate)`?"
                // The step names the operation by its id alone, which is what its range holds.
                rephrased.fix = Self.text(in: diagnostic.message, after: "has no operation `", before: "`").flatMap {
                    Suggestion.fix(replacing: String($0), with: candidate)
                }
            }
        default:
            break
        }
        return rephrased
    }

    /// The text between the first `start` in `text` and the next `end` after it, when it is not empty.
    static func text(in text: String, after start: String, before end: String) -> Substring? {
        guard let open = text.range(of: start), let close = text.range(of: end, range: open.upperBound..<text.endIndex),
            open.upperBound < close.lowerBound
        else { return nil }
        return text[open.upperBound..<close.lowerBound]
    }
}
