import Foundation

extension Expression: CustomStringConvertible {
    /// The expression written back in canonical form (`steps.login.body.token == 'x'`).
    public var description: String { render(parentPrecedence: 0) }

    private static func precedence(_ op: BinaryOperator) -> Int {
        switch op {
        case .or: 1
        case .and: 2
        case .equal, .notEqual: 3
        case .less, .lessOrEqual, .greater, .greaterOrEqual: 4
        }
    }

    private func render(parentPrecedence: Int) -> String {
        switch self {
        case .literal(let value, _):
            if case .string(let text) = value { return "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
            return value.jsonText()
        case .variable(let name):
            return name.value
        case .access(let base, let component, _):
            return base.render(parentPrecedence: 6) + component.value.description
        case .call(let name, let arguments, _):
            return name.value + "(" + arguments.map { $0.render(parentPrecedence: 0) }.joined(separator: ", ") + ")"
        case .not(let operand, _):
            return "!" + operand.render(parentPrecedence: 5)
        case .binary(let op, let left, let right, _):
            let own = Expression.precedence(op)
            let text = left.render(parentPrecedence: own) + " \(op.rawValue) " + right.render(parentPrecedence: own + 1)
            return own < parentPrecedence ? "(" + text + ")" : text
        }
    }
}

extension Template: CustomStringConvertible {
    /// The template written back, with each expression as `${{ … }}`.
    public var description: String {
        parts.map { part in
            switch part {
            case .text(let text): text
            case .expression(let expression): "${{ \(expression) }}"
            }
        }.joined()
    }
}
