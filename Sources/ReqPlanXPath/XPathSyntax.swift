import ReqPlanSyntax

/// Why a text is not an XPath expression reqplan can evaluate, and where.
public struct XPathError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The position of the problem in the expression, from 1, in characters.
    public var position: Int

    public var description: String { "\(message) at character \(position)" }
}

/// The types of XPath 1.0 values. Every expression's type is known before it runs.
enum XPathType: String, Sendable {
    case nodeSet = "a node-set"
    case string = "a string"
    case number = "a number"
    case boolean = "a boolean"
}

/// A compiled XPath 1.0 expression.
indirect enum XPathExpression: Sendable {
    case binary(XPathOperator, XPathExpression, XPathExpression)
    case negate(XPathExpression)
    case literal(String)
    case number(Double)
    case call(XPathFunction, [XPathExpression])
    /// A primary expression with predicates: `(//a)[1]`.
    case filter(XPathExpression, [XPathExpression])
    /// A location path: from a node-set expression (`id(…)/a`, `(//a)/b`), from the root (`/a`) or
    /// from the context node (`a/b`).
    case path(start: PathStart, steps: [XPathStep])

    enum PathStart: Sendable {
        case root, context
        case expression(XPathExpression)
    }

    /// The type of the expression's value.
    var type: XPathType {
        switch self {
        case .binary(let op, _, _): op.resultType
        case .negate, .number: .number
        case .literal: .string
        case .call(let function, _): function.resultType
        case .filter(let primary, let predicates): predicates.isEmpty ? primary.type : .nodeSet
        case .path: .nodeSet
        }
    }
}

/// The binary operators, loosest first.
enum XPathOperator: String, Sendable {
    case or, and
    case equal = "=", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case plus = "+", minus = "-", times = "*", div, mod
    case union = "|"

    var resultType: XPathType {
        switch self {
        case .or, .and, .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: .boolean
        case .plus, .minus, .times, .div, .mod: .number
        case .union: .nodeSet
        }
    }
}

/// One step of a location path: `axis::test[predicate]…`.
struct XPathStep: Sendable {
    var axis: XPathAxis
    var test: XPathNodeTest
    var predicates: [XPathExpression]
}

/// The axes of XPath 1.0 (the namespace axis is not supported).
enum XPathAxis: String, Sendable, CaseIterable {
    case child, descendant, parent, ancestor, attribute, `self`
    case descendantOrSelf = "descendant-or-self", ancestorOrSelf = "ancestor-or-self"
    case followingSibling = "following-sibling", precedingSibling = "preceding-sibling"
    case following, preceding

    /// Whether proximity positions count backwards in document order.
    var isReverse: Bool {
        switch self {
        case .parent, .ancestor, .ancestorOrSelf, .precedingSibling, .preceding: true
        default: false
        }
    }
}

/// What a step keeps of the nodes on its axis.
enum XPathNodeTest: Sendable {
    /// `*`: every node of the axis's principal type (attributes on the attribute axis, else elements).
    case anyName
    /// `p:*`: names with that prefix, as written.
    case prefix(String)
    /// `name` or `p:name`: that name, as written.
    case name(String)
    case node, text, comment
    case processingInstruction(String?)

    /// The test with its names in lower case, as HTML's are read.
    var lowercased: XPathNodeTest {
        switch self {
        case .prefix(let prefix): .prefix(prefix.lowercased())
        case .name(let name): .name(name.lowercased())
        default: self
        }
    }
}

/// The functions of the XPath 1.0 core library (`id()` excepted: it needs a DTD).
enum XPathFunction: String, Sendable, CaseIterable {
    case last, position, count, localName = "local-name", namespaceURI = "namespace-uri", name
    case string, concat, startsWith = "starts-with", contains, substringBefore = "substring-before"
    case substringAfter = "substring-after", substring, stringLength = "string-length"
    case normalizeSpace = "normalize-space", translate
    case boolean, not, `true`, `false`, lang
    case number, sum, floor, ceiling, round

    /// How many arguments it takes.
    var arity: ClosedRange<Int> {
        switch self {
        case .last, .position, .true, .false: 0...0
        case .count, .boolean, .not, .lang, .sum, .floor, .ceiling, .round: 1...1
        case .localName, .namespaceURI, .name, .string, .stringLength, .normalizeSpace, .number: 0...1
        case .concat: 2...Int.max
        case .startsWith, .contains, .substringBefore, .substringAfter: 2...2
        case .substring: 2...3
        case .translate: 3...3
        }
    }

    /// Whether its arguments must be node-sets.
    var takesNodeSets: Bool {
        switch self {
        case .count, .sum, .localName, .namespaceURI, .name: true
        default: false
        }
    }

    var resultType: XPathType {
        switch self {
        case .last, .position, .count, .stringLength, .number, .sum, .floor, .ceiling, .round: .number
        case .boolean, .not, .true, .false, .lang, .startsWith, .contains: .boolean
        default: .string
        }
    }
}

// MARK: - Lexer

/// The tokens of XPath 1.0 (§3.7), with its rules for telling `*` and names apart.
struct XPathLexer {
    enum Token: Equatable {
        case symbol(String)
        case multiply
        case nameTest(XPathNameTest)
        case nodeType(String)
        case operatorName(String)
        case functionName(String)
        case axisName(String)
        case literal(String)
        case number(Double)
        case end
    }

    enum XPathNameTest: Equatable {
        case any, prefix(String), name(String)
    }

    /// A token and where it starts (0-based, in scalars).
    struct Lexed {
        var token: Token
        var start: Int
    }

    static func tokens(_ text: String) throws(XPathError) -> [Lexed] {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var result: [Lexed] = []

        func fail(_ message: String, at position: Int) -> XPathError {
            XPathError(message: message, position: position + 1)
        }
        func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_" || scalar.value >= 0x80
        }
        func isNameChar(_ scalar: Unicode.Scalar) -> Bool {
            isNameStart(scalar) || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "."
        }
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
        }
        func nextNonSpace(from position: Int) -> Int {
            var position = position
            while position < scalars.count, isSpace(scalars[position]) { position += 1 }
            return position
        }
        func ncName(from position: Int) -> (String, Int) {
            var end = position
            while end < scalars.count, isNameChar(scalars[end]) { end += 1 }
            var name = ""
            name.unicodeScalars.append(contentsOf: scalars[position..<end])
            return (name, end)
        }
        /// Whether the token before can be followed by an operand (so `*` is a name test and a name a name).
        func operandExpected() -> Bool {
            guard let previous = result.last?.token else { return true }
            switch previous {
            case .symbol(let symbol):
                return ["@", "::", "(", "[", ",", "/", "//", "|", "+", "-", "=", "!=", "<", "<=", ">", ">="].contains(
                    symbol)
            case .operatorName, .multiply: return true
            default: return false
            }
        }

        while true {
            index = nextNonSpace(from: index)
            guard index < scalars.count else { break }
            let start = index
            let scalar = scalars[index]
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            switch scalar {
            case "(", ")", "[", "]", ",", "@", "|", "+", "-", "=":
                result.append(Lexed(token: .symbol(String(scalar)), start: start))
                index += 1
            case ".":
                if next == "." {
                    result.append(Lexed(token: .symbol(".."), start: start))
                    index += 2
                } else if let next, ("0"..."9").contains(next) {
                    let (number, end) = try lexNumber(scalars, from: index, fail: fail)
                    result.append(Lexed(token: .number(number), start: start))
                    index = end
                } else {
                    result.append(Lexed(token: .symbol("."), start: start))
                    index += 1
                }
            case "/":
                let double = next == "/"
                result.append(Lexed(token: .symbol(double ? "//" : "/"), start: start))
                index += double ? 2 : 1
            case "!":
                guard next == "=" else { throw fail("`!` is not an XPath operator (use `not(…)` or `!=`)", at: start) }
                result.append(Lexed(token: .symbol("!="), start: start))
                index += 2
            case "<", ">":
                let orEqual = next == "="
                result.append(Lexed(token: .symbol(String(scalar) + (orEqual ? "=" : "")), start: start))
                index += orEqual ? 2 : 1
            case ":":
                guard next == ":" else { throw fail("unexpected `:`", at: start) }
                result.append(Lexed(token: .symbol("::"), start: start))
                index += 2
            case "*":
                result.append(Lexed(token: operandExpected() ? .nameTest(.any) : .multiply, start: start))
                index += 1
            case "\"", "'":
                var end = index + 1
                while end < scalars.count, scalars[end] != scalar { end += 1 }
                guard end < scalars.count else { throw fail("the string is not closed by \(scalar)", at: start) }
                var text = ""
                text.unicodeScalars.append(contentsOf: scalars[(index + 1)..<end])
                result.append(Lexed(token: .literal(text), start: start))
                index = end + 1
            case "$":
                let name = ncName(from: index + 1).0
                guard !name.isEmpty else { throw fail("expected a variable name after `$`", at: start) }
                throw fail("variables (`$\(name)`) are not supported: write the value into the expression", at: start)
            case "0"..."9":
                let (number, end) = try lexNumber(scalars, from: index, fail: fail)
                result.append(Lexed(token: .number(number), start: start))
                index = end
            default:
                guard isNameStart(scalar) else { throw fail("unexpected character `\(scalar)`", at: start) }
                let (name, end) = ncName(from: index)
                index = end
                if !operandExpected() {
                    guard ["and", "or", "mod", "div"].contains(name) else {
                        throw fail("expected an operator (`and`, `or`, `=`, `|`, …), found `\(name)`", at: start)
                    }
                    result.append(Lexed(token: .operatorName(name), start: start))
                    continue
                }
                // `prefix:*` and `prefix:local`.
                if index + 1 < scalars.count, scalars[index] == ":", scalars[index + 1] != ":" {
                    if scalars[index + 1] == "*" {
                        result.append(Lexed(token: .nameTest(.prefix(name)), start: start))
                        index += 2
                        continue
                    }
                    let (local, localEnd) = ncName(from: index + 1)
                    guard !local.isEmpty else { throw fail("expected a name after `\(name):`", at: index + 1) }
                    index = localEnd
                    let qualified = name + ":" + local
                    if nextNonSpace(from: index) < scalars.count, scalars[nextNonSpace(from: index)] == "(" {
                        result.append(Lexed(token: .functionName(qualified), start: start))
                    } else {
                        result.append(Lexed(token: .nameTest(.name(qualified)), start: start))
                    }
                    continue
                }
                let after = nextNonSpace(from: index)
                if after < scalars.count, scalars[after] == "(" {
                    let isNodeType = ["comment", "text", "processing-instruction", "node"].contains(name)
                    result.append(Lexed(token: isNodeType ? .nodeType(name) : .functionName(name), start: start))
                } else if after + 1 < scalars.count, scalars[after] == ":", scalars[after + 1] == ":" {
                    result.append(Lexed(token: .axisName(name), start: start))
                } else {
                    result.append(Lexed(token: .nameTest(.name(name)), start: start))
                }
            }
        }
        result.append(Lexed(token: .end, start: scalars.count))
        return result
    }

    private static func lexNumber(
        _ scalars: [Unicode.Scalar], from start: Int, fail: (String, Int) -> XPathError
    ) throws(XPathError) -> (Double, Int) {
        var end = start
        while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
        if end < scalars.count, scalars[end] == "." {
            end += 1
            while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars[start..<end])
        guard let value = Double(text.hasPrefix(".") ? "0" + text : text) else { throw fail("invalid number", start) }
        return (value, end)
    }
}

// MARK: - Parser

/// Parses XPath 1.0 (§2, §3) and checks its types, so that evaluation cannot fail.
struct XPathParser {
    private var tokens: [XPathLexer.Lexed]
    private var position = 0
    private var depth = 0
    private static let maxDepth = 64
    /// How many binary operators (`|` among them) the expression has so far.
    private var operators = 0
    /// The most binary operators an expression may have: a chain of them (`a or b or …`) is a tree as deep
    /// as it is long, which evaluating and freeing would otherwise walk by recursion.
    static let maxOperators = 1_024

    static func parse(_ text: String) throws(XPathError) -> XPathExpression {
        var parser = XPathParser(tokens: try XPathLexer.tokens(text))
        guard parser.peek != .end else { throw XPathError(message: "the expression is empty", position: 1) }
        let expression = try parser.expression()
        guard parser.peek == .end else {
            throw parser.fail("unexpected \(parser.describe(parser.peek)) after the expression")
        }
        return expression
    }

    private init(tokens: [XPathLexer.Lexed]) {
        self.tokens = tokens
    }

    private var peek: XPathLexer.Token { tokens[position].token }
    private var start: Int { tokens[position].start }

    private func fail(_ message: String, at start: Int? = nil) -> XPathError {
        XPathError(message: message, position: (start ?? self.start) + 1)
    }

    private func describe(_ token: XPathLexer.Token) -> String {
        switch token {
        case .symbol(let symbol): "`\(symbol)`"
        case .multiply: "`*`"
        case .nameTest(.any): "`*`"
        case .nameTest(.prefix(let prefix)): "`\(prefix):*`"
        case .nameTest(.name(let name)), .nodeType(let name), .operatorName(let name), .functionName(let name),
            .axisName(let name):
            "`\(name)`"
        case .literal(let text): "the string '\(text)'"
        case .number: "a number"
        case .end: "the end of the expression"
        }
    }

    private mutating func advance() -> XPathLexer.Lexed {
        let token = tokens[position]
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    private mutating func accept(_ symbol: String) -> Bool {
        guard peek == .symbol(symbol) else { return false }
        position += 1
        return true
    }

    private mutating func expect(_ symbol: String, _ context: String) throws(XPathError) {
        guard accept(symbol) else { throw fail("expected `\(symbol)` \(context), found \(describe(peek))") }
    }

    private func requireNodeSet(_ expression: XPathExpression, at start: Int, _ what: String) throws(XPathError) {
        guard expression.type == .nodeSet else {
            throw fail("\(what) needs a node-set, found \(expression.type.rawValue)", at: start)
        }
    }

    // MARK: Operators

    private mutating func expression() throws(XPathError) -> XPathExpression {
        depth += 1
        defer { depth -= 1 }
        guard depth <= XPathParser.maxDepth else { throw fail("the expression is nested too deeply") }
        return try binary(level: 0)
    }

    private mutating func countOperator() throws(XPathError) {
        operators += 1
        guard operators <= XPathParser.maxOperators else {
            throw fail("the expression has more than \(XPathParser.maxOperators) operators")
        }
    }

    private static let levels: [[(XPathLexer.Token, XPathOperator)]] = [
        [(.operatorName("or"), .or)],
        [(.operatorName("and"), .and)],
        [(.symbol("="), .equal), (.symbol("!="), .notEqual)],
        [
            (.symbol("<"), .less), (.symbol("<="), .lessOrEqual), (.symbol(">"), .greater),
            (.symbol(">="), .greaterOrEqual),
        ],
        [(.symbol("+"), .plus), (.symbol("-"), .minus)],
        [(.multiply, .times), (.operatorName("div"), .div), (.operatorName("mod"), .mod)],
    ]

    private mutating func binary(level: Int) throws(XPathError) -> XPathExpression {
        guard level < XPathParser.levels.count else { return try unary() }
        var left = try binary(level: level + 1)
        while let op = XPathParser.levels[level].first(where: { $0.0 == peek })?.1 {
            try countOperator()
            _ = advance()
            left = .binary(op, left, try binary(level: level + 1))
        }
        return left
    }

    private mutating func unary() throws(XPathError) -> XPathExpression {
        if accept("-") {
            depth += 1
            defer { depth -= 1 }
            guard depth <= XPathParser.maxDepth else { throw fail("the expression is nested too deeply") }
            return .negate(try unary())
        }
        let unionStart = start
        var left = try pathExpression()
        while peek == .symbol("|") {
            try requireNodeSet(left, at: unionStart, "`|`")
            try countOperator()
            _ = advance()
            let rightStart = start
            let right = try pathExpression()
            try requireNodeSet(right, at: rightStart, "`|`")
            left = .binary(.union, left, right)
        }
        return left
    }

    // MARK: Paths

    private var startsLocationPath: Bool {
        switch peek {
        case .symbol("/"), .symbol("//"), .symbol("."), .symbol(".."), .symbol("@"), .nameTest, .nodeType, .axisName:
            true
        default: false
        }
    }

    private mutating func pathExpression() throws(XPathError) -> XPathExpression {
        if startsLocationPath {
            if accept("/") {
                // `/` alone is the root; otherwise a relative path follows.
                guard startsStep else { return .path(start: .root, steps: []) }
                return .path(start: .root, steps: try relativePath())
            }
            if accept("//") {
                return .path(start: .root, steps: [XPathParser.descendantOrSelf] + (try relativePath()))
            }
            return .path(start: .context, steps: try relativePath())
        }
        let filterStart = start
        let primary = try primaryExpression()
        var predicates: [XPathExpression] = []
        while peek == .symbol("[") {
            try requireNodeSet(primary, at: filterStart, "a predicate")
            predicates.append(try predicate())
        }
        let filter: XPathExpression = predicates.isEmpty ? primary : .filter(primary, predicates)
        if peek == .symbol("/") || peek == .symbol("//") {
            try requireNodeSet(filter, at: filterStart, "a path")
            var steps: [XPathStep] = []
            while true {
                if accept("/") {
                    steps += [try step()]
                } else if accept("//") {
                    steps += [XPathParser.descendantOrSelf, try step()]
                } else {
                    break
                }
            }
            return .path(start: .expression(filter), steps: steps)
        }
        return filter
    }

    private static let descendantOrSelf = XPathStep(axis: .descendantOrSelf, test: .node, predicates: [])

    private var startsStep: Bool {
        switch peek {
        case .symbol("."), .symbol(".."), .symbol("@"), .nameTest, .nodeType, .axisName: true
        default: false
        }
    }

    private mutating func relativePath() throws(XPathError) -> [XPathStep] {
        var steps = [try step()]
        while true {
            if accept("/") {
                steps.append(try step())
            } else if accept("//") {
                steps += [XPathParser.descendantOrSelf, try step()]
            } else {
                return steps
            }
        }
    }

    private mutating func step() throws(XPathError) -> XPathStep {
        if accept(".") { return XPathStep(axis: .self, test: .node, predicates: []) }
        if accept("..") { return XPathStep(axis: .parent, test: .node, predicates: []) }
        var axis = XPathAxis.child
        if accept("@") {
            axis = .attribute
        } else if case .axisName(let name) = peek {
            let axisStart = start
            guard let known = XPathAxis(rawValue: name) else {
                if name == "namespace" { throw fail("the namespace axis is not supported", at: axisStart) }
                throw fail(
                    "unknown axis `\(name)`"
                        + (Suggestion.didYouMean(name, in: XPathAxis.allCases.map(\.rawValue))
                            .map { "; \($0)" } ?? ""),
                    at: axisStart)
            }
            axis = known
            _ = advance()
            try expect("::", "after the axis")
        }
        let test: XPathNodeTest
        let lexed = advance()
        switch lexed.token {
        case .nameTest(.any): test = .anyName
        case .nameTest(.prefix(let prefix)): test = .prefix(prefix)
        case .nameTest(.name(let name)): test = .name(name)
        case .nodeType(let type):
            try expect("(", "after `\(type)`")
            var target: String?
            if type == "processing-instruction", case .literal(let text) = peek {
                target = text
                _ = advance()
            }
            try expect(")", "closing `\(type)(`")
            switch type {
            case "comment": test = .comment
            case "text": test = .text
            case "node": test = .node
            default: test = .processingInstruction(target)
            }
        case let other:
            throw fail(
                "expected a step (a name, `*`, `text()`, `node()`, `.` or `..`), found \(describe(other))",
                at: lexed.start)
        }
        var predicates: [XPathExpression] = []
        while peek == .symbol("[") { predicates.append(try predicate()) }
        return XPathStep(axis: axis, test: test, predicates: predicates)
    }

    private mutating func predicate() throws(XPathError) -> XPathExpression {
        try expect("[", "starting a predicate")
        guard peek != .symbol("]") else { throw fail("the predicate `[]` is empty") }
        let expression = try self.expression()
        try expect("]", "closing the predicate")
        return expression
    }

    // MARK: Primaries

    private mutating func primaryExpression() throws(XPathError) -> XPathExpression {
        let lexed = advance()
        switch lexed.token {
        case .literal(let text): return .literal(text)
        case .number(let value): return .number(value)
        case .symbol("("):
            let inner = try expression()
            try expect(")", "closing `(`")
            return inner
        case .functionName(let name):
            guard let function = XPathFunction(rawValue: name) else {
                if name == "id" { throw fail("`id()` is not supported (it needs the document's DTD)", at: lexed.start) }
                let hint =
                    Suggestion.didYouMean(name, in: XPathFunction.allCases.map(\.rawValue)).map { "; \($0)" } ?? ""
                throw fail("unknown function `\(name)()`\(hint)", at: lexed.start)
            }
            try expect("(", "after `\(name)`")
            var arguments: [(XPathExpression, Int)] = []
            if peek != .symbol(")") {
                repeat {
                    let argumentStart = start
                    arguments.append((try expression(), argumentStart))
                } while accept(",")
            }
            try expect(")", "closing the arguments of `\(name)()`")
            let arity = function.arity
            guard arity.contains(arguments.count) else {
                let expected =
                    arity.upperBound == Int.max
                    ? "at least \(arity.lowerBound)"
                    : arity.count == 1 ? "\(arity.lowerBound)" : "\(arity.lowerBound) or \(arity.upperBound)"
                throw fail(
                    "`\(name)()` takes \(expected) argument\(expected == "1" ? "" : "s"), found \(arguments.count)",
                    at: lexed.start)
            }
            if function.takesNodeSets {
                for (argument, argumentStart) in arguments {
                    try requireNodeSet(argument, at: argumentStart, "`\(name)()`")
                }
            }
            return .call(function, arguments.map(\.0))
        case let other:
            throw fail("expected a path, a value or a function call, found \(describe(other))", at: lexed.start)
        }
    }
}
