import ReqPlanSyntax

/// Code actions for diagnostics that carry a fix (`Diagnostic.fix`): a misspelt name replaced by its one
/// candidate, another runner's shorthand in the specification's form, RP0853's value wrapped in `default(…)`
/// (`textDocument/codeAction`, kind `quickfix`). Every fix is the validator's data; none is read from a hint.
///
/// The diagnostic carries the fix in its `data` (`{"replace": "logn", "with": "login"}`), which LSP clients
/// send back unchanged; a fix is offered only where the document still has the replaced text at the
/// diagnostic's range, so an action never edits text that changed since. `data` has the fix's `title` when it
/// is not the plain "Replace `logn` with `login`", and `"preferred": false` when the fix is not safe
/// (`Diagnostic.Fix.isSafe`: RP0853's fallback is for the user to choose); a safe fix is the preferred action.
public enum QuickFix {
    /// The `data` of a diagnostic with a fix, whose range holds `original`: what to replace, with what, the
    /// fix's title unless it is the plain one, and whether it is preferred unless it is; `nil` when the fix
    /// was made for other text (`Diagnostic.Fix.applies(to:)`).
    static func data(fix: Diagnostic.Fix?, replacing original: String) -> Value? {
        guard let fix, fix.applies(to: original) else { return nil }
        var fields: [Value.Field] = [.init("replace", .string(original)), .init("with", .string(fix.replacement))]
        if fix.title != plainTitle(original, fix.replacement) { fields.append(.init("title", .string(fix.title))) }
        if !fix.isSafe { fields.append(.init("preferred", .bool(false))) }
        return .object(fields)
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
            var title = plainTitle(original, suggestion)
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

    /// Whether a fix is the preferred action: unless it says otherwise, as a fix that is not safe does.
    private static func isPreferred(_ data: Value?) -> Bool {
        if case .bool(let preferred)? = data?["preferred"] { return preferred }
        return true
    }

    /// "Replace `logn` with `login`".
    private static func plainTitle(_ original: String, _ replacement: String) -> String {
        "Replace `\(original)` with `\(replacement)`"
    }
}
