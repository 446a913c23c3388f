import Foundation
import ReqPlanSyntax

/// The code action of RP0853 (a response value that may be absent, used where a value is required): wrap
/// the expression in `default(…)` with a fallback, `${{ steps.a.body.id }}` becoming
/// `${{ default(steps.a.body.id, '') }}`.
///
/// The fallback is an empty string, to be replaced by a value of the type wanted there (the diagnostic does
/// not say which); inside a single-quoted YAML string it is written `""`, where `''` would be a quote. The
/// fix travels in the diagnostic's `data` as `QuickFix`'s do (`replace`, `with`), with its own `title`, and
/// is offered only while the document still has the expression there.
enum DefaultFallbackFix {
    /// The `data` of an RP0853 diagnostic whose range holds one whole `${{ EXPR }}` (in quotes or not);
    /// `nil` for another code or another text (a template with text around it, several expressions).
    static func data(code: DiagnosticCode, replacing written: String) -> Value? {
        guard code == .possiblyAbsent else { return nil }
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
        return .object([
            .init("replace", .string(written)),
            .init("with", .string(quote + "${{ default(\(expression), \(fallback)) }}" + quote)),
            .init("title", .string("Wrap in `default(…)` with the fallback \(fallback)")),
        ])
    }
}
