/// A string that may hold `${{ }}` expressions.
///
/// A template that is exactly one `${{ }}` keeps the type of its value (a list
/// stays a list); any other template interpolates into a string.
public struct Template: Sendable, Hashable {
    /// A piece of a template.
    public enum Part: Sendable, Hashable {
        /// Literal text.
        case text(String)
        /// An embedded `${{ }}`.
        case expression(Expression)
    }

    /// The pieces in order.
    public var parts: [Part]
    /// The scalar the template was written as.
    public var range: SourceRange

    /// Whether `text` holds a `${{`, the opening of an expression, found over its UTF-8 bytes as the parser
    /// reads it scalar by scalar (Foundation's `contains` made a CFString search of every scalar read).
    public static func opensExpression(_ text: some StringProtocol) -> Bool {
        var beforePrevious: UInt8 = 0
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "{"), previous == UInt8(ascii: "{"), beforePrevious == UInt8(ascii: "$") {
                return true
            }
            beforePrevious = previous
            previous = byte
        }
        return false
    }

    /// Creates a template.
    public init(parts: [Part], range: SourceRange) {
        self.parts = parts
        self.range = range
    }

    /// The expression, when the template is exactly one `${{ }}` and nothing else.
    public var singleExpression: Expression? {
        guard parts.count == 1, case .expression(let expression) = parts[0] else { return nil }
        return expression
    }

    /// The text, when the template holds no expression.
    public var literalText: String? {
        var text = ""
        for part in parts {
            guard case .text(let piece) = part else { return nil }
            text += piece
        }
        return text
    }

    /// The embedded expressions, in order.
    public var expressions: [Expression] {
        parts.compactMap {
            if case .expression(let expression) = $0 { return expression }
            return nil
        }
    }
}

/// Reads templates and bare expressions out of YAML scalars, mapping every
/// offset of the scalar's value back to its line and column in the file.
public struct TemplateParser: Sendable {
    /// The file the scalars come from.
    public let source: SourceFile

    /// Creates a parser for scalars of `source`.
    public init(source: SourceFile) {
        self.source = source
    }

    /// Parses `text`, the value of a scalar whose token starts at `start`.
    /// - Returns: the template, or the diagnostic for its first syntax error.
    public func template(_ text: String, at start: SourceRange) -> Result<Template, Diagnostic> {
        guard Template.opensExpression(text) else {
            return .success(Template(parts: [.text(text)], range: start))
        }
        let scalars = Array(text.unicodeScalars)
        let locate = locator(for: scalars, scalarStart: start.start)
        var parts: [Template.Part] = []
        var literal = ""
        var index = 0
        while index < scalars.count {
            if scalars[index] == "$", index + 2 < scalars.count, scalars[index + 1] == "{", scalars[index + 2] == "{" {
                if !literal.isEmpty {
                    parts.append(.text(literal))
                    literal = ""
                }
                do {
                    var parser = try ExpressionParser(
                        scalars: scalars, start: index + 3, closedByBraces: true,
                        locate: locate)
                    let (expression, end) = try parser.parseComplete()
                    parts.append(.expression(expression))
                    index = end
                } catch {
                    var error = error
                    if !error.message.contains("`}}`"), !TemplateParser.hasClosingBraces(scalars, from: index + 3) {
                        // Without `}}` the text after the expression is read as part of it; say what is missing.
                        error = ExpressionSyntaxError(
                            message: "expected `}}` to close the expression",
                            start: error.start, end: error.end,
                            hint: "close the expression with `}}`")
                    }
                    return .failure(diagnostic(error, locate: locate, opening: index))
                }
                continue
            }
            literal.unicodeScalars.append(scalars[index])
            index += 1
        }
        if !literal.isEmpty { parts.append(.text(literal)) }
        return .success(Template(parts: parts, range: start))
    }

    /// Parses a condition: either one `${{ }}` or a bare expression (as in `if: success()`).
    public func condition(_ text: String, at start: SourceRange) -> Result<Expression, Diagnostic> {
        if Template.opensExpression(text) {
            switch template(text.trimmingSpaces(), at: start) {
            case .failure(let diagnostic): return .failure(diagnostic)
            case .success(let template):
                if let expression = template.singleExpression { return .success(expression) }
                return .failure(
                    .error(
                        .invalidExpression, "a condition must be one expression, not text with `${{ }}` inside",
                        at: start, hint: "write `if: ${{ … }}` with nothing around it"))
            }
        }
        let scalars = Array(text.unicodeScalars)
        let locate = locator(for: scalars, scalarStart: start.start)
        do {
            var parser = try ExpressionParser(scalars: scalars, start: 0, closedByBraces: false, locate: locate)
            return .success(try parser.parseComplete().0)
        } catch {
            return .failure(diagnostic(error, locate: locate, opening: nil))
        }
    }

    /// Whether `}}` occurs at or after `start`.
    private static func hasClosingBraces(_ scalars: [Unicode.Scalar], from start: Int) -> Bool {
        var index = start
        while index + 1 < scalars.count {
            if scalars[index] == "}" && scalars[index + 1] == "}" { return true }
            index += 1
        }
        return false
    }

    private func diagnostic(_ error: ExpressionSyntaxError, locate: (Int) -> SourceLocation, opening: Int?)
        -> Diagnostic
    {
        let start = locate(error.start)
        var end = locate(error.end)
        if end.line != start.line || end <= start { end = start.advanced(by: 1) }
        var notes: [Diagnostic.Note] = []
        if let opening, error.message.contains("`}}`") {
            notes.append(.init("the expression starts here", at: SourceRange(start: locate(opening), length: 3)))
        }
        return .error(
            .malformedExpression, error.message, at: SourceRange(start: start, end: end), notes: notes,
            hint: error.hint)
    }

    /// Maps offsets into a scalar's value to source locations.
    ///
    /// Each line of the value is searched for in the file from the scalar's start;
    /// where escapes or folding make the value differ from the text, the part
    /// from the nearest `${{` is searched instead, and failing that the scalar's
    /// start is used.
    private func locator(for scalars: [Unicode.Scalar], scalarStart: SourceLocation) -> (Int) -> SourceLocation {
        // A one-line quoted scalar is decoded from the file itself, escapes included: every offset is exact.
        if let exact = quotedScalarLocations(of: scalars, at: scalarStart), let last = exact.last {
            return { offset in offset < exact.count ? exact[offset] : last.advanced(by: offset - exact.count + 1) }
        }
        let source = self.source
        var segments: [(start: Int, end: Int)] = []
        var segmentStart = 0
        for (index, scalar) in scalars.enumerated() where scalar == "\n" {
            segments.append((segmentStart, index))
            segmentStart = index + 1
        }
        segments.append((segmentStart, scalars.count))
        var searchFrom = scalarStart
        var anchors: [Int: (valueOffset: Int, location: SourceLocation)?] = [:]
        for (number, segment) in segments.enumerated() {
            var found: (Int, SourceLocation)?
            let whole = String(String.UnicodeScalarView(scalars[segment.start..<segment.end]))
            if !whole.trimmingSpaces().isEmpty, let location = source.find(whole, from: searchFrom) {
                found = (segment.start, location)
            } else if let open = (segment.start..<segment.end).first(where: { i in
                scalars[i] == "$" && i + 2 < segment.end && scalars[i + 1] == "{" && scalars[i + 2] == "{"
            }) {
                let tail = String(String.UnicodeScalarView(scalars[open..<segment.end]))
                if let location = source.find(tail, from: searchFrom) { found = (open, location) }
            }
            anchors[number] = found
            if let found { searchFrom = SourceLocation(line: found.1.line + 1, column: 1) }
        }
        return { offset in
            let number = segments.firstIndex(where: { offset <= $0.end }) ?? (segments.count - 1)
            guard let anchor = anchors[number] ?? nil, offset >= anchor.valueOffset else { return scalarStart }
            return anchor.location.advanced(by: offset - anchor.valueOffset)
        }
    }
}

extension TemplateParser {
    /// Where each scalar of `value` is written, when `value` is a quoted scalar (`"…"` or `'…'`) on one line
    /// starting at `start`: the token is decoded as YAML does (`\\`, `\"`, `\t`, `\x41`, `\u00e9`, … in double
    /// quotes; `''` in single quotes), and used only if that gives exactly `value`.
    /// - Returns: one location per scalar of `value`, or `nil` (plain or block scalars, several lines).
    fileprivate func quotedScalarLocations(of value: [Unicode.Scalar], at start: SourceLocation) -> [SourceLocation]? {
        guard let line = source.line(start.line), start.column >= 1 else { return nil }
        let text = Array(line.unicodeScalars)
        var index = start.column - 1
        guard index < text.count, text[index] == "\"" || text[index] == "'" else { return nil }
        let quote = text[index]
        index += 1
        var decoded: [Unicode.Scalar] = []
        var locations: [SourceLocation] = []
        while index < text.count {
            let scalar = text[index]
            let here = SourceLocation(line: start.line, column: index + 1)
            if scalar == quote {
                guard quote == "'", index + 1 < text.count, text[index + 1] == "'" else {
                    return decoded == value ? locations : nil
                }
                decoded.append("'")
                locations.append(here)
                index += 2
                continue
            }
            if quote == "\"", scalar == "\\" {
                guard index + 1 < text.count, let (escaped, width) = Self.escape(text, at: index + 1) else {
                    return nil
                }
                decoded.append(escaped)
                locations.append(here)
                index += 1 + width
                continue
            }
            decoded.append(scalar)
            locations.append(here)
            index += 1
        }
        return nil  // no closing quote on this line: the scalar goes on
    }

    /// The scalar a YAML double-quoted escape stands for (`text[index]` is the character after `\`), and how
    /// many source scalars it takes after the backslash.
    private static func escape(_ text: [Unicode.Scalar], at index: Int) -> (Unicode.Scalar, Int)? {
        let simple: [Unicode.Scalar: UInt32] = [
            "0": 0, "a": 7, "b": 8, "t": 9, "\t": 9, "n": 10, "v": 11, "f": 12, "r": 13, "e": 27, " ": 32,
            "\"": 34, "/": 47, "\\": 92, "N": 0x85, "_": 0xA0, "L": 0x2028, "P": 0x2029,
        ]
        let letter = text[index]
        if let code = simple[letter], let scalar = Unicode.Scalar(code) { return (scalar, 1) }
        let digits: Int
        switch letter {
        case "x": digits = 2
        case "u": digits = 4
        case "U": digits = 8
        default: return nil
        }
        guard index + digits < text.count else { return nil }
        let hex = String(String.UnicodeScalarView(text[(index + 1)...(index + digits)]))
        guard let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else { return nil }
        return (scalar, 1 + digits)
    }
}

extension String {
    /// This string without leading and trailing spaces, tabs and newlines.
    func trimmingSpaces() -> String {
        let scalars = unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}
