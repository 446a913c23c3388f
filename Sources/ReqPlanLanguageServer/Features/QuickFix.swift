import ReqPlanSyntax

/// Code actions for diagnostics whose hint names the fix (`did you mean `login`?`): replace the misspelt
/// name with the suggestion (`textDocument/codeAction`, kind `quickfix`).
///
/// The diagnostic carries the fix in its `data` (`{"replace": "logn", "with": "login"}`), which LSP clients
/// send back unchanged; a fix is offered only where the document still has the misspelt name at the
/// diagnostic's range, so an action never edits text that changed since. A fix with a `title` of its own
/// (RP0853's `default(…)`, `DefaultFallbackFix`) is offered the same way, and not as the preferred action:
/// its fallback is for the user to choose. A diagnostic's own fix (`Diagnostic.fix`, the specification's form
/// of another runner's shorthand) has its title and is preferred (`"preferred": true`): it is the one change.
public enum QuickFix {
    /// The `data` of a diagnostic with a fix of its own, whose range holds `original`: its replacement, its
    /// title, preferred.
    static func data(fix: Diagnostic.Fix?, replacing original: String) -> Value? {
        guard let fix, fix.replacement != original else { return nil }
        return .object([
            .init("replace", .string(original)), .init("with", .string(fix.replacement)),
            .init("title", .string(fix.title)), .init("preferred", .bool(true)),
        ])
    }

    /// The `data` of a diagnostic whose hint is a did-you-mean and whose range holds one name (`logn`, not
    /// `steps.logn` nor text with spaces): what to replace, and with what.
    static func data(hint: String?, replacing original: String) -> Value? {
        guard let hint, hint.hasPrefix("did you mean `"), hint.hasSuffix("`?") else { return nil }
        let suggestion = String(hint.dropFirst("did you mean `".count).dropLast(2))
        guard isName(suggestion), isName(original), suggestion != original else { return nil }
        return .object([.init("replace", .string(original)), .init("with", .string(suggestion))])
    }

    /// The quick fixes for the `diagnostics` a client sends with a code action request, in `document`.
    public static func actions(for diagnostics: [Value], in document: TextDocument) -> [Value] {
        diagnostics.compactMap { diagnostic in
            guard diagnostic["source"] == .string("reqplan"), let range = TextRange(diagnostic["range"]),
                case .string(let original)? = diagnostic["data"]?["replace"],
                case .string(let suggestion)? = diagnostic["data"]?["with"],
                range.start.line == range.end.line,
                String(document.text[document.text.index(of: range.start)..<document.text.index(of: range.end)])
                    == original
            else { return nil }
            let edit: Value = .object([.init("range", range.value), .init("newText", .string(suggestion))])
            var title = "Replace `\(original)` with `\(suggestion)`"
            if case .string(let own)? = diagnostic["data"]?["title"] { title = own }
            return .object([
                .init("title", .string(title)),
                .init("kind", .string("quickfix")),
                .init("diagnostics", .list([diagnostic])),
                .init("isPreferred", .bool(isPreferred(diagnostic["data"]))),
                .init(
                    "edit",
                    .object([.init("changes", .object([.init(document.uri.text, .list([edit]))]))])),
            ])
        }
    }

    /// Whether a fix is the preferred action: one that says so, or a did-you-mean (no title of its own).
    private static func isPreferred(_ data: Value?) -> Bool {
        if case .bool(let preferred)? = data?["preferred"] { return preferred }
        return data?["title"] == nil
    }

    /// Whether `text` is one name: letters, digits, `_` and `-` (step ids, keys, inputs, fields).
    private static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy(CompletionContext.isNameCharacter)
    }
}
