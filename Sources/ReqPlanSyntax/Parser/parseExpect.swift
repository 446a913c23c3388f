import Foundation

extension PlanReader {
    static let expectKeys = ["status", "headers", "body", "max_duration"]
    static let matcherKeys = ["equals", "exists", "matches", "type", "contains", "length"]

    /// `expect:` — status, headers, body, max_duration.
    mutating func readExpect(_ node: YAMLNode, _ what: String) -> Expectation? {
        guard let fields = mapping(node, what) else { return nil }
        checkKeys(fields, allowed: PlanReader.expectKeys, in: what)
        var status: [Located<StatusPattern>]?
        if let statusNode = fields.value("status") {
            let nodes: [YAMLNode] =
                if case .sequence = statusNode { sequence(statusNode, "`status`") ?? [] } else { [statusNode] }
            status = nodes.compactMap { readStatus($0) }
            if case .sequence = statusNode, nodes.isEmpty {
                diagnostics.error(.invalidStatus, "`status` lists no status", at: range(statusNode))
            }
        }
        var headers: [HeaderExpectation]?
        if let headersNode = fields.value("headers"), let entries = mapping(headersNode, "`headers` of \(what)") {
            headers = entries.entries.compactMap { name, value in
                guard checkHeaderName(name) else { return nil }
                return readMatcher(value, "header `\(name.value)`").map { HeaderExpectation(name: name, matcher: $0) }
            }
        }
        var body: [BodyExpectation]?
        if let bodyNode = fields.value("body"), let entries = mapping(bodyNode, "`body` of \(what)") {
            body = entries.entries.compactMap { key, value in
                guard let path = readBodyPath(key) else { return nil }
                return readMatcher(value, "body `\(key.value)`").map {
                    BodyExpectation(path: path, pathText: key.value, matcher: $0)
                }
            }
        }
        return Expectation(
            status: status, headers: headers, body: body,
            maxDuration: fields.value("max_duration").flatMap { duration($0, "`max_duration`") },
            range: fields.range)
    }

    private mutating func readStatus(_ node: YAMLNode) -> Located<StatusPattern>? {
        guard let text = text(node, "`status`") else { return nil }
        guard let pattern = StatusPattern.parse(text.value) else {
            diagnostics.error(
                .invalidStatus, "invalid status `\(text.value)`", at: text.range,
                hint: "a status is a code from 100 to 599 or a class from `1xx` to `5xx`")
            return nil
        }
        return Located(pattern, at: text.range)
    }

    /// A matcher: a plain value (equals) or a mapping of `equals`, `exists`, `matches`, `type`, `contains`, `length`.
    private mutating func readMatcher(_ node: YAMLNode, _ what: String) -> Matcher? {
        guard case .mapping = node else {
            guard let value = valueTemplate(node, what) else { return nil }
            return Matcher(equals: value, range: value.range)
        }
        guard let fields = mapping(node, what) else { return nil }
        var valid = true
        for entry in fields.entries where !PlanReader.matcherKeys.contains(entry.key.value) {
            valid = false
            let suggestion = Suggestion.replacement(for: entry.key.value, in: PlanReader.matcherKeys)
            let hint =
                suggestion?.hint
                ?? "matcher keys are " + PlanReader.matcherKeys.map { "`\($0)`" }.joined(separator: ", ")
                + "; to compare with a mapping write `equals: { … }`"
            diagnostics.error(
                .unknownKey, "unknown matcher `\(entry.key.value)` for \(what)", at: entry.key.range,
                hint: hint, fix: suggestion?.fix)
        }
        if fields.entries.isEmpty {
            diagnostics.error(
                .missingKey, "the matcher for \(what) is empty", at: fields.range,
                hint: "use `equals: {}` to expect an empty object")
            return nil
        }
        var matcher = Matcher(range: fields.range)
        matcher.equals = fields.value("equals").flatMap { valueTemplate($0, "`equals`") }
        matcher.exists = fields.value("exists").flatMap { bool($0, "`exists`") }
        matcher.type = fields.value("type").flatMap { choice($0, "`type`", ValueType.self) }
        matcher.contains = fields.value("contains").flatMap { valueTemplate($0, "`contains`") }
        matcher.length = fields.value("length").flatMap { integer($0, "`length`", in: 0...Int.max) }
        if let patternNode = fields.value("matches"), let pattern = string(patternNode, "`matches`") {
            do {
                _ = try RegularExpression.compile(pattern.value)
                matcher.matches = pattern
            } catch {
                diagnostics.error(
                    .invalidRegex, "invalid regular expression `\(pattern.value)`: \(error.reason)",
                    at: pattern.range, hint: "check brackets, parentheses and escapes (`\\\\.` for a literal dot)")
            }
        }
        return valid ? matcher : nil
    }

    /// A JSON path key of `expect.body`: `$`, `token`, `data.items[0].id`, `['x-y']`.
    private mutating func readBodyPath(_ key: Located<String>) -> Located<[PathComponent]>? {
        var text = key.value
        var offset = key.range.start.column
        if let first = source.line(key.range.start.line)?.unicodeScalars.dropFirst(key.range.start.column - 1).first,
            first == "\"" || first == "'"
        {
            offset += 1
        }
        if text.hasPrefix("$") {
            text.removeFirst()
            offset += 1
            if text.hasPrefix(".") {
                text.removeFirst()
                offset += 1
            }
        }
        if text.isEmpty { return Located([], at: key.range) }
        let base = SourceLocation(line: key.range.start.line, column: offset)
        let scalars = Array(text.unicodeScalars)
        var lexer = ExpressionLexer(scalars: scalars, start: 0)
        var components: [PathComponent] = []
        func fail(_ message: String, at position: Int) -> Located<[PathComponent]>? {
            diagnostics.error(
                .malformedExpression, message, at: SourceRange(start: base.advanced(by: position), length: 1),
                hint: "body paths look like `token`, `data.items[0].id`, `['x-y']` or `$` for the whole body")
            return nil
        }
        do {
            var token = try lexer.next()
            var expectName = true
            while token.kind != .end {
                switch token.kind {
                case .name(let name) where expectName:
                    components.append(.member(name))
                    expectName = false
                case .symbol(".") where !expectName:
                    expectName = true
                case .symbol("[") where !expectName || components.isEmpty:
                    let inner = try lexer.next()
                    switch inner.kind {
                    case .integer(let index): components.append(.index(index))
                    case .string(let name): components.append(.member(name))
                    case .symbol("*"): components.append(.wildcard)
                    default: return fail("expected an index, a quoted key or `*` inside `[ ]`", at: inner.start)
                    }
                    let close = try lexer.next()
                    guard close.kind == .symbol("]") else { return fail("expected `]`", at: close.start) }
                    expectName = false
                default:
                    return fail("unexpected text in body path `\(key.value)`", at: token.start)
                }
                token = try lexer.next()
            }
            if expectName { return fail("body path `\(key.value)` ends with `.`", at: scalars.count) }
        } catch {
            return fail(error.message, at: error.start)
        }
        return Located(components, at: key.range)
    }
}
