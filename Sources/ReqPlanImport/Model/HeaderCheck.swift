import ReqPlanSyntax

/// What a plan cannot send, found before it is written: a header name that is not an HTTP token (RP0106
/// in the plan), a header or multipart value with a control character other than a tab (RP0517). Such a
/// header is left out, with a warning and a comment, rather than written into a plan that would not validate.
enum HeaderCheck {
    static func check(_ step: inout ImportedStep, diagnostics: inout [Diagnostic], file: String?) {
        let id = step.id
        var comments: [String] = []
        /// Says what is left out: a warning located in the source file, and a comment above the step.
        func leaveOut(_ code: DiagnosticCode, _ what: String, because problem: String) {
            var diagnostic = Diagnostic.warning(code, "\(what) of step `\(id)` \(problem); left out", at: nil)
            diagnostic.file = file
            diagnostics.append(diagnostic)
            comments.append("not converted: \(what) \(problem)")
        }
        let hasAuth = step.auth != nil
        step.headers = step.headers.filter { header in
            // A plan gives credentials once (RP0104): a Hurl `[BasicAuth]` beside an `Authorization` header.
            if hasAuth, header.name.lowercased() == "authorization" {
                leaveOut(
                    .importSettingNotConverted, "the header `\(header.name)`",
                    because: "is written as the request's `auth`, which a plan gives once")
                return false
            }
            guard let problem = problem(name: header.name, value: header.value) else { return true }
            leaveOut(.importOptionNotConverted, "the header `\(header.name)`", because: problem)
            return false
        }
        // A check of a response header whose name no header can have (a Hurl `header "}"`) reads nothing.
        step.expect.headers = step.expect.headers.filter { check in
            guard let problem = problem(name: check.name, value: PlanText("")) else { return true }
            leaveOut(.importSettingNotConverted, "the check of the header `\(check.name)`", because: problem)
            return false
        }
        // A name longer than a YAML key may be (`PlanWriter.maxKeyLength`: a fuzzed query name of 8 KB) cannot
        // be written as one.
        func tooLong(_ name: String) -> Bool { PlanWriter.isTooLongForAKey(name) }
        let because = "is longer than a plan's key may be (\(PlanWriter.maxKeyLength) characters as written)"
        /// `items` without those whose name is too long, each left out said.
        func keepingShortNames<Item>(
            _ items: [Item], _ code: DiagnosticCode, _ what: String, name: (Item) -> String
        ) -> [Item] {
            items.filter { item in
                guard tooLong(name(item)) else { return true }
                leaveOut(code, what, because: because)
                return false
            }
        }
        step.query = keepingShortNames(step.query, .importOptionNotConverted, "a query parameter") { $0.name }
        step.expect.body = keepingShortNames(step.expect.body, .importSettingNotConverted, "a check of the body") {
            $0.path
        }
        step.pathParameters = keepingShortNames(step.pathParameters, .importOptionNotConverted, "a path parameter") {
            $0.key
        }
        if case .form(let fields)? = step.body {
            step.body = .form(keepingShortNames(fields, .importOptionNotConverted, "a form field") { $0.name })
        }
        if case .multipart(let parts)? = step.body {
            step.body = .multipart(
                parts.filter { part in
                    if tooLong(part.name) {
                        leaveOut(.importOptionNotConverted, "a multipart part", because: because)
                        return false
                    }
                    let texts = [part.name, part.contentType ?? "", part.filename ?? ""]
                    guard texts.contains(where: { $0.unicodeScalars.contains(where: isControl) }) else { return true }
                    leaveOut(
                        .importOptionNotConverted, "a multipart part",
                        because: "has a control character in its name or type")
                    return false
                })
        }
        step.comments += comments
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
        if PlanWriter.isTooLongForAKey(name) { return "is longer than a plan's key may be" }
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
