import Foundation
import ReqPlanSyntax

extension Diagnostic.Fix {
    /// The fix of RP0853 (a response value that may be absent, used where a value is required): wrap the
    /// expression in `default(…)` with a fallback, `${{ steps.a.body.id }}` becoming
    /// `${{ default(steps.a.body.id, '') }}`.
    ///
    /// The fallback is an empty string, to be replaced by a value of the type wanted there (the diagnostic does
    /// not say which), so the fix is not safe (`isSafe` is `false`): an editor offers it, `reqplan fix` leaves
    /// it. Inside a single-quoted YAML string the fallback is written `""`, where `''` would be a quote.
    /// - Parameter written: the text of the diagnostic's range, quotes included.
    /// - Returns: the fix, when `written` is one whole `${{ EXPR }}` (in quotes or not); `nil` for another text
    ///   (a template with text around it, several expressions).
    static func defaultFallback(replacing written: String) -> Diagnostic.Fix? {
        var quote = ""
        var template = Substring(written)
        if let first = template.first, first == "\"" || first == "'", template.count >= 2, template.last == first {
            quote = String(first)
            template = template.dropFirst().dropLast()
        }
        guard template.hasPrefix("${{"), template.hasSuffix("}}") else { return nil }
        let expression = template.dropFirst(3).dropLast(2).trimmingCharacters(in: .whitespaces)
        guard !expression.isEmpty, !expression.contains("${{"), !expression.contains("}}") else { return nil }
        let fallback = quote == "'" ? "\"\"" : "''"
        return Diagnostic.Fix(
            title: "Wrap in `default(…)` with the fallback \(fallback)",
            replacement: quote + "${{ default(\(expression), \(fallback)) }}" + quote, isSafe: false, original: written)
    }
}
