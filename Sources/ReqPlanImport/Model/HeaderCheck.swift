import ReqPlanSyntax

/// What a plan cannot send, found before it is written: a header name that is not an HTTP token (RP0106
/// in the plan), a header or multipart value with a control character other than a tab (RP0517). Such a
/// header is left out, with a warning and a comment, rather than written into a plan that would not validate.
enum HeaderCheck {
    static func check(_ step: inout ImportedStep, diagnostics: inout [Diagnostic], file: String?) {
        var kept: [Pair] = []
        for header in step.headers {
            if let problem = problem(name: header.name, value: header.value) {
                var diagnostic = Diagnostic.warning(
                    .importOptionNotConverted,
                    "the header `\(header.name)` of step `\(step.id)` \(problem); left out", at: nil)
                diagnostic.file = file
                diagnostics.append(diagnostic)
                step.comments.append("not converted: the header `\(header.name)` \(problem)")
            } else {
                kept.append(header)
            }
        }
        step.headers = kept
        // A check of a response header whose name no header can have (a Hurl `header "}"`) reads nothing.
        step.expect.headers = step.expect.headers.filter { check in
            guard let problem = problem(name: check.name, value: PlanText("")) else { return true }
            var diagnostic = Diagnostic.warning(
                .importSettingNotConverted,
                "the check of the header `\(check.name)` of step `\(step.id)` \(problem); left out", at: nil)
            diagnostic.file = file
            diagnostics.append(diagnostic)
            step.comments.append("not converted: the check of the header `\(check.name)` \(problem)")
            return false
        }
        if case .multipart(let parts)? = step.body {
            let sendable = parts.filter { part in
                let texts = [part.name, part.contentType ?? "", part.filename ?? ""]
                guard texts.contains(where: { $0.unicodeScalars.contains(where: isControl) }) else { return true }
                var diagnostic = Diagnostic.warning(
                    .importOptionNotConverted,
                    "a multipart part of step `\(step.id)` has a control character in its name or type; left out",
                    at: nil)
                diagnostic.file = file
                diagnostics.append(diagnostic)
                step.comments.append("not converted: a multipart part with a control character in its name or type")
                return false
            }
            step.body = .multipart(sendable)
        }
    }

    /// Why a header line written as `text` (`Name: value`) cannot be sent, if it cannot.
    static func problem(in text: PlanText) -> String? {
        let literal = text.pieces.compactMap { piece -> String? in
            if case .literal(let part) = piece { return part }
            return nil
        }
        guard literal.contains(where: { $0.unicodeScalars.contains(where: isControl) }) else { return nil }
        return "has a control character, which cannot go in a header line"
    }

    static func problem(name: String, value: PlanText) -> String? {
        let token = "!#$%&'*+-.^_`|~"
        let isToken =
            !name.isEmpty
            && name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && ((scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z")
                        || (scalar >= "0" && scalar <= "9")
                        || token.unicodeScalars.contains(scalar))
            }
        if !isToken { return "is not a valid header name" }
        let literal = value.pieces.compactMap { piece -> String? in
            if case .literal(let text) = piece { return text }
            return nil
        }
        if literal.contains(where: { $0.unicodeScalars.contains(where: isControl) }) {
            return "has a control character in its value, which cannot go in a header line"
        }
        return nil
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\t" && (scalar.value < 0x20 || scalar.value == 0x7F)
    }
}
