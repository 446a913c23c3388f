import Foundation

/// An expression of the `${{ }}` language.
///
/// ```
/// expression := or
/// or         := and ( "||" and )*
/// and        := equality ( "&&" equality )*
/// equality   := comparison ( ( "==" | "!=" ) comparison )*
/// comparison := unary ( ( "<" | "<=" | ">" | ">=" ) unary )*
/// unary      := "!" unary | postfix
/// postfix    := primary ( "." name | "[" ( integer | string | "*" ) "]" )*
/// primary    := literal | name | name "(" arguments? ")" | "(" expression ")"
/// ```
public indirect enum Expression: Sendable, Hashable {
    /// A string, number, boolean or null literal.
    case literal(Value, SourceRange)
    /// A root name: `inputs`, `steps`, `env`, or a for_each item name.
    case variable(Located<String>)
    /// `base.name`, `base['key']`, `base[0]` or `base[*]`.
    case access(Expression, Located<PathComponent>, SourceRange)
    /// `name(arguments)`.
    case call(Located<String>, [Expression], SourceRange)
    /// `!operand`.
    case not(Expression, SourceRange)
    /// `left op right`.
    case binary(BinaryOperator, Expression, Expression, SourceRange)

    /// Where the whole expression was written.
    public var range: SourceRange {
        switch self {
        case .literal(_, let range), .access(_, _, let range), .call(_, _, let range),
            .not(_, let range), .binary(_, _, _, let range):
            range
        case .variable(let name): name.range
        }
    }

    /// The expression as a root name followed by path components, when it is one
    /// (`steps.login.body.token`); `nil` for calls, operators and literals.
    public var reference: Reference? {
        var components: [Located<PathComponent>] = []
        var current = self
        while true {
            switch current {
            case .variable(let root):
                return Reference(root: root, components: components.reversed(), range: range)
            case .access(let base, let component, _):
                components.append(component)
                current = base
            default:
                return nil
            }
        }
    }

    /// Calls `visit` on this expression and every subexpression, parents first.
    public func forEachNode(_ visit: (Expression) -> Void) {
        walk { expression in
            visit(expression)
            return true
        }
    }

    /// Every maximal reference in the expression (a path not itself part of a longer path).
    public var references: [Reference] {
        var result: [Reference] = []
        walk { expression in
            guard let reference = expression.reference else { return true }
            result.append(reference)
            return false
        }
        return result
    }

    /// Calls `visit` on this expression and its subexpressions, parents first and in source order, going
    /// into an expression's parts only where `visit` returns true.
    private func walk(_ visit: (Expression) -> Bool) {
        var stack = [self]
        while let expression = stack.popLast() {
            guard visit(expression) else { continue }
            switch expression {
            case .literal, .variable: break
            case .access(let base, _, _): stack.append(base)
            case .call(_, let arguments, _): stack.append(contentsOf: arguments.reversed())
            case .not(let operand, _): stack.append(operand)
            case .binary(_, let left, let right, _):
                stack.append(right)
                stack.append(left)
            }
        }
    }

    /// Every function call in the expression.
    public var calls: [(name: Located<String>, arguments: [Expression], range: SourceRange)] {
        var result: [(name: Located<String>, arguments: [Expression], range: SourceRange)] = []
        forEachNode { node in
            if case .call(let name, let arguments, let range) = node { result.append((name, arguments, range)) }
        }
        return result
    }
}

/// One step of a path.
public enum PathComponent: Sendable, Hashable, CustomStringConvertible {
    /// `.name` or `['name']`.
    case member(String)
    /// `[3]`; negative counts from the end.
    case index(Int)
    /// `[*]`: every element of a list (or value of an object).
    case wildcard

    public var description: String {
        switch self {
        case .member(let name):
            name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" } && !name.isEmpty
                ? ".\(name)" : "['\(name.replacingOccurrences(of: "'", with: "''"))']"
        case .index(let index): "[\(index)]"
        case .wildcard: "[*]"
        }
    }
}

/// A path rooted at a name: `steps.login.body.token`.
public struct Reference: Sendable, Hashable, CustomStringConvertible {
    /// `inputs`, `steps`, `env` or an item name.
    public var root: Located<String>
    /// What follows the root.
    public var components: [Located<PathComponent>]
    /// The whole path.
    public var range: SourceRange

    /// The member name at `position`, if that component is `.name` or `['name']`.
    public func memberName(at position: Int) -> Located<String>? {
        guard position < components.count, case .member(let name) = components[position].value else { return nil }
        return Located(name, at: components[position].range)
    }

    public var description: String {
        root.value + components.map(\.value.description).joined()
    }
}

/// The binary operators, loosest first.
public enum BinaryOperator: String, Sendable, Hashable, CaseIterable {
    case or = "||"
    case and = "&&"
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}
