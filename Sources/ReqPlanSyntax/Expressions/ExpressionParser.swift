/// Parses the `${{ }}` language by precedence climbing.
///
/// Positions are offsets into the text; `locate` turns an offset into a source
/// location so every node of the tree carries its exact range in the plan file.
struct ExpressionParser {
    private var lexer: ExpressionLexer
    private var token: ExpressionToken
    private let locate: (Int) -> SourceLocation
    /// Whether the expression ends at `}}` (inside `${{ }}`) or at the end of the text (bare `if:`).
    private let closedByBraces: Bool
    private var depth = 0
    private static let maxDepth = 64

    init(scalars: [Unicode.Scalar], start: Int, closedByBraces: Bool, locate: @escaping (Int) -> SourceLocation)
        throws(ExpressionSyntaxError)
    {
        self.lexer = ExpressionLexer(scalars: scalars, start: start)
        self.closedByBraces = closedByBraces
        self.locate = locate
        self.token = ExpressionToken(kind: .end, start: start, end: start)
        self.token = try lexer.next()
    }

    /// Parses one whole expression and the `}}` (or end of text) after it.
    /// - Returns: the expression and the offset just past it (past `}}` when closed by braces).
    mutating func parseComplete() throws(ExpressionSyntaxError) -> (Expression, end: Int) {
        if token.kind == .close || token.kind == .end {
            throw ExpressionSyntaxError(message: "empty expression", start: token.start, end: token.end + 1, hint: nil)
        }
        let expression = try parseOr()
        switch token.kind {
        case .close where closedByBraces:
            return (expression, token.end)
        case .end where !closedByBraces:
            return (expression, token.end)
        case .end:
            throw ExpressionSyntaxError(
                message: "expected `}}` to close the expression", start: token.start,
                end: token.start + 1, hint: nil)
        default:
            throw unexpected(expecting: closedByBraces ? "`}}` or an operator" : "an operator or the end")
        }
    }

    private func range(_ start: Int, _ end: Int) -> SourceRange {
        SourceRange(start: locate(start), end: locate(end))
    }

    private func describe(_ token: ExpressionToken) -> String {
        switch token.kind {
        case .name(let name): "`\(name)`"
        case .integer(let value): "`\(value)`"
        case .double(let value): "`\(value)`"
        case .string: "a string"
        case .symbol(let symbol): "`\(symbol)`"
        case .close: "`}}`"
        case .end: "the end of the expression"
        }
    }

    private func unexpected(expecting: String) -> ExpressionSyntaxError {
        ExpressionSyntaxError(
            message: "expected \(expecting), found \(describe(token))", start: token.start,
            end: max(token.end, token.start + 1), hint: nil)
    }

    private mutating func advance() throws(ExpressionSyntaxError) {
        token = try lexer.next()
    }

    private func isSymbol(_ symbol: String) -> Bool {
        token.kind == .symbol(symbol)
    }

    private mutating func binary(
        _ operators: [BinaryOperator], next: (inout ExpressionParser) throws(ExpressionSyntaxError) -> Expression
    ) throws(ExpressionSyntaxError) -> Expression {
        var left = try next(&self)
        while case .symbol(let symbol) = token.kind, let op = operators.first(where: { $0.rawValue == symbol }) {
            try advance()
            if token.kind == .close || token.kind == .end {
                throw ExpressionSyntaxError(
                    message: "expected an expression after `\(symbol)`", start: token.start,
                    end: token.start + 1, hint: nil)
            }
            let right = try next(&self)
            left = .binary(op, left, right, SourceRange(start: left.range.start, end: right.range.end))
        }
        return left
    }

    private mutating func parseOr() throws(ExpressionSyntaxError) -> Expression {
        try binary([.or]) { parser throws(ExpressionSyntaxError) in try parser.parseAnd() }
    }

    private mutating func parseAnd() throws(ExpressionSyntaxError) -> Expression {
        try binary([.and]) { parser throws(ExpressionSyntaxError) in try parser.parseEquality() }
    }

    private mutating func parseEquality() throws(ExpressionSyntaxError) -> Expression {
        try binary([.equal, .notEqual]) { parser throws(ExpressionSyntaxError) in try parser.parseComparison() }
    }

    private mutating func parseComparison() throws(ExpressionSyntaxError) -> Expression {
        try binary([.less, .lessOrEqual, .greater, .greaterOrEqual]) { parser throws(ExpressionSyntaxError) in
            try parser.parseUnary()
        }
    }

    private mutating func parseUnary() throws(ExpressionSyntaxError) -> Expression {
        if isSymbol("!") {
            let start = token.start
            try advance()
            try enter(at: start)
            defer { depth -= 1 }
            let operand = try parseUnary()
            return .not(operand, SourceRange(start: locate(start), end: operand.range.end))
        }
        return try parsePostfix()
    }

    private mutating func enter(at offset: Int) throws(ExpressionSyntaxError) {
        depth += 1
        if depth > ExpressionParser.maxDepth {
            throw ExpressionSyntaxError(
                message: "expression nested too deeply", start: offset, end: offset + 1,
                hint: "at most \(ExpressionParser.maxDepth) levels")
        }
    }

    private mutating func parsePostfix() throws(ExpressionSyntaxError) -> Expression {
        var expression = try parsePrimary()
        while true {
            if isSymbol(".") {
                try advance()
                guard case .name(let name) = token.kind else {
                    throw unexpected(expecting: "a name after `.`")
                }
                let component = Located(PathComponent.member(name), at: range(token.start, token.end))
                expression = .access(
                    expression, component,
                    SourceRange(
                        start: expression.range.start,
                        end: locate(token.end)))
                try advance()
            } else if isSymbol("[") {
                let open = token.start
                try advance()
                let component: PathComponent
                switch token.kind {
                case .integer(let index): component = .index(index)
                case .string(let key): component = .member(key)
                case .symbol("*"): component = .wildcard
                default:
                    throw unexpected(expecting: "an index, a quoted key or `*` inside `[ ]`")
                }
                try advance()
                guard isSymbol("]") else { throw unexpected(expecting: "`]`") }
                let located = Located(component, at: range(open, token.end))
                expression = .access(
                    expression, located,
                    SourceRange(
                        start: expression.range.start,
                        end: locate(token.end)))
                try advance()
            } else {
                return expression
            }
        }
    }

    private mutating func parsePrimary() throws(ExpressionSyntaxError) -> Expression {
        let start = token.start
        switch token.kind {
        case .integer(let value):
            let end = token.end
            try advance()
            return .literal(.int(value), range(start, end))
        case .double(let value):
            let end = token.end
            try advance()
            return .literal(.double(value), range(start, end))
        case .string(let value):
            let end = token.end
            try advance()
            return .literal(.string(value), range(start, end))
        case .name(let name):
            let end = token.end
            try advance()
            switch name {
            case "true": return .literal(.bool(true), range(start, end))
            case "false": return .literal(.bool(false), range(start, end))
            case "null": return .literal(.null, range(start, end))
            default: break
            }
            let located = Located(name, at: range(start, end))
            guard isSymbol("(") else { return .variable(located) }
            try advance()
            try enter(at: start)
            defer { depth -= 1 }
            var arguments: [Expression] = []
            if !isSymbol(")") {
                while true {
                    arguments.append(try parseOr())
                    if isSymbol(",") {
                        try advance()
                        continue
                    }
                    break
                }
            }
            guard isSymbol(")") else { throw unexpected(expecting: "`,` or `)` in the call of `\(name)`") }
            let close = token.end
            try advance()
            return .call(located, arguments, range(start, close))
        case .symbol("("):
            try advance()
            try enter(at: start)
            defer { depth -= 1 }
            let inner = try parseOr()
            guard isSymbol(")") else { throw unexpected(expecting: "`)`") }
            try advance()
            return inner
        case .close, .end:
            throw ExpressionSyntaxError(
                message: "expected a value, found \(describe(token))", start: token.start,
                end: token.start + 1, hint: nil)
        default:
            throw unexpected(expecting: "a value (a name, a literal or `(`)")
        }
    }
}
