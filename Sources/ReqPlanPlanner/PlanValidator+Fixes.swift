import ReqPlanSyntax

extension PlanValidator {
    /// Each did-you-mean given as a hint alone, with its fix: where a diagnostic has no fix, its hint is
    /// exactly `Suggestion.didYouMean`'s (one candidate), and its range holds one plain name on one line, the
    /// fix replaces that name with the candidate (`Suggestion.fix(replacing:with:)`).
    ///
    /// A bridge, for the diagnostics whose producers give the hint but not yet the fix
    /// (`Suggestion.replacement(for:in:)`): the YAML reader's unknown keys and options (`ReqPlanSyntax/Parser`)
    /// and the Arazzo parser's and reader's names. One place reads the hint back, so that every consumer (the
    /// language server, `validate --format json`, `reqplan fix`) reads the fix alone; it goes once those
    /// producers give their fixes.
    static func suggestedFixes(_ diagnostics: [Diagnostic], path: String, sources: [SourceFile]) -> [Diagnostic] {
        let prefix = "did you mean `"
        let suffix = "`?"
        var texts: [String: SourceFile]?
        return diagnostics.map { diagnostic in
            guard diagnostic.fix == nil, let hint = diagnostic.hint, hint.hasPrefix(prefix), hint.hasSuffix(suffix),
                hint.count > prefix.count + suffix.count, let range = diagnostic.range
            else { return diagnostic }
            let candidate = String(hint.dropFirst(prefix.count).dropLast(suffix.count))
            if texts == nil {
                texts = Dictionary(sources.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
            }
            guard let written = texts?[diagnostic.file ?? path]?.text(onOneLine: range) else { return diagnostic }
            var fixed = diagnostic
            fixed.fix = Suggestion.fix(replacing: written, with: candidate)
            return fixed
        }
    }
}
