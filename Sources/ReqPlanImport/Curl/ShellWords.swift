import ReqPlanSyntax

/// A word of a POSIX shell command line, as the shell would pass it to curl: quotes removed, escapes read,
/// and each variable (`$NAME`, `${NAME}`) kept as such, for the importer to turn into an input.
struct ShellWord: Sendable {
    /// A run of text, or a variable the shell would expand.
    enum Piece: Sendable, Hashable {
        case text(String)
        case variable(String)
    }

    var pieces: [Piece]
    /// Where the word starts and ends in the file.
    var range: SourceRange
    /// Whether some part of the word was quoted (a quoted `#` does not start a comment, a quoted `|` is text).
    var quoted = false

    /// The word's text when it has no variable.
    var text: String? {
        var result = ""
        for piece in pieces {
            guard case .text(let part) = piece else { return nil }
            result += part
        }
        return result
    }

    /// The word's text with each variable as `$NAME`, for messages and option names.
    var shown: String {
        pieces.map { piece in
            switch piece {
            case .text(let text): text
            case .variable(let name): "$" + name
            }
        }.joined()
    }
}

/// One simple command: its words, in order.
struct ShellCommand: Sendable {
    var words: [ShellWord]
}

/// Why a command line cannot be read: where, and the diagnostic code.
struct ShellError: Error, Sendable {
    var code: DiagnosticCode
    var message: String
    var range: SourceRange
    var hint: String?
}

/// Splits shell text (a script, a README snippet, a terminal session) into commands of words, as a POSIX
/// shell reads them: `'…'`, `"…"` with its `\` escapes, `$'…'` (ANSI-C escapes), `\` outside quotes,
/// a `\` before a newline joining two lines, `#` comments, and `;`, `&&`, `||`, `|`, `&` and newlines
/// between commands (what follows a `|` is another command). A line's `$ ` or `% ` prompt is dropped.
///
/// What only a shell could know is refused with its place (`$(…)`, backticks, `$((…))`); `$NAME` and
/// `${NAME}` are kept as variables (`${NAME:-default}` and other expansions are refused).
struct ShellSplitter {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1
    private var column = 1

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    /// The commands of the text, or the first thing it cannot read.
    mutating func commands() -> Result<[ShellCommand], ShellError> {
        var commands: [ShellCommand] = []
        var words: [ShellWord] = []
        var atLineStart = true
        func end() {
            if !words.isEmpty { commands.append(ShellCommand(words: words)) }
            words = []
        }
        while index < scalars.count {
            let scalar = scalars[index]
            if atLineStart {
                atLineStart = false
                skipBlanks()
                // A prompt: `$ curl …`, `% curl …`.
                if index + 1 < scalars.count, scalars[index] == "$" || scalars[index] == "%",
                    scalars[index + 1] == " "
                {
                    advance(2)
                }
                continue
            }
            switch scalar {
            case " ", "\t", "\r":
                advance()
            case "\n":
                advance()
                end()
                atLineStart = true
            case "\\" where peek(1) == "\n":
                advance(2)
            case "\\" where peek(1) == "\r" && peek(2) == "\n":
                advance(3)
            case "#":
                while index < scalars.count, scalars[index] != "\n" { advance() }
            case ";", "&", "|":
                advance()
                while index < scalars.count, scalars[index] == "&" || scalars[index] == "|" { advance() }
                end()
            case "<", ">":
                // A redirection and its target: output only, not part of curl's arguments.
                advance()
                while index < scalars.count, scalars[index] == ">" || scalars[index] == "&" { advance() }
                skipBlanks()
                switch word() {
                case .failure(let error): return .failure(error)
                case .success: break
                }
            default:
                switch word() {
                case .failure(let error): return .failure(error)
                case .success(let word): words.append(word)
                }
            }
        }
        end()
        return .success(commands)
    }

    // MARK: - Words

    private mutating func word() -> Result<ShellWord, ShellError> {
        let start = location
        var pieces: [ShellWord.Piece] = []
        var quoted = false
        func append(_ text: String) {
            if case .text(let last)? = pieces.last {
                pieces[pieces.count - 1] = .text(last + text)
            } else {
                pieces.append(.text(text))
            }
        }
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case " ", "\t", "\n", "\r", ";", "&", "|", "<", ">":
                return .success(
                    ShellWord(pieces: pieces, range: SourceRange(start: start, end: location), quoted: quoted))
            case "\\":
                if peek(1) == "\n" {
                    advance(2)
                } else if let next = peek(1) {
                    advance(2)
                    append(String(next))
                } else {
                    advance()
                }
            case "'":
                quoted = true
                let open = location
                advance()
                var text = ""
                while index < scalars.count, scalars[index] != "'" {
                    text.unicodeScalars.append(scalars[index])
                    advance()
                }
                guard index < scalars.count else { return .failure(unclosed("'", at: open)) }
                advance()
                append(text)
            case "\"":
                quoted = true
                let open = location
                advance()
                while index < scalars.count, scalars[index] != "\"" {
                    switch scalars[index] {
                    case "\\":
                        if let next = peek(1), "$`\"\\\n".unicodeScalars.contains(next) {
                            advance(2)
                            if next != "\n" { append(String(next)) }
                        } else {
                            advance()
                            append("\\")
                        }
                    case "$":
                        switch dollar(quoted: true) {
                        case .failure(let error): return .failure(error)
                        case .success(let piece):
                            if case .text(let text) = piece { append(text) } else { pieces.append(piece) }
                        }
                    case "`":
                        return .failure(substitution(at: location, "`…`"))
                    default:
                        append(String(scalars[index]))
                        advance()
                    }
                }
                guard index < scalars.count else { return .failure(unclosed("\"", at: open)) }
                advance()
            case "$" where peek(1) == "'":
                quoted = true
                let open = location
                advance(2)
                switch ansiC(open: open) {
                case .failure(let error): return .failure(error)
                case .success(let text): append(text)
                }
            case "$":
                switch dollar(quoted: false) {
                case .failure(let error): return .failure(error)
                case .success(let piece): if case .text(let text) = piece { append(text) } else { pieces.append(piece) }
                }
            case "`":
                return .failure(substitution(at: location, "`…`"))
            default:
                append(String(scalar))
                advance()
            }
        }
        return .success(ShellWord(pieces: pieces, range: SourceRange(start: start, end: location), quoted: quoted))
    }

    /// `$NAME`, `${NAME}`, or a `$` that is text; `$(…)`, `$((…))` and `${NAME…}` with more are refused.
    private mutating func dollar(quoted: Bool) -> Result<ShellWord.Piece, ShellError> {
        let start = location
        advance()
        guard let next = peek(0) else { return .success(.text("$")) }
        if next == "(" { return .failure(substitution(at: start, "$(…)")) }
        if next == "{" {
            advance()
            var name = ""
            while let scalar = peek(0), scalar != "}" {
                name.unicodeScalars.append(scalar)
                advance()
            }
            guard peek(0) == "}", Self.isName(name) else {
                return .failure(
                    ShellError(
                        code: .importShellConstruct,
                        message: "`${\(name)` is a parameter expansion only a shell can work out",
                        range: SourceRange(start: start, length: name.unicodeScalars.count + 2),
                        hint: "write the value, or a plain `$NAME` (which becomes an input)"))
            }
            advance()
            return .success(.variable(name))
        }
        var name = ""
        while let scalar = peek(0), scalar == "_" || Self.isLetterOrDigit(scalar) {
            name.unicodeScalars.append(scalar)
            advance()
        }
        if name.isEmpty || !Self.isName(name) {
            // `$1`, `$?`, `$$`, or a `$` before text that is no name: the `$` is text as curl would get it
            // only for the last case; the others are refused.
            if let special = peek(0), name.isEmpty, "?$!#*@-0123456789".unicodeScalars.contains(special) {
                return .failure(
                    ShellError(
                        code: .importShellConstruct, message: "`$\(special)` is a special parameter only a shell knows",
                        range: SourceRange(start: start, length: 2), hint: "write the value"))
            }
            return .success(.text("$" + name))
        }
        return .success(.variable(name))
    }

    /// The text of `$'…'` after its opening quote, its escapes read.
    private mutating func ansiC(open: SourceLocation) -> Result<String, ShellError> {
        var text = ""
        while let scalar = peek(0), scalar != "'" {
            advance()
            guard scalar == "\\", let escape = peek(0) else {
                text.unicodeScalars.append(scalar)
                continue
            }
            advance()
            switch escape {
            case "n": text += "\n"
            case "t": text += "\t"
            case "r": text += "\r"
            case "a": text += "\u{07}"
            case "b": text += "\u{08}"
            // ESC, from a shell's text: it reaches no terminal unescaped (the plan writer escapes it).
            case "e", "E": text.unicodeScalars.append(Unicode.Scalar(UInt8(27)))
            case "f": text += "\u{0C}"
            case "v": text += "\u{0B}"
            case "x": text += code(maxDigits: 2, radix: 16)
            case "u": text += code(maxDigits: 4, radix: 16)
            case "U": text += code(maxDigits: 8, radix: 16)
            case "0", "1", "2", "3", "4", "5", "6", "7":
                index -= 1
                column -= 1
                text += code(maxDigits: 3, radix: 8)
            default: text.unicodeScalars.append(escape)
            }
        }
        guard peek(0) == "'" else { return .failure(unclosed("$'", at: open)) }
        advance()
        return .success(text)
    }

    /// The character of up to `maxDigits` digits in `radix` (nothing when none, or not a character).
    private mutating func code(maxDigits: Int, radix: Int) -> String {
        var digits = ""
        while digits.count < maxDigits, let scalar = peek(0), Int(String(scalar), radix: radix) != nil {
            digits.unicodeScalars.append(scalar)
            advance()
        }
        guard let value = UInt32(digits, radix: radix), let scalar = Unicode.Scalar(value) else { return "" }
        return String(scalar)
    }

    // MARK: - Positions

    private var location: SourceLocation { SourceLocation(line: line, column: column) }

    private func peek(_ offset: Int) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private mutating func advance(_ count: Int = 1) {
        for _ in 0..<count where index < scalars.count {
            if scalars[index] == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
            index += 1
        }
    }

    private mutating func skipBlanks() {
        while let scalar = peek(0), scalar == " " || scalar == "\t" { advance() }
    }

    private func unclosed(_ quote: String, at start: SourceLocation) -> ShellError {
        ShellError(
            code: .importSourceMalformed, message: "the quote `\(quote)` is never closed",
            range: SourceRange(start: start, length: quote.count), hint: "close it, or escape it with `\\`")
    }

    private func substitution(at start: SourceLocation, _ what: String) -> ShellError {
        ShellError(
            code: .importShellConstruct,
            message: "a command substitution (\(what)) gives a value only a shell can work out",
            range: SourceRange(start: start, length: what.hasPrefix("$") ? 2 : 1),
            hint: "write its value, or a variable `$NAME` (which becomes an input)")
    }

    private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9")
    }

    /// A shell variable name: `[A-Za-z_][A-Za-z0-9_]*`.
    static func isName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first,
            first == "_" || (isLetterOrDigit(first) && !(first >= "0" && first <= "9"))
        else { return false }
        return text.unicodeScalars.allSatisfy { $0 == "_" || isLetterOrDigit($0) }
    }
}
