import ReqPlanSyntax

/// Hurl's `[Captures]` as data flow and `[Asserts]` as `expect:`.
extension HurlReader {
    /// A capture of a response path: later `{{name}}` reads it from the step; anything else is warned of.
    mutating func capture(_ name: String, _ query: String, step: Int, at number: Int) {
        let tokens = Self.tokens(query)
        guard let path = Self.resultPath(tokens), tokens.count == Self.queryLength(tokens) else {
            warning(
                .importSettingNotConverted,
                "the capture `\(name): \(query.prefix(80))` is not converted; later `{{\(name)}}` is an input",
                at: place(number), hint: "a capture of `jsonpath \"$.a.b\"`, `header`, `cookie`, `status` or `body` is")
            plan.steps[step].comments.append("not converted: the capture `\(name): \(query)`")
            return
        }
        variables.capture(name, step: step, path: path)
    }

    /// An assert as a check of `expect:`, or a warning and a comment.
    mutating func assert(_ line: String, into step: inout ImportedStep, at number: Int) {
        let tokens = Self.tokens(line)
        let queryLength = Self.queryLength(tokens)
        var rest = Array(tokens.dropFirst(queryLength))
        var count = false
        if rest.first == "count" {
            count = true
            rest.removeFirst()
        }
        let negated = rest.first == "not"
        if negated { rest.removeFirst() }
        var added = false
        if let path = Self.resultPath(Array(tokens.prefix(queryLength))), let predicate = rest.first,
            let matcher = matcher(predicate, Array(rest.dropFirst()), negated: negated, count: count)
        {
            added = step.expect.add(matcher, atResult: path)
        }
        if !added {
            warning(
                .importSettingNotConverted, "the assert `\(line.prefix(80))` has no matcher in a plan; not converted",
                at: place(number),
                hint:
                    "`expect:` checks a status, a header or a JSON path with equals, exists, matches, type, contains and length (grammar.md §8.1)"
            )
            step.comments.append("not converted: the assert `\(line)`")
        }
    }

    private mutating func matcher(_ predicate: String, _ operands: [String], negated: Bool, count: Bool)
        -> ImportedMatcher?
    {
        var operand: PlanValue?
        if let first = operands.first { operand = literal(first) }
        if count {
            guard predicate == "==", !negated, case .number? = operand, let operand else { return nil }
            return .checks([PlanValue.Member("length", operand)])
        }
        if negated {
            return predicate == "exists" ? .checks([PlanValue.Member("exists", .bool(false))]) : nil
        }
        switch predicate {
        case "==":
            guard let operand else { return nil }
            return .equals(operand)
        case "exists": return .checks([PlanValue.Member("exists", .bool(true))])
        case "contains", "includes":
            guard let operand else { return nil }
            return .checks([PlanValue.Member("contains", operand)])
        case "matches":
            guard let pattern = operands.first.map(Self.unquoted) else { return nil }
            return .checks([PlanValue.Member("matches", .text(PlanText(pattern)))])
        case "startsWith", "endsWith":
            guard case .text(let text)? = operand, let literal = text.literal else { return nil }
            let escaped = NSRegularExpressionEscape.escape(literal)
            return .checks([
                PlanValue.Member("matches", .text(PlanText(predicate == "startsWith" ? "^" + escaped : escaped + "$")))
            ])
        case "isString", "isBoolean", "isNumber":
            let types = ["isString": "string", "isBoolean": "boolean", "isNumber": "number"]
            return .checks([PlanValue.Member("type", .text(PlanText(types[predicate] ?? "string")))])
        default: return nil
        }
    }

    /// An operand: `"text"` (with `{{var}}`), a number, `true`, `false`, `null`, or `{{var}}` alone.
    private mutating func literal(_ token: String) -> PlanValue {
        if token.hasPrefix("\"") { return .text(text(Self.unquoted(token), secret: false)) }
        switch token {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default:
            if let number = try? Value.parseJSON(token), number.doubleValue != nil { return PlanValue(number) }
            return .text(text(token, secret: false))
        }
    }

    // MARK: - Queries

    /// How many tokens the query takes: `status`, `body`, or a query and its quoted argument.
    static func queryLength(_ tokens: [String]) -> Int {
        ["jsonpath", "header", "cookie", "xpath", "regex", "variable", "certificate"].contains(tokens.first ?? "")
            ? min(2, tokens.count) : min(1, tokens.count)
    }

    /// The result path of a query (`body.a[0]`, `headers.location`, `cookies.sid`, `status`, `body`), if it is one.
    static func resultPath(_ tokens: [String]) -> String? {
        switch tokens.first {
        case "status"?: return "status"
        case "body"?: return "body"
        case "header"? where tokens.count > 1:
            let name = unquoted(tokens[1]).lowercased()
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                return nil
            }
            return "headers.\(name)"
        case "cookie"? where tokens.count > 1:
            let name = unquoted(tokens[1])
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                return nil
            }
            return "cookies.\(name)"
        case "jsonpath"? where tokens.count > 1:
            let query = unquoted(tokens[1])
            guard query.hasPrefix("$"), query.count <= 200 else { return nil }
            // `$.[0]` is `$[0]` in JSONPath.
            let path = query.dropFirst().replacingOccurrences(of: ".[", with: "[")
            // Members (`.name`), indexes (`[0]`, `[-1]`) and quoted keys (`['a-b']`), as a plan's body paths
            // are written (grammar.md §8.1); anything else (`[]`, `.0`, a filter) is not converted.
            guard path.wholeMatch(of: /(\.[A-Za-z_][A-Za-z0-9_-]*|\[-?[0-9]+\]|\['[^'\\]*'\])*/) != nil
            else { return nil }
            return "body" + path
        default: return nil
        }
    }

    /// The words of a capture or assert: `"…"` strings (escapes kept) and `/…/` patterns whole.
    static func tokens(_ line: String) -> [String] {
        QuotedWords(quotesAtStart: ["/"]).split(line)
    }

    /// `"a\"b"` as `a"b`, `/x/` as `x`; other text as it is.
    static func unquoted(_ token: String) -> String {
        guard token.count >= 2, let first = token.first, first == "\"" || first == "/", token.last == first else {
            return token
        }
        var output = ""
        var escaped = false
        for character in token.dropFirst().dropLast() {
            if escaped {
                output.append(first == "/" && character != "/" ? "\\" : "")
                output.append(character == "n" && first == "\"" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                output.append(character)
            }
        }
        return output
    }
}
