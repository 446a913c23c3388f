/// A token of the `${{ }}` language.
struct ExpressionToken: Equatable {
    enum Kind: Equatable {
        case name(String)
        case integer(Int)
        case double(Double)
        case string(String)
        case symbol(String)
        /// The closing `}}` of a `${{ }}`.
        case close
        case end
    }
    var kind: Kind
    /// Offsets (in Unicode scalars) into the text being lexed.
    var start: Int
    var end: Int
}

/// Why an expression does not parse, at an offset into its text.
struct ExpressionSyntaxError: Error, Equatable {
    var message: String
    var start: Int
    var end: Int
    var hint: String?
}

/// Splits expression text into tokens.
struct ExpressionLexer {
    let scalars: [Unicode.Scalar]
    var index: Int

    init(scalars: [Unicode.Scalar], start: Int) {
        self.scalars = scalars
        self.index = start
    }

    static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    static func isNameContinue(_ scalar: Unicode.Scalar) -> Bool {
        isNameStart(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    mutating func next() throws(ExpressionSyntaxError) -> ExpressionToken {
        while let scalar = peek(), scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" { index += 1 }
        let start = index
        guard let scalar = peek() else { return ExpressionToken(kind: .end, start: start, end: start) }

        if ExpressionLexer.isNameStart(scalar) {
            var name = ""
            while let next = peek(), ExpressionLexer.isNameContinue(next) {
                name.unicodeScalars.append(next)
                index += 1
            }
            return ExpressionToken(kind: .name(name), start: start, end: index)
        }
        if ("0"..."9").contains(scalar) || (scalar == "-" && peek(1).map { ("0"..."9").contains($0) } == true) {
            return try number(start: start)
        }
        if scalar == "'" || scalar == "\"" {
            return try string(quote: scalar, start: start)
        }
        if scalar == "}" && peek(1) == "}" {
            index += 2
            return ExpressionToken(kind: .close, start: start, end: index)
        }
        for symbol in ["==", "!=", "<=", ">=", "&&", "||"] {
            let symbolScalars = Array(symbol.unicodeScalars)
            if peek() == symbolScalars[0] && peek(1) == symbolScalars[1] {
                index += 2
                return ExpressionToken(kind: .symbol(symbol), start: start, end: index)
            }
        }
        if "().,[]*!<>".unicodeScalars.contains(scalar) {
            index += 1
            return ExpressionToken(kind: .symbol(String(scalar)), start: start, end: index)
        }
        let hint: String?
        switch scalar {
        case "=": hint = "use `==` to compare"
        case "&": hint = "use `&&` for \"and\""
        case "|": hint = "use `||` for \"or\""
        case "+", "-", "/", "%": hint = "expressions have no arithmetic"
        default: hint = nil
        }
        throw ExpressionSyntaxError(
            message: "unexpected character `\(scalar)` in expression", start: start,
            end: start + 1, hint: hint)
    }

    private mutating func number(start: Int) throws(ExpressionSyntaxError) -> ExpressionToken {
        var text = ""
        if peek() == "-" {
            text = "-"
            index += 1
        }
        var isDouble = false
        while let scalar = peek(),
            ("0"..."9").contains(scalar)
                || (scalar == "." && peek(1).map { ("0"..."9").contains($0) } == true)
                || scalar == "e" || scalar == "E"
                || ((scalar == "+" || scalar == "-") && (text.hasSuffix("e") || text.hasSuffix("E")))
        {
            if scalar == "." || scalar == "e" || scalar == "E" { isDouble = true }
            text.unicodeScalars.append(scalar)
            index += 1
        }
        if let next = peek(), ExpressionLexer.isNameStart(next) {
            while let scalar = peek(), ExpressionLexer.isNameContinue(scalar) {
                text.unicodeScalars.append(scalar)
                index += 1
            }
            throw ExpressionSyntaxError(
                message: "invalid number `\(text)`", start: start, end: index,
                hint: "names start with a letter or `_`")
        }
        if !isDouble, let value = Int(text) {
            return ExpressionToken(kind: .integer(value), start: start, end: index)
        }
        guard let value = Double(text), value.isFinite else {
            throw ExpressionSyntaxError(message: "invalid number `\(text)`", start: start, end: index, hint: nil)
        }
        return ExpressionToken(kind: .double(value), start: start, end: index)
    }

    private mutating func string(quote: Unicode.Scalar, start: Int) throws(ExpressionSyntaxError) -> ExpressionToken {
        index += 1
        var value = ""
        while let scalar = peek() {
            if scalar == quote {
                if quote == "'" && peek(1) == "'" {
                    value += "'"
                    index += 2
                    continue
                }
                index += 1
                return ExpressionToken(kind: .string(value), start: start, end: index)
            }
            if quote == "\"" && scalar == "\\" {
                guard let escaped = peek(1) else { break }
                switch escaped {
                case "n": value += "\n"
                case "t": value += "\t"
                case "\"": value += "\""
                case "\\": value += "\\"
                default:
                    throw ExpressionSyntaxError(
                        message: "unknown escape `\\\(escaped)` in string", start: index,
                        end: index + 2, hint: "escapes are \\n, \\t, \\\" and \\\\")
                }
                index += 2
                continue
            }
            value.unicodeScalars.append(scalar)
            index += 1
        }
        throw ExpressionSyntaxError(
            message: "unterminated string literal", start: start, end: start + 1,
            hint: "close it with `\(quote)`")
    }
}
