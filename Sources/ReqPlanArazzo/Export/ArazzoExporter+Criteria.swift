import ReqPlanSyntax

extension ArazzoExporter {
    /// `successCriteria` from `expect`: the status (none for `2xx`, the default of reqplan and of Arazzo
    /// runners), headers and body values matched by `matches` (a `regex` criterion) or `equals` a literal
    /// (a simple condition).
    mutating func successCriteria(_ expect: Expectation?) -> [ExportNode] {
        var criteria = statusCriteria(expect?.status?.map(\.value) ?? [.classOf(2)])
        guard let expect else { return criteria }
        for header in expect.headers ?? [] {
            let context = "$response.header." + header.name.value
            if let pattern = header.matcher.matches {
                criteria.append(Self.regex(pattern.value, context: context))
            } else if let equals = header.matcher.equals, case .string(let text)? = equals.literalValue {
                criteria.append(Self.regex("^" + Self.regexEscaped(text) + "$", context: context))
            } else {
                refuseMatcher(header.matcher, of: "header `\(header.name.value)`")
            }
        }
        for body in expect.body ?? [] {
            guard let pointer = Self.pointer(body.path.value) else {
                refuseMatcher(body.matcher, of: "body path `\(body.pathText)` (a wildcard)")
                continue
            }
            if let pattern = body.matcher.matches {
                criteria.append(Self.regex(pattern.value, context: "$response.body#" + pointer))
            } else if let equals = body.matcher.equals?.literalValue, let literal = Self.conditionLiteral(equals),
                !pointer.isEmpty
            {
                criteria.append(.map([("condition", .text("$response.body#\(pointer) == \(literal)"))]))
            } else {
                refuseMatcher(body.matcher, of: "body path `\(body.pathText)`")
            }
        }
        if let duration = expect.maxDuration {
            refuse(
                "`max_duration`", because: "Arazzo's criteria judge the response, not how long it took",
                at: duration.range)
        }
        for condition in expect.conditions {
            refuse(
                "an `expect` condition",
                because: "Arazzo's simple conditions compare a runtime expression with a literal",
                at: condition.written.range)
        }
        return criteria
    }

    /// The status criteria: none for `2xx` (every Arazzo runner's default, and reqplan's); one code
    /// `$statusCode == 201`; a class `$statusCode >= 400 && $statusCode < 500`; several joined by `||`.
    private func statusCriteria(_ statuses: [StatusPattern]) -> [ExportNode] {
        if statuses == [.classOf(2)] { return [] }
        let alternatives = statuses.map { status -> String in
            switch status {
            case .code(let code): "$statusCode == \(code)"
            case .classOf(let digit):
                statuses.count == 1
                    ? "$statusCode >= \(digit * 100) && $statusCode < \((digit + 1) * 100)"
                    : "($statusCode >= \(digit * 100) && $statusCode < \((digit + 1) * 100))"
            }
        }
        return [.map([("condition", .text(alternatives.joined(separator: " || ")))])]
    }

    private mutating func refuseMatcher(_ matcher: Matcher, of place: String) {
        refuse(
            "this matcher of the \(place)",
            because:
                "Arazzo's criteria compare a value with a literal (`equals` a number, a boolean, null or a string) or match it against a pattern (`matches`)",
            at: matcher.range)
    }

    static func regex(_ pattern: String, context: String) -> ExportNode {
        .map([("context", .text(context)), ("condition", .text(pattern)), ("type", .text("regex"))])
    }

    /// A literal as the right side of a simple condition: a number, `true`, `false`, `null`, or a string in
    /// single quotes that holds no quote, backslash or control character.
    static func conditionLiteral(_ value: Value) -> String? {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .largeInt, .list, .object: nil
        case .double(let number): number.isFinite ? "\(number)" : nil
        case .string(let text):
            text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F && $0 != "'" && $0 != "\\" }
                ? "'\(text)'" : nil
        }
    }

    /// `text` as a regular expression that matches it literally.
    static func regexEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "\\^$.|?*+()[]{}/".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
