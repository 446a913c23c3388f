import ReqPlanSyntax

/// A JSON payload written as text, with runtime expressions in `{$…}` (Arazzo's "JSON templated" request
/// body): read as the JSON value it is, so that the planner checks it against the operation's body schema as
/// it checks a payload written as YAML.
extension WorkflowTranslator {
    /// The value of JSON text `text` (written at `range`) whose `{$…}` are read in `place`: a JSON string that
    /// is one `{$…}` whole takes the expression's value (`"{$inputs.quantity}"` is a number when the input
    /// is), one with text around it the text with the value interpolated, and a `{$…}` outside a string the
    /// value; `nil` (reported) when the text is not JSON or an expression reads nothing here.
    mutating func jsonPayload(_ text: String, at range: SourceRange, in place: ExpressionPlace) -> ValueTemplate? {
        var expressions: [Expression?] = []
        var rewritten = ""
        var inString = false
        var escaped = false
        var rest = Substring(text)
        var (line, column) = (0, 0)
        while let character = rest.first {
            if !escaped, character == "{", rest.dropFirst().first == "$", let close = rest.firstIndex(of: "}") {
                let written = String(rest[rest.index(after: rest.startIndex)..<close])
                let token = Self.payloadToken(expressions.count)
                let at = placeInFile(line: line, column: column + 1, of: written, inPayloadAt: range)
                expressions.append(expression(written, at: at, in: place))
                rewritten += inString ? token : "\"" + token + "\""
                column += written.count + 2
                rest = rest[rest.index(after: close)...]
                continue
            }
            if character == "\n" {
                (line, column) = (line + 1, 0)
            } else {
                column += 1
            }
            if inString, escaped {
                escaped = false
            } else if inString, character == "\\" {
                escaped = true
            } else if character == "\"" {
                inString.toggle()
            }
            rewritten.append(character)
            rest = rest.dropFirst()
        }
        guard !expressions.contains(where: { $0 == nil }) else { return nil }
        let parsed: Value
        do {
            parsed = try Value.parseJSON(rewritten)
        } catch {
            diagnostics.error(
                .requestBodySchema, "the payload is JSON text that does not parse: \(error)", at: range,
                hint: "write it as YAML instead, or check its commas and quotes")
            return nil
        }
        return template(of: parsed, expressions: expressions.compactMap { $0 }, at: range)
    }

    /// Where the runtime expression `written`, at `line` and `column` (from 0) of a payload's text, is in the
    /// file: in a literal block scalar (`payload: |`) the place it has there; otherwise about there. Each
    /// expression keeps a range of its own, by which the planner knows it.
    func placeInFile(line: Int, column: Int, of written: String, inPayloadAt range: SourceRange) -> SourceRange {
        // A quoted or folded scalar: about where it is (after the opening quote on the first line).
        let fallback = SourceRange(
            start: SourceLocation(
                line: range.start.line + line, column: line == 0 ? range.start.column + 1 + column : column + 1),
            length: written.count)
        guard source.line(range.start.line).map({ $0.contains("|") }) == true else { return fallback }
        let contentLine = range.start.line + 1 + line
        guard
            let first = (range.start.line + 1...range.start.line + 1 + line).lazy
                .compactMap({ self.source.line($0) }).first(where: { !$0.allSatisfy(\.isWhitespace) }),
            let text = source.line(contentLine)
        else { return fallback }
        let indent = first.prefix { $0 == " " }.count
        let start = SourceLocation(line: contentLine, column: indent + column + 1)
        guard text.dropFirst(indent + column).hasPrefix(written) else { return fallback }
        return SourceRange(start: start, length: written.count)
    }

    /// The text that stands for the `index`-th `{$…}` while the JSON is parsed.
    static func payloadToken(_ index: Int) -> String { "@@reqplan\(index)@@" }

    private func template(of value: Value, expressions: [Expression], at range: SourceRange) -> ValueTemplate {
        switch value {
        case .string(let text) where text.contains("@@reqplan"):
            var parts: [Template.Part] = []
            var rest = Substring(text)
            while let start = rest.range(of: "@@reqplan"), let end = rest[start.upperBound...].range(of: "@@"),
                let index = Int(rest[start.upperBound..<end.lowerBound]), expressions.indices.contains(index)
            {
                if start.lowerBound > rest.startIndex { parts.append(.text(String(rest[..<start.lowerBound]))) }
                parts.append(.expression(expressions[index]))
                rest = rest[end.upperBound...]
            }
            if !rest.isEmpty { parts.append(.text(String(rest))) }
            // A value that is one expression is located where the expression is written.
            if parts.count == 1, case .expression(let expression) = parts[0] {
                return .template(Template(parts: parts, range: expression.range))
            }
            return .template(Template(parts: parts, range: range))
        case .list(let items):
            return .list(items.map { template(of: $0, expressions: expressions, at: range) }, range)
        case .object(let fields):
            return .object(
                fields.map {
                    ValueTemplate.Entry(
                        key: Located($0.key, at: range),
                        value: template(of: $0.value, expressions: expressions, at: range))
                }, range)
        default:
            return .literal(value, range)
        }
    }
}
