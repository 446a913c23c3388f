import ReqPlanSyntax

extension PlanText {
    /// The text as a template of the language: literal `${{` written `${{ '${{' }}`, references in `${{ }}`.
    var templateText: String {
        var output = ""
        var literal = ""
        func flush() {
            output += literal.replacingOccurrences(of: "${{", with: "${{ '${{' }}")
            literal = ""
        }
        for piece in pieces {
            switch piece {
            case .literal(let text): literal += text
            case .reference(let reference):
                flush()
                output += "${{ \(reference.expression) }}"
            }
        }
        flush()
        return output
    }
}
