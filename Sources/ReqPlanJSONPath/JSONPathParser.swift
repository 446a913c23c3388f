import ReqPlanSyntax

/// Parses a query by the grammar of RFC 9535 and checks that it is well-typed (§2.4.3), so that a
/// compiled query always evaluates.
struct JSONPathParser {
    /// The largest index, slice bound and step: I-JSON's exact integers, ±(2^53 − 1) (§2.1).
    static let maximumInteger = 9_007_199_254_740_991
    /// How deeply filters, parentheses and function calls may nest, so a hostile query cannot
    /// exhaust the stack.
    static let maximumNesting = 64

    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var nesting = 0

    /// Parses `text` as a whole query.
    static func parse(_ text: String) throws(JSONPathError) -> JSONPathQuery {
        var parser = JSONPathParser(scalars: Array(text.unicodeScalars))
        guard parser.peek == "$" else { throw parser.fail("a query starts with `$`") }
        let query = try parser.parseQuery()
        guard parser.index == parser.scalars.count else {
            throw parser.fail("expected a segment (`.name`, `[…]` or `..`), found \(parser.found)")
        }
        return query
    }

    private init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

    // MARK: Reading

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private func peek(_ offset: Int) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private func fail(_ message: String, at position: Int? = nil) -> JSONPathError {
        JSONPathError(message: message, position: (position ?? index) + 1)
    }

    /// What is at the current position, for messages.
    private var found: String {
        guard let scalar = peek else { return "the end of the query" }
        if scalar.value < 0x20 { return "U+\(String(scalar.value, radix: 16, uppercase: true))" }
        return "`\(Character(scalar))`"
    }

    private static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    private static func isDigit(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return ("0"..."9").contains(scalar)
    }

    private static func isNameFirst(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_"
            || scalar.value >= 0x80
    }

    private mutating func skipBlanks() {
        while let scalar = peek, Self.isBlank(scalar) { index += 1 }
    }

    private mutating func expect(_ scalar: Unicode.Scalar, _ what: String) throws(JSONPathError) {
        guard peek == scalar else { throw fail("expected \(what), found \(found)") }
        index += 1
    }

    private mutating func enter() throws(JSONPathError) {
        nesting += 1
        guard nesting <= Self.maximumNesting else {
            throw fail("the query nests more than \(Self.maximumNesting) levels deep")
        }
    }

    // MARK: Queries and segments

    /// `$` or `@`, then its segments (`segments = *(S segment)`).
    private mutating func parseQuery() throws(JSONPathError) -> JSONPathQuery {
        let isAbsolute = peek == "$"
        index += 1
        var segments: [JSONPathSegment] = []
        while true {
            let before = index
            skipBlanks()
            guard peek == "." || peek == "[" else {
                index = before
                return JSONPathQuery(isAbsolute: isAbsolute, segments: segments)
            }
            segments.append(try parseSegment())
        }
    }

    private mutating func parseSegment() throws(JSONPathError) -> JSONPathSegment {
        if peek == "[" { return try parseBracketed(isDescendant: false) }
        index += 1  // `.`
        let isDescendant = peek == "."
        if isDescendant {
            index += 1
            if peek == "[" { return try parseBracketed(isDescendant: true) }
        }
        if peek == "*" {
            index += 1
            return JSONPathSegment(isDescendant: isDescendant, selectors: [.wildcard])
        }
        guard Self.isNameFirst(peek) else {
            let after = isDescendant ? "`..`" : "`.`"
            throw fail("expected a member name or `*` after \(after), found \(found)")
        }
        let start = index
        while Self.isNameFirst(peek) || Self.isDigit(peek) { index += 1 }
        let name = String(String.UnicodeScalarView(scalars[start..<index]))
        return JSONPathSegment(isDescendant: isDescendant, selectors: [.name(name)])
    }

    /// `[` selectors separated by `,` `]`.
    private mutating func parseBracketed(isDescendant: Bool) throws(JSONPathError) -> JSONPathSegment {
        index += 1
        var segment = JSONPathSegment(isDescendant: isDescendant, selectors: [])
        while true {
            var before = index
            skipBlanks()
            segment.hasBlanks = segment.hasBlanks || index > before
            segment.selectors.append(try parseSelector())
            before = index
            skipBlanks()
            segment.hasBlanks = segment.hasBlanks || index > before
            if peek == "," {
                index += 1
                continue
            }
            try expect("]", "`,` or `]`")
            return segment
        }
    }

    private mutating func parseSelector() throws(JSONPathError) -> JSONPathSelector {
        switch peek {
        case "'", "\"": return .name(try parseString())
        case "*":
            index += 1
            return .wildcard
        case "?":
            index += 1
            skipBlanks()
            try enter()
            defer { nesting -= 1 }
            return .filter(try logical(parseOr()))
        case ":": return try parseSlice(start: nil)
        case let scalar? where scalar == "-" || Self.isDigit(scalar):
            let start = try parseInteger()
            let before = index
            skipBlanks()
            if peek == ":" { return try parseSlice(start: start) }
            index = before
            return .index(start)
        default:
            throw fail("expected a selector (a name in quotes, `*`, an index, a slice or `?`), found \(found)")
        }
    }

    /// The rest of a slice, from its first `:` (`[start S] ":" S [end S] [":" [S step]]`).
    private mutating func parseSlice(start: Int?) throws(JSONPathError) -> JSONPathSelector {
        index += 1
        skipBlanks()
        var end: Int?
        var step: Int?
        if peek == "-" || Self.isDigit(peek) {
            end = try parseInteger()
            skipBlanks()
        }
        if peek == ":" {
            index += 1
            skipBlanks()
            if peek == "-" || Self.isDigit(peek) { step = try parseInteger() }
        }
        return .slice(start: start, end: end, step: step)
    }

    /// `int = "0" / (["-"] DIGIT1 *DIGIT)`, within ±(2^53 − 1).
    private mutating func parseInteger() throws(JSONPathError) -> Int {
        let start = index
        if peek == "-" { index += 1 }
        guard Self.isDigit(peek) else { throw fail("expected a digit, found \(found)") }
        if peek == "0", index > start || Self.isDigit(peek(1)) {
            throw fail("an integer does not start with `0` unless it is `0`", at: start)
        }
        while Self.isDigit(peek) { index += 1 }
        let text = String(String.UnicodeScalarView(scalars[start..<index]))
        guard let value = Int(text), (-Self.maximumInteger...Self.maximumInteger).contains(value) else {
            throw fail("`\(text)` is outside the integers JSONPath allows, ±(2^53 − 1)", at: start)
        }
        return value
    }

    /// A string literal in single or double quotes, with JSON's escapes (§2.3.1.1).
    private mutating func parseString() throws(JSONPathError) -> String {
        guard let quote = peek else { throw fail("expected a string") }
        let start = index
        index += 1
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = peek else { throw fail("the string is not closed", at: start) }
            if scalar == quote {
                index += 1
                return String(result)
            }
            if scalar.value < 0x20 {
                throw fail(
                    "a control character (U+\(String(scalar.value, radix: 16, uppercase: true))) must be escaped")
            }
            index += 1
            guard scalar == "\\" else {
                result.append(scalar)
                continue
            }
            let escape = peek
            index += 1
            switch escape {
            case "b": result.append("\u{8}")
            case "f": result.append("\u{C}")
            case "n": result.append("\n")
            case "r": result.append("\r")
            case "t": result.append("\t")
            case "/": result.append("/")
            case "\\": result.append("\\")
            case .some(quote): result.append(quote)
            case "u": result.append(try parseUnicodeEscape())
            default:
                index -= 2
                throw fail("`\\\(escape.map { String(Character($0)) } ?? "")` is not an escape of a string")
            }
        }
    }

    /// The `XXXX` of `\uXXXX`, and the low surrogate's `\uXXXX` after a high one.
    private mutating func parseUnicodeEscape() throws(JSONPathError) -> Unicode.Scalar {
        let start = index - 2
        let high = try parseHex4()
        if (0xDC00...0xDFFF).contains(high) {
            throw fail("a low surrogate without a high one before it", at: start)
        }
        guard (0xD800...0xDBFF).contains(high) else {
            guard let scalar = Unicode.Scalar(high) else { throw fail("not a character", at: start) }
            return scalar
        }
        guard peek == "\\", peek(1) == "u" else {
            throw fail("a high surrogate must be followed by a low one (`\\uDC00`–`\\uDFFF`)", at: start)
        }
        index += 2
        let low = try parseHex4()
        guard (0xDC00...0xDFFF).contains(low),
            let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        else { throw fail("a high surrogate must be followed by a low one (`\\uDC00`–`\\uDFFF`)", at: start) }
        return scalar
    }

    private mutating func parseHex4() throws(JSONPathError) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let scalar = peek, let digit = Int(String(Character(scalar)), radix: 16) else {
                throw fail("expected 4 hexadecimal digits after `\\u`, found \(found)")
            }
            code = code * 16 + UInt32(digit)
            index += 1
        }
        return code
    }

    // MARK: Filter expressions

    /// What an operand is before its context decides how it is read: a filter wants a logical
    /// expression, a comparison comparables, a function its parameters' types.
    private enum Operand {
        case literal(Value, at: Int)
        case query(JSONPathQuery, at: Int)
        case function(JSONPathCall, at: Int)
        case logical(JSONPathLogical)
    }

    /// `logical-or-expr = logical-and-expr *(S "||" S logical-and-expr)`.
    private mutating func parseOr() throws(JSONPathError) -> Operand {
        let first = try parseAnd()
        var terms: [JSONPathLogical] = []
        while true {
            skipBlanks()
            guard peek == "|", peek(1) == "|" else { break }
            if terms.isEmpty { terms.append(try logical(first)) }
            index += 2
            skipBlanks()
            terms.append(try logical(parseAnd()))
        }
        return terms.isEmpty ? first : .logical(.or(terms))
    }

    /// `logical-and-expr = basic-expr *(S "&&" S basic-expr)`.
    private mutating func parseAnd() throws(JSONPathError) -> Operand {
        let first = try parseBasic()
        var terms: [JSONPathLogical] = []
        while true {
            skipBlanks()
            guard peek == "&", peek(1) == "&" else { break }
            if terms.isEmpty { terms.append(try logical(first)) }
            index += 2
            skipBlanks()
            terms.append(try logical(parseBasic()))
        }
        return terms.isEmpty ? first : .logical(.and(terms))
    }

    /// An operand, or a comparison of two.
    private mutating func parseBasic() throws(JSONPathError) -> Operand {
        let left = try parsePrimary()
        let before = index
        skipBlanks()
        guard let comparison = parseComparisonOperator() else {
            index = before
            return left
        }
        skipBlanks()
        let right = try parsePrimary()
        return .logical(.comparison(try comparable(left), comparison, try comparable(right)))
    }

    private mutating func parseComparisonOperator() -> JSONPathComparison? {
        for comparison in JSONPathComparison.allCases {
            let written = Array(comparison.rawValue.unicodeScalars)
            if scalars.count - index >= written.count, Array(scalars[index..<index + written.count]) == written {
                index += written.count
                return comparison
            }
        }
        return nil
    }

    private mutating func parsePrimary() throws(JSONPathError) -> Operand {
        let start = index
        switch peek {
        case "(":
            index += 1
            skipBlanks()
            try enter()
            let inner = try logical(parseOr())
            nesting -= 1
            skipBlanks()
            try expect(")", "`)`")
            return .logical(inner)
        case "!":
            index += 1
            skipBlanks()
            guard peek == "(" || peek == "@" || peek == "$" || ("a"..."z").contains(peek ?? " ") else {
                throw fail("`!` negates a query, a function or an expression in parentheses, found \(found)")
            }
            let operand = try parsePrimary()
            if case .literal = operand {
                throw fail("`!` negates a query, a function or an expression in parentheses", at: start + 1)
            }
            return .logical(.not(try logical(operand)))
        case "@", "$":
            try enter()
            defer { nesting -= 1 }
            return .query(try parseQuery(), at: start)
        case "'", "\"":
            return .literal(.string(try parseString()), at: start)
        case let scalar? where scalar == "-" || Self.isDigit(scalar):
            return .literal(try parseNumber(), at: start)
        case let scalar? where ("a"..."z").contains(scalar):
            while let scalar = peek, ("a"..."z").contains(scalar) || scalar == "_" || Self.isDigit(scalar) {
                index += 1
            }
            let word = String(String.UnicodeScalarView(scalars[start..<index]))
            guard peek == "(" else {
                switch word {
                case "true": return .literal(.bool(true), at: start)
                case "false": return .literal(.bool(false), at: start)
                case "null": return .literal(.null, at: start)
                default: throw fail("expected `(` after the function name `\(word)`, found \(found)")
                }
            }
            return .function(try parseCall(named: word, at: start), at: start)
        default:
            throw fail(
                "expected a query (`@` or `$`), a literal, a function call, `!` or `(`, found \(found)")
        }
    }

    /// `number = (int / "-0") [frac] [exp]` (§2.3.5.1): an integer when written as one, else a double.
    private mutating func parseNumber() throws(JSONPathError) -> Value {
        let start = index
        if peek == "-" { index += 1 }
        guard Self.isDigit(peek) else { throw fail("expected a digit, found \(found)") }
        if peek == "0", Self.isDigit(peek(1)) {
            throw fail("a number does not start with `0` followed by a digit", at: start)
        }
        while Self.isDigit(peek) { index += 1 }
        var isInteger = true
        if peek == "." {
            isInteger = false
            index += 1
            guard Self.isDigit(peek) else { throw fail("expected a digit after `.`, found \(found)") }
            while Self.isDigit(peek) { index += 1 }
        }
        if peek == "e" || peek == "E" {
            isInteger = false
            index += 1
            if peek == "+" || peek == "-" { index += 1 }
            guard Self.isDigit(peek) else { throw fail("expected a digit in the exponent, found \(found)") }
            while Self.isDigit(peek) { index += 1 }
        }
        let text = String(String.UnicodeScalarView(scalars[start..<index]))
        if isInteger, text != "-0", let integer = Int(text) { return .int(integer) }
        guard let double = Double(text) else { throw fail("`\(text)` is not a number", at: start) }
        return .double(double)
    }

    /// `name(arguments)`, each argument checked against its parameter's type (§2.4.3).
    private mutating func parseCall(named name: String, at start: Int) throws(JSONPathError) -> JSONPathCall {
        guard let function = JSONPathFunction(rawValue: name) else {
            let known = JSONPathFunction.allCases.map { "`\($0.rawValue)()`" }.joined(separator: ", ")
            throw fail("unknown function `\(name)` (the functions are \(known))", at: start)
        }
        try enter()
        defer { nesting -= 1 }
        index += 1  // `(`
        skipBlanks()
        var operands: [(Operand, Int)] = []
        if peek != ")" {
            while true {
                skipBlanks()
                let position = index
                operands.append((try parseOr(), position))
                skipBlanks()
                guard peek == "," else { break }
                index += 1
            }
        }
        try expect(")", "`,` or `)`")
        let parameters = function.parameters
        guard operands.count == parameters.count else {
            let count = parameters.count
            throw fail(
                "`\(name)()` takes \(count) argument\(count == 1 ? "" : "s"), found \(operands.count)", at: start)
        }
        var arguments: [JSONPathArgument] = []
        for ((operand, position), parameter) in zip(operands, parameters) {
            arguments.append(try argument(operand, for: parameter, of: name, at: position))
        }
        return JSONPathCall(function: function, arguments: arguments)
    }

    // MARK: Well-typedness (§2.4.3)

    /// An operand read as a logical expression: a query tests that it selects something; a function
    /// must be of LogicalType or NodesType.
    private func logical(_ operand: Operand) throws(JSONPathError) -> JSONPathLogical {
        switch operand {
        case .logical(let expression): return expression
        case .query(let query, _): return .exists(query)
        case .function(let call, let position):
            guard call.function.result != .value else {
                throw fail(
                    "`\(call.function.rawValue)()` gives a value, not a logical result: compare it",
                    at: position)
            }
            return .function(call)
        case .literal(_, let position):
            throw fail("a literal is not a test: compare it with something", at: position)
        }
    }

    /// An operand read as one side of a comparison: a literal, a singular query or a function of ValueType.
    private func comparable(_ operand: Operand) throws(JSONPathError) -> JSONPathComparable {
        switch operand {
        case .literal(let value, _): return .literal(value)
        case .query(let query, let position):
            guard query.isSingular else {
                throw fail(
                    "a query compared must be singular: only `.name`, `['name']` and `[index]`, with no blanks inside brackets",
                    at: position)
            }
            return .query(query)
        case .function(let call, let position):
            guard call.function.result == .value else {
                throw fail(
                    "`\(call.function.rawValue)()` gives a \(call.function.result.rawValue) result, which cannot be compared",
                    at: position)
            }
            return .function(call)
        case .logical:
            throw fail("a logical expression cannot be compared", at: index)
        }
    }

    private func argument(_ operand: Operand, for parameter: JSONPathType, of name: String, at position: Int)
        throws(JSONPathError) -> JSONPathArgument
    {
        switch parameter {
        case .value:
            if case .logical = operand {
                throw fail("`\(name)()` takes a value here, not a logical expression", at: position)
            }
            return .value(try comparable(operand))
        case .logical:
            return .logical(try logical(operand))
        case .nodes:
            guard case .query(let query, _) = operand else {
                throw fail("`\(name)()` takes a query (`@…` or `$…`) here", at: position)
            }
            return .nodes(query)
        }
    }
}
