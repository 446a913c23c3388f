import Foundation
import ReqPlanSyntax

/// An XPath 1.0 expression, compiled and type-checked, that `xpath(text, expression)` evaluates on
/// an XML or HTML document.
///
/// Everything of XPath 1.0 is supported but variables, the namespace axis and `id()`. Names are
/// compared as written in the document (reqplan has no way to bind namespace prefixes): `a` matches
/// elements written `<a>` whatever their default namespace, `p:a` those written `<p:a>`. Every type
/// error is found when the expression is compiled, so evaluating a compiled expression fails only when
/// the document is not well-formed or the evaluation is stopped.
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
    ///
    /// The document is chosen by a server, so reading it and evaluating the expression work within
    /// `EvaluationLimits.current`: every node read or visited, item compared and 8 bytes of text copied
    /// or searched is a step, and the clock and the task's cancellation are checked every 1,024 steps.
    /// - Throws: `XMLReadError` when `document` is not well-formed XML (HTML is read leniently), or, with
    ///   `stopped` set, when the reading or the evaluation was stopped by a cancellation, the deadline or
    ///   the budget of `EvaluationLimits.current`.
    public func evaluate(onDocument document: String) throws(XMLReadError) -> Value {
        let meter = EvaluationMeter()
        let tree = try XMLReader.read(document, meter: meter)
        do {
            return try XPathEvaluator(tree: tree, meter: meter).value(of: expression)
        } catch {
            throw XMLReadError(stoppedEvaluation: error)
        }
    }
}

/// Evaluates compiled expressions on one document (XPath 1.0 §2–§4), counting its work on a meter.
struct XPathEvaluator {
    let tree: XMLTree
    /// The evaluation's budget: every node visited on an axis, node tested by a predicate, item of a
    /// node-set sorted, merged or compared, and `textBytesPerStep` bytes of text copied or searched is a
    /// step, so a predicate that runs a path over the whole document per node (`//*[count(//*) > 1]`)
    /// stops instead of holding the run.
    let meter: EvaluationMeter

    /// How many bytes of text make one step.
    static let textBytesPerStep = 8

    init(tree: XMLTree, meter: EvaluationMeter = EvaluationMeter()) {
        self.tree = tree
        self.meter = meter
    }

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

    /// The value of `expression` at the root, as the language's values (see `XPath.evaluate(onDocument:)`).
    func value(of expression: XPathExpression) throws(EvaluationStopped) -> Value {
        switch try evaluate(expression, Context(node: 0, position: 1, size: 1)) {
        case .nodes(let nodes):
            var values: [Value] = []
            values.reserveCapacity(nodes.count)
            for node in nodes { values.append(.string(try stringValue(node))) }
            return .list(values)
        case .string(let text): return .string(text)
        case .boolean(let flag): return .bool(flag)
        case .number(let number):
            guard number.isFinite else { return .null }
            if number == number.rounded(), abs(number) < 9_007_199_254_740_992 { return .int(Int(number)) }
            return .double(number)
        }
    }

    /// Counts `steps` steps of work.
    @inline(__always)
    private func spend(_ steps: Int = 1) throws(EvaluationStopped) {
        try meter.spend(steps)
    }

    /// Counts the work of copying or searching `text`.
    @inline(__always)
    private func spend(over text: String) throws(EvaluationStopped) {
        try meter.spend(1 + text.utf8.count / Self.textBytesPerStep)
    }

    func evaluate(_ expression: XPathExpression, _ context: Context) throws(EvaluationStopped) -> Object {
        try spend()
        switch expression {
        case .literal(let text): return .string(text)
        case .number(let value): return .number(value)
        case .negate(let operand): return .number(-(try number(try evaluate(operand, context))))
        case .call(let function, let arguments): return try call(function, arguments, context)
        case .filter(let primary, let predicates):
            return .nodes(try filter(nodes(try evaluate(primary, context)), by: predicates))
        case .path(let start, let steps):
            var current: [Int]
            switch start {
            case .root: current = [0]
            case .context: current = [context.node]
            case .expression(let expression): current = nodes(try evaluate(expression, context))
            }
            for step in steps { current = try select(step, from: current) }
            return .nodes(current)
        case .binary:
            // `a + b + c …` is a tree as deep as the chain is long: walked by a loop, not by recursion.
            var chain: [(XPathOperator, XPathExpression)] = []
            var leftmost = expression
            while case .binary(let op, let left, let right) = leftmost {
                chain.append((op, right))
                leftmost = left
            }
            var value = try evaluate(leftmost, context)
            for (op, right) in chain.reversed() {
                value = try combine(value, op, right, context)
            }
            return value
        }
    }

    /// `left op right`, `right` evaluated only when needed (`or`, `and`).
    private func combine(_ left: Object, _ op: XPathOperator, _ right: XPathExpression, _ context: Context)
        throws(EvaluationStopped) -> Object
    {
        switch op {
        case .or: return .boolean(boolean(left) ? true : boolean(try evaluate(right, context)))
        case .and: return .boolean(boolean(left) ? boolean(try evaluate(right, context)) : false)
        case .union: return .nodes(try union(nodes(left), nodes(try evaluate(right, context))))
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            return .boolean(try compare(op, left, try evaluate(right, context)))
        case .plus, .minus, .times, .div, .mod:
            let a = try number(left)
            let b = try number(try evaluate(right, context))
            switch op {
            case .plus: return .number(a + b)
            case .minus: return .number(a - b)
            case .times: return .number(a * b)
            case .div: return .number(a / b)
            default: return .number(a.truncatingRemainder(dividingBy: b))
            }
        }
    }

    /// Two node-sets as one, in document order.
    private func union(_ a: [Int], _ b: [Int]) throws(EvaluationStopped) -> [Int] {
        try spend(a.count + b.count)
        var result: [Int] = []
        result.reserveCapacity(a.count + b.count)
        var (i, j) = (0, 0)
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && a[i] < b[j]) {
                result.append(a[i])
                i += 1
            } else {
                if i < a.count && a[i] == b[j] { i += 1 }
                result.append(b[j])
                j += 1
            }
        }
        return result
    }

    // MARK: Steps

    /// The nodes `step` selects from each node of `context` (a node-set), in document order.
    private func select(_ step: XPathStep, from context: [Int]) throws(EvaluationStopped) -> [Int] {
        // HTML names are lower case: so are the names a step looks for.
        let test = tree.isHTML ? step.test.lowercased : step.test
        guard context.count > 1 else {
            guard let node = context.first else { return [] }
            let selected = try apply(step, test, to: node)
            return step.axis.isReverse ? selected.reversed() : selected
        }
        // The nodes selected from nested context nodes overlap (`//a//b`): sorted and made unique whenever
        // they outgrow the document, so they never hold much more than it.
        var selected: [Int] = []
        for node in context {
            selected += try apply(step, test, to: node)
            if selected.count > 2 * tree.nodes.count { try makeDocumentOrder(&selected) }
        }
        try makeDocumentOrder(&selected)
        return selected
    }

    /// Sorts `nodes` (when they are not in order already) and removes repeated ones.
    private func makeDocumentOrder(_ nodes: inout [Int]) throws(EvaluationStopped) {
        try spend(nodes.count)
        if zip(nodes, nodes.dropFirst()).contains(where: { $0 >= $1 }) { nodes.sort() } else { return }
        var kept = 0
        for index in nodes.indices where kept == 0 || nodes[index] != nodes[kept - 1] {
            nodes[kept] = nodes[index]
            kept += 1
        }
        nodes.removeLast(nodes.count - kept)
    }

    private func apply(_ step: XPathStep, _ test: XPathNodeTest, to node: Int) throws(EvaluationStopped) -> [Int] {
        let candidates = try axis(step.axis, of: node).filter { matches(test, $0, axis: step.axis) }
        return try filter(candidates, by: step.predicates)
    }

    /// Keeps the nodes for which every predicate holds; positions count along the axis (`candidates`
    /// is in axis order: reverse document order for a reverse axis).
    private func filter(_ candidates: [Int], by predicates: [XPathExpression]) throws(EvaluationStopped) -> [Int] {
        var current = candidates
        for predicate in predicates {
            let size = current.count
            var kept: [Int] = []
            for (offset, node) in current.enumerated() {
                try spend()
                let value = try evaluate(predicate, Context(node: node, position: offset + 1, size: size))
                if case .number(let number) = value {
                    if number == Double(offset + 1) { kept.append(node) }
                } else if boolean(value) {
                    kept.append(node)
                }
            }
            current = kept
        }
        return current
    }

    /// The nodes on `axis` from `node`, in proximity order (document order, reversed for reverse axes);
    /// every node looked at is a step.
    private func axis(_ axis: XPathAxis, of node: Int) throws(EvaluationStopped) -> [Int] {
        let nodes = tree.nodes
        let current = (kind: nodes[node].kind, parent: nodes[node].parent, last: nodes[node].last)
        switch axis {
        case .self:
            return [node]
        case .child:
            let children = tree.children(of: node)
            try spend(children.count)
            return children
        case .attribute:
            let attributes = nodes[node].attributes(at: node)
            try spend(attributes.count)
            return attributes.filter { nodes[$0].name != "xmlns" && !nodes[$0].name.hasPrefix("xmlns:") }
        case .parent:
            return current.parent >= 0 ? [current.parent] : []
        case .ancestor, .ancestorOrSelf:
            var result = axis == .ancestorOrSelf ? [node] : []
            var parent = current.parent
            while parent >= 0 {
                try spend()
                result.append(parent)
                parent = nodes[parent].parent
            }
            return result
        case .descendant, .descendantOrSelf:
            var result = axis == .descendantOrSelf ? [node] : []
            guard current.kind != .attribute, current.last > node else { return result }
            try spend(current.last - node)
            for index in (node + 1)...current.last where nodes[index].kind != .attribute { result.append(index) }
            return result
        case .followingSibling:
            guard current.kind != .attribute else { return [] }
            var result: [Int] = []
            var sibling = tree.nextSibling(of: node)
            while let next = sibling {
                try spend()
                result.append(next)
                sibling = tree.nextSibling(of: next)
            }
            return result
        case .precedingSibling:
            guard current.kind != .attribute, current.parent >= 0 else { return [] }
            var result: [Int] = []
            var sibling = tree.firstChild(of: current.parent)
            while let next = sibling, next != node {
                try spend()
                result.append(next)
                sibling = tree.nextSibling(of: next)
            }
            return result.reversed()
        case .following:
            let after = current.last + 1
            guard after < nodes.count else { return [] }
            try spend(nodes.count - after)
            return (after..<nodes.count).filter { nodes[$0].kind != .attribute }
        case .preceding:
            var ancestors = Set<Int>()
            var parent = current.parent
            while parent >= 0 {
                ancestors.insert(parent)
                parent = nodes[parent].parent
            }
            try spend(node + ancestors.count)
            return (0..<node).reversed().filter { nodes[$0].kind != .attribute && !ancestors.contains($0) }
        }
    }

    private func matches(_ test: XPathNodeTest, _ index: Int, axis: XPathAxis) -> Bool {
        let kind = tree.nodes[index].kind
        let principal: XMLTree.Kind = axis == .attribute ? .attribute : .element
        switch test {
        case .node: return true
        case .text: return kind == .text
        case .comment: return kind == .comment
        case .processingInstruction(let target):
            return kind == .processingInstruction && (target == nil || tree.nodes[index].name == target)
        case .anyName: return kind == principal
        case .prefix(let prefix):
            return kind == principal && tree.nodes[index].name.hasPrefix(prefix + ":")
        case .name(let name): return kind == principal && tree.nodes[index].name == name
        }
    }

    /// The string-value of a node (XPath 1.0 §5), counted.
    func stringValue(_ index: Int) throws(EvaluationStopped) -> String {
        let nodes = tree.nodes
        guard nodes[index].kind == .root || nodes[index].kind == .element else {
            try spend(over: nodes[index].value)
            return nodes[index].value
        }
        let last = nodes[index].last
        try spend(last - index)
        var result = ""
        for descendant in (index + 1)..<(last + 1) where nodes[descendant].kind == .text {
            let text = nodes[descendant].value
            try spend(over: text)
            result += text
        }
        return result
    }

    // MARK: Conversions (§4)

    private func nodes(_ object: Object) -> [Int] {
        if case .nodes(let nodes) = object { return nodes }
        return []  // the parser lets only node-sets reach here
    }

    func string(_ object: Object) throws(EvaluationStopped) -> String {
        switch object {
        case .nodes(let nodes):
            return try nodes.first.map { node throws(EvaluationStopped) in try stringValue(node) } ?? ""
        case .string(let text): return text
        case .boolean(let flag): return flag ? "true" : "false"
        case .number(let number): return Self.format(number)
        }
    }

    func number(_ object: Object) throws(EvaluationStopped) -> Double {
        switch object {
        case .number(let number): return number
        case .boolean(let flag): return flag ? 1 : 0
        case .string(let text): return try number(text)
        case .nodes: return try number(try string(object))
        }
    }

    /// `number()` of a string, counted.
    private func number(_ text: String) throws(EvaluationStopped) -> Double {
        try spend(over: text)
        return Self.number(text)
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

    private func compare(_ op: XPathOperator, _ left: Object, _ right: Object) throws(EvaluationStopped) -> Bool {
        switch (left, right) {
        case (.nodes(let a), .nodes(let b)):
            // Some node of each whose string-values compare so: found from the values' set or their bounds,
            // not by comparing every pair.
            let leftValues = try a.map { node throws(EvaluationStopped) in try stringValue(node) }
            let rightValues = try b.map { node throws(EvaluationStopped) in try stringValue(node) }
            guard !leftValues.isEmpty, !rightValues.isEmpty else { return false }
            try spend(leftValues.count + rightValues.count)
            switch op {
            case .equal:
                let right = Set(rightValues)
                return leftValues.contains { right.contains($0) }
            case .notEqual:
                let first = leftValues[0]
                return leftValues.contains { $0 != first } || rightValues.contains { $0 != first }
            default:
                let leftNumbers = try numbers(leftValues)
                let rightNumbers = try numbers(rightValues)
                guard let leftLeast = leftNumbers.min(), let leftMost = leftNumbers.max(),
                    let rightLeast = rightNumbers.min(), let rightMost = rightNumbers.max()
                else { return false }
                switch op {
                case .less: return leftLeast < rightMost
                case .lessOrEqual: return leftLeast <= rightMost
                case .greater: return leftMost > rightLeast
                default: return leftMost >= rightLeast
                }
            }
        case (.nodes(let a), let other):
            if case .boolean = other { return try compareAtoms(op, .boolean(!a.isEmpty), other) }
            for node in a where try compareAtoms(op, .string(try stringValue(node)), other) { return true }
            return false
        case (let other, .nodes(let b)):
            if case .boolean = other { return try compareAtoms(op, other, .boolean(!b.isEmpty)) }
            for node in b where try compareAtoms(op, other, .string(try stringValue(node))) { return true }
            return false
        default:
            return try compareAtoms(op, left, right)
        }
    }

    /// The numbers of `values` that are not NaN (no comparison holds with NaN).
    private func numbers(_ values: [String]) throws(EvaluationStopped) -> [Double] {
        var result: [Double] = []
        for value in values {
            let number = try number(value)
            if !number.isNaN { result.append(number) }
        }
        return result
    }

    private func compareAtoms(_ op: XPathOperator, _ left: Object, _ right: Object) throws(EvaluationStopped) -> Bool {
        switch op {
        case .equal, .notEqual:
            let equal: Bool
            switch (left, right) {
            case (.boolean, _), (_, .boolean): equal = boolean(left) == boolean(right)
            case (.number, _), (_, .number): equal = try number(left) == number(right)
            default: equal = try string(left) == string(right)
            }
            return op == .equal ? equal : !equal
        case .less: return try number(left) < number(right)
        case .lessOrEqual: return try number(left) <= number(right)
        case .greater: return try number(left) > number(right)
        default: return try number(left) >= number(right)
        }
    }

    // MARK: Functions (§4)

    private func call(_ function: XPathFunction, _ arguments: [XPathExpression], _ context: Context)
        throws(EvaluationStopped) -> Object
    {
        var values: [Object] = []
        for argument in arguments { values.append(try evaluate(argument, context)) }
        func text(_ position: Int) throws(EvaluationStopped) -> String {
            position < values.count ? try string(values[position]) : try stringValue(context.node)
        }
        /// The node a name function is about: the first of its argument, or the context node.
        func subject() -> Int? { values.isEmpty ? context.node : nodes(values[0]).first }
        switch function {
        case .last: return .number(Double(context.size))
        case .position: return .number(Double(context.position))
        case .count: return .number(Double(nodes(values[0]).count))
        case .localName:
            guard let node = subject(), [.element, .attribute, .processingInstruction].contains(tree.nodes[node].kind)
            else {
                return .string("")
            }
            let name = tree.nodes[node].name
            return .string(name.firstIndex(of: ":").map { String(name[name.index(after: $0)...]) } ?? name)
        case .namespaceURI:
            guard let node = subject() else { return .string("") }
            try spend(tree.depth(of: node))
            return .string(tree.namespaceURI(node))
        case .name:
            guard let node = subject(), [.element, .attribute, .processingInstruction].contains(tree.nodes[node].kind)
            else {
                return .string("")
            }
            return .string(tree.nodes[node].name)
        case .string: return .string(try text(0))
        case .concat:
            var result = ""
            for value in values { result += try string(value) }
            try spend(over: result)
            return .string(result)
        case .startsWith:
            let (whole, prefix) = (try text(0), try text(1))
            try spend(over: prefix)
            return .boolean(whole.utf8.starts(with: prefix.utf8))
        case .contains:
            let (whole, part) = (try text(0), try text(1))
            try spend(over: whole)
            return .boolean(Self.firstOffset(of: part, in: whole) != nil)
        case .substringBefore:
            let (whole, part) = (try text(0), try text(1))
            try spend(over: whole)
            guard let offset = Self.firstOffset(of: part, in: whole) else { return .string("") }
            return .string(String(decoding: whole.utf8.prefix(offset), as: UTF8.self))
        case .substringAfter:
            let (whole, part) = (try text(0), try text(1))
            try spend(over: whole)
            guard let offset = Self.firstOffset(of: part, in: whole) else { return .string("") }
            return .string(String(decoding: whole.utf8.dropFirst(offset + part.utf8.count), as: UTF8.self))
        case .substring:
            let whole = try text(0)
            try spend(over: whole)
            let start = Self.round(try number(values[1]))
            let end = values.count > 2 ? start + Self.round(try number(values[2])) : .infinity
            var result = ""
            for (offset, scalar) in whole.unicodeScalars.enumerated() {
                let position = Double(offset + 1)
                if position >= start && position < end { result.unicodeScalars.append(scalar) }
            }
            return .string(result)
        case .stringLength:
            let whole = try text(0)
            try spend(over: whole)
            return .number(Double(whole.unicodeScalars.count))
        case .normalizeSpace:
            let whole = try text(0)
            try spend(over: whole)
            return .string(
                whole.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
                    .joined(separator: " "))
        case .translate:
            let (whole, from, to) = (try text(0), try text(1), Array(try text(2).unicodeScalars))
            try spend(over: whole)
            try spend(over: from)
            // Each character's first place in `from`: looked up, not searched for, per character.
            var places: [Unicode.Scalar: Int] = [:]
            for (position, scalar) in from.unicodeScalars.enumerated() where places[scalar] == nil {
                places[scalar] = position
            }
            var result = ""
            for scalar in whole.unicodeScalars {
                guard let position = places[scalar] else {
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
            let wanted = try text(0).lowercased()
            var node: Int = tree.nodes[context.node].kind == .element ? context.node : tree.nodes[context.node].parent
            while node > 0 {
                let attributes = tree.nodes[node].attributes(at: node)
                try spend(1 + attributes.count)
                if let attribute = attributes.first(where: { tree.nodes[$0].name == "xml:lang" }) {
                    let language = tree.nodes[attribute].value.lowercased()
                    return .boolean(language == wanted || language.hasPrefix(wanted + "-"))
                }
                node = tree.nodes[node].parent
            }
            return .boolean(false)
        case .number:
            return .number(values.isEmpty ? try number(try stringValue(context.node)) : try number(values[0]))
        case .sum:
            var total = 0.0
            for node in nodes(values[0]) { total += try number(try stringValue(node)) }
            return .number(total)
        case .floor: return .number(Foundation.floor(try number(values[0])))
        case .ceiling: return .number(Foundation.ceil(try number(values[0])))
        case .round: return .number(Self.round(try number(values[0])))
        }
    }

    /// Where `part` first occurs in `whole`, in bytes of UTF-8 (0 for an empty `part`): by code points, as
    /// XPath compares strings (UTF-8 never matches inside a character), and in time linear in the two
    /// (Knuth–Morris–Pratt), whatever either holds.
    static func firstOffset(of part: String, in whole: String) -> Int? {
        let needle = Array(part.utf8)
        guard !needle.isEmpty else { return 0 }
        // For each prefix of the needle, the length of its longest proper prefix that is also its suffix.
        var fallback = [Int](repeating: 0, count: needle.count)
        var length = 0
        for index in needle.indices.dropFirst() {
            while length > 0 && needle[index] != needle[length] { length = fallback[length - 1] }
            if needle[index] == needle[length] { length += 1 }
            fallback[index] = length
        }
        var matched = 0
        for (offset, byte) in whole.utf8.enumerated() {
            while matched > 0 && byte != needle[matched] { matched = fallback[matched - 1] }
            if byte == needle[matched] { matched += 1 }
            if matched == needle.count { return offset + 1 - needle.count }
        }
        return nil
    }

    /// `round()`: the closest integer, halves towards positive infinity; NaN and infinities unchanged.
    static func round(_ number: Double) -> Double {
        guard number.isFinite else { return number }
        if number < 0 && number >= -0.5 { return -0.0 }
        return Foundation.floor(number + 0.5)
    }
}
