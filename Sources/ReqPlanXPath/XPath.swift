import Foundation
import ReqPlanSyntax

/// An XPath 1.0 expression, compiled and type-checked, that `xpath(text, expression)` evaluates on
/// an XML or HTML document.
///
/// Everything of XPath 1.0 is supported but variables, the namespace axis and `id()`. Names are
/// compared as written in the document (reqplan has no way to bind namespace prefixes): `a` matches
/// elements written `<a>` whatever their default namespace, `p:a` those written `<p:a>`. Every type
/// error is found when the expression is compiled, so evaluating a compiled expression cannot fail.
public struct XPath: Sendable {
    /// The expression as written.
    public let text: String
    let expression: XPathExpression

    /// Compiles `text`.
    /// - Throws: `XPathError` with the position of the first problem.
    public static func compile(_ text: String) throws(XPathError) -> XPath {
        XPath(text: text, expression: try XPathParser.parse(text))
    }

    /// The value of the expression on `document`, as the language's values: a node-set is the list
    /// of its nodes' string-values in document order (empty when nothing matches); a string, a
    /// boolean and a number are themselves (a whole number is an integer; NaN and infinities are null).
    /// - Throws: `XMLReadError` when `document` is not well-formed XML (HTML is read leniently).
    public func evaluate(onDocument document: String) throws(XMLReadError) -> Value {
        let tree = try XMLReader.read(document)
        let evaluator = XPathEvaluator(tree: tree)
        switch evaluator.evaluate(expression, XPathEvaluator.Context(node: 0, position: 1, size: 1)) {
        case .nodes(let nodes): return .list(nodes.map { .string(tree.stringValue($0)) })
        case .string(let text): return .string(text)
        case .boolean(let flag): return .bool(flag)
        case .number(let number):
            guard number.isFinite else { return .null }
            if number == number.rounded(), abs(number) < 9_007_199_254_740_992 { return .int(Int(number)) }
            return .double(number)
        }
    }
}

/// Evaluates compiled expressions on one document (XPath 1.0 §2–§4).
struct XPathEvaluator {
    let tree: XMLTree

    /// The context of an evaluation: a node, its position (from 1) and the context size.
    struct Context {
        var node: Int
        var position: Int
        var size: Int
    }

    /// An XPath value. Node-sets are sorted node indices, so in document order.
    enum Object {
        case nodes([Int])
        case string(String)
        case number(Double)
        case boolean(Bool)
    }

    func evaluate(_ expression: XPathExpression, _ context: Context) -> Object {
        switch expression {
        case .literal(let text): return .string(text)
        case .number(let value): return .number(value)
        case .negate(let operand): return .number(-number(evaluate(operand, context)))
        case .call(let function, let arguments): return call(function, arguments, context)
        case .filter(let primary, let predicates):
            return .nodes(filter(nodes(evaluate(primary, context)), by: predicates, reverse: false))
        case .path(let start, let steps):
            var current: [Int]
            switch start {
            case .root: current = [0]
            case .context: current = [context.node]
            case .expression(let expression): current = nodes(evaluate(expression, context))
            }
            for step in steps {
                var next: [Int] = []
                for node in current { next += apply(step, to: node) }
                current = Self.documentOrder(next)
            }
            return .nodes(current)
        case .binary(let op, let left, let right):
            switch op {
            case .or: return .boolean(boolean(evaluate(left, context)) || boolean(evaluate(right, context)))
            case .and: return .boolean(boolean(evaluate(left, context)) && boolean(evaluate(right, context)))
            case .union:
                return .nodes(Self.documentOrder(nodes(evaluate(left, context)) + nodes(evaluate(right, context))))
            case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
                return .boolean(compare(op, evaluate(left, context), evaluate(right, context)))
            case .plus, .minus, .times, .div, .mod:
                let a = number(evaluate(left, context))
                let b = number(evaluate(right, context))
                switch op {
                case .plus: return .number(a + b)
                case .minus: return .number(a - b)
                case .times: return .number(a * b)
                case .div: return .number(a / b)
                default: return .number(a.truncatingRemainder(dividingBy: b))
                }
            }
        }
    }

    private static func documentOrder(_ nodes: [Int]) -> [Int] {
        var seen = Set<Int>()
        return nodes.filter { seen.insert($0).inserted }.sorted()
    }

    // MARK: Steps

    private func apply(_ step: XPathStep, to node: Int) -> [Int] {
        let candidates = axis(step.axis, of: node).filter { matches(step.test, $0, axis: step.axis) }
        return filter(candidates, by: step.predicates, reverse: step.axis.isReverse)
    }

    /// Keeps the nodes for which every predicate holds; positions count along the axis (`candidates`
    /// is in axis order: reverse document order for a reverse axis).
    private func filter(_ candidates: [Int], by predicates: [XPathExpression], reverse: Bool) -> [Int] {
        var current = candidates
        for predicate in predicates {
            let size = current.count
            current = current.enumerated().filter { position, node in
                let value = evaluate(predicate, Context(node: node, position: position + 1, size: size))
                if case .number(let number) = value { return number == Double(position + 1) }
                return boolean(value)
            }.map(\.element)
        }
        return current
    }

    /// The nodes on `axis` from `node`, in proximity order (document order, reversed for reverse axes).
    private func axis(_ axis: XPathAxis, of node: Int) -> [Int] {
        let current = tree[node]
        switch axis {
        case .self: return [node]
        case .child: return current.children
        case .attribute:
            return current.attributes.filter { tree[$0].name != "xmlns" && !tree[$0].name.hasPrefix("xmlns:") }
        case .parent: return current.parent >= 0 ? [current.parent] : []
        case .ancestor, .ancestorOrSelf:
            var result = axis == .ancestorOrSelf ? [node] : []
            var parent = current.parent
            while parent >= 0 {
                result.append(parent)
                parent = tree[parent].parent
            }
            return result
        case .descendant, .descendantOrSelf:
            var result = axis == .descendantOrSelf ? [node] : []
            guard current.kind != .attribute, current.last > node else { return result }
            for index in (node + 1)...current.last where tree[index].kind != .attribute { result.append(index) }
            return result
        case .followingSibling, .precedingSibling:
            guard current.kind != .attribute, current.parent >= 0 else { return [] }
            let siblings = tree[current.parent].children
            guard let position = siblings.firstIndex(of: node) else { return [] }
            return axis == .followingSibling ? Array(siblings[(position + 1)...]) : siblings[..<position].reversed()
        case .following:
            let after = current.last + 1
            guard after < tree.nodes.count else { return [] }
            return (after..<tree.nodes.count).filter { tree[$0].kind != .attribute }
        case .preceding:
            var ancestors = Set<Int>()
            var parent = current.parent
            while parent >= 0 {
                ancestors.insert(parent)
                parent = tree[parent].parent
            }
            return (0..<node).reversed().filter { tree[$0].kind != .attribute && !ancestors.contains($0) }
        }
    }

    private func matches(_ test: XPathNodeTest, _ index: Int, axis: XPathAxis) -> Bool {
        let node = tree[index]
        let principal: XMLTree.Kind = axis == .attribute ? .attribute : .element
        switch test {
        case .node: return true
        case .text: return node.kind == .text
        case .comment: return node.kind == .comment
        case .processingInstruction(let target):
            return node.kind == .processingInstruction && (target == nil || node.name == target)
        case .anyName: return node.kind == principal
        case .prefix(let prefix):
            return node.kind == principal && node.name.hasPrefix((tree.isHTML ? prefix.lowercased() : prefix) + ":")
        case .name(let name): return node.kind == principal && node.name == (tree.isHTML ? name.lowercased() : name)
        }
    }

    // MARK: Conversions (§4)

    private func nodes(_ object: Object) -> [Int] {
        if case .nodes(let nodes) = object { return nodes }
        return []  // the parser lets only node-sets reach here
    }

    func string(_ object: Object) -> String {
        switch object {
        case .nodes(let nodes): return nodes.first.map(tree.stringValue) ?? ""
        case .string(let text): return text
        case .boolean(let flag): return flag ? "true" : "false"
        case .number(let number): return Self.format(number)
        }
    }

    func number(_ object: Object) -> Double {
        switch object {
        case .number(let number): return number
        case .boolean(let flag): return flag ? 1 : 0
        case .string(let text): return Self.number(text)
        case .nodes: return Self.number(string(object))
        }
    }

    func boolean(_ object: Object) -> Bool {
        switch object {
        case .boolean(let flag): return flag
        case .number(let number): return number != 0 && !number.isNaN
        case .string(let text): return !text.isEmpty
        case .nodes(let nodes): return !nodes.isEmpty
        }
    }

    /// `number()` of a string: optional spaces, an optional `-`, digits with an optional `.`; NaN otherwise.
    static func number(_ text: String) -> Double {
        var body = Substring(text.trimmingCharacters(in: .init(charactersIn: " \t\n\r")))
        let negative = body.hasPrefix("-")
        if negative { body = body.dropFirst() }
        guard !body.isEmpty, body != ".", body.count(where: { $0 == "." }) <= 1,
            body.allSatisfy({ $0 == "." || ("0"..."9").contains($0) }),
            let value = Double("0" + body + (body.hasSuffix(".") ? "0" : ""))
        else { return .nan }
        return negative ? -value : value
    }

    /// A number as XPath writes it: `NaN`, `Infinity`, an integer without a fraction, or a decimal without exponent.
    static func format(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number > 0 ? "Infinity" : "-Infinity" }
        if number == number.rounded(), abs(number) < 1e18 { return String(Int64(number)) }
        let text = "\(number)"
        guard let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }),
            let exponent = Int(text[text.index(after: e)...])
        else {
            return text
        }
        let negative = text.hasPrefix("-")
        let mantissa = text[..<e].drop { $0 == "-" }
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        var digits = String(parts[0]) + (parts.count > 1 ? String(parts[1]) : "")
        var point = parts[0].count + exponent
        if point <= 0 {
            digits = String(repeating: "0", count: 1 - point) + digits
            point = 1
        } else if point > digits.count {
            digits += String(repeating: "0", count: point - digits.count)
        }
        var fraction = String(digits.dropFirst(point))
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return (negative ? "-" : "") + digits.prefix(point) + (fraction.isEmpty ? "" : "." + fraction)
    }

    // MARK: Comparisons (§3.4)

    private func compare(_ op: XPathOperator, _ left: Object, _ right: Object) -> Bool {
        switch (left, right) {
        case (.nodes(let a), .nodes(let b)):
            let rightValues = b.map(tree.stringValue)
            return a.contains { node in
                let value = tree.stringValue(node)
                return rightValues.contains { compareAtoms(op, .string(value), .string($0)) }
            }
        case (.nodes(let a), let other):
            if case .boolean = other { return compareAtoms(op, .boolean(!a.isEmpty), other) }
            return a.contains { compareAtoms(op, .string(tree.stringValue($0)), other) }
        case (let other, .nodes(let b)):
            if case .boolean = other { return compareAtoms(op, other, .boolean(!b.isEmpty)) }
            return b.contains { compareAtoms(op, other, .string(tree.stringValue($0))) }
        default:
            return compareAtoms(op, left, right)
        }
    }

    private func compareAtoms(_ op: XPathOperator, _ left: Object, _ right: Object) -> Bool {
        switch op {
        case .equal, .notEqual:
            let equal: Bool
            switch (left, right) {
            case (.boolean, _), (_, .boolean): equal = boolean(left) == boolean(right)
            case (.number, _), (_, .number): equal = number(left) == number(right)
            default: equal = string(left) == string(right)
            }
            return op == .equal ? equal : !equal
        case .less: return number(left) < number(right)
        case .lessOrEqual: return number(left) <= number(right)
        case .greater: return number(left) > number(right)
        default: return number(left) >= number(right)
        }
    }

    // MARK: Functions (§4)

    private func call(_ function: XPathFunction, _ arguments: [XPathExpression], _ context: Context) -> Object {
        let values = arguments.map { evaluate($0, context) }
        func text(_ position: Int) -> String {
            position < values.count ? string(values[position]) : tree.stringValue(context.node)
        }
        /// The node a name function is about: the first of its argument, or the context node.
        func subject() -> Int? { values.isEmpty ? context.node : nodes(values[0]).first }
        switch function {
        case .last: return .number(Double(context.size))
        case .position: return .number(Double(context.position))
        case .count: return .number(Double(nodes(values[0]).count))
        case .localName:
            guard let node = subject(), [.element, .attribute, .processingInstruction].contains(tree[node].kind) else {
                return .string("")
            }
            let name = tree[node].name
            return .string(name.firstIndex(of: ":").map { String(name[name.index(after: $0)...]) } ?? name)
        case .namespaceURI: return .string(subject().map(tree.namespaceURI) ?? "")
        case .name:
            guard let node = subject(), [.element, .attribute, .processingInstruction].contains(tree[node].kind) else {
                return .string("")
            }
            return .string(tree[node].name)
        case .string: return .string(text(0))
        case .concat: return .string(values.map(string).joined())
        case .startsWith: return .boolean(text(0).hasPrefix(text(1)))
        case .contains: return .boolean(text(1).isEmpty || text(0).contains(text(1)))
        case .substringBefore:
            return .string(text(0).range(of: text(1)).map { String(text(0)[..<$0.lowerBound]) } ?? "")
        case .substringAfter:
            if text(1).isEmpty { return .string(text(0)) }
            return .string(text(0).range(of: text(1)).map { String(text(0)[$0.upperBound...]) } ?? "")
        case .substring:
            let scalars = Array(text(0).unicodeScalars)
            let start = Self.round(number(values[1]))
            let end = values.count > 2 ? start + Self.round(number(values[2])) : .infinity
            var result = ""
            for (offset, scalar) in scalars.enumerated() {
                let position = Double(offset + 1)
                if position >= start && position < end { result.unicodeScalars.append(scalar) }
            }
            return .string(result)
        case .stringLength: return .number(Double(text(0).unicodeScalars.count))
        case .normalizeSpace:
            return .string(
                text(0).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
                    .joined(separator: " "))
        case .translate:
            let from = Array(text(1).unicodeScalars)
            let to = Array(text(2).unicodeScalars)
            var result = ""
            for scalar in text(0).unicodeScalars {
                guard let position = from.firstIndex(of: scalar) else {
                    result.unicodeScalars.append(scalar)
                    continue
                }
                if position < to.count { result.unicodeScalars.append(to[position]) }
            }
            return .string(result)
        case .boolean: return .boolean(boolean(values[0]))
        case .not: return .boolean(!boolean(values[0]))
        case .true: return .boolean(true)
        case .false: return .boolean(false)
        case .lang:
            let wanted = text(0).lowercased()
            var node: Int = tree[context.node].kind == .element ? context.node : tree[context.node].parent
            while node > 0 {
                if let attribute = tree[node].attributes.first(where: { tree[$0].name == "xml:lang" }) {
                    let language = tree[attribute].value.lowercased()
                    return .boolean(language == wanted || language.hasPrefix(wanted + "-"))
                }
                node = tree[node].parent
            }
            return .boolean(false)
        case .number: return .number(values.isEmpty ? Self.number(tree.stringValue(context.node)) : number(values[0]))
        case .sum: return .number(nodes(values[0]).reduce(0) { $0 + Self.number(tree.stringValue($1)) })
        case .floor: return .number(Foundation.floor(number(values[0])))
        case .ceiling: return .number(Foundation.ceil(number(values[0])))
        case .round: return .number(Self.round(number(values[0])))
        }
    }

    /// `round()`: the closest integer, halves towards positive infinity; NaN and infinities unchanged.
    static func round(_ number: Double) -> Double {
        guard number.isFinite else { return number }
        if number < 0 && number >= -0.5 { return -0.0 }
        return Foundation.floor(number + 0.5)
    }
}
