import ReqPlanSyntax

/// A function's result, of its declared type (§2.4.1); `.value(nil)` is Nothing.
enum JSONPathFunctionResult {
    case value(Value?)
    case logical(Bool)
    case nodes([Value])
}

extension JSONPathFunction {
    /// The function's result on `arguments`, with `current` as `@` (§2.4.4–§2.4.8).
    func evaluate(_ arguments: [JSONPathArgument], on current: Value, with evaluator: JSONPathEvaluator)
        throws(JSONPathEvaluationError) -> JSONPathFunctionResult
    {
        switch self {
        case .length:
            switch try value(of: arguments[0], on: current, with: evaluator) {
            case .string(let text): return .value(.int(text.unicodeScalars.count))
            case .list(let items): return .value(.int(items.count))
            case .object(let fields): return .value(.int(fields.count))
            default: return .value(nil)
            }
        case .count:
            return .value(.int(try nodes(of: arguments[0], on: current, with: evaluator).count))
        case .value:
            let nodes = try nodes(of: arguments[0], on: current, with: evaluator)
            return .value(nodes.count == 1 ? nodes[0] : nil)
        case .match, .search:
            guard case .string(let text) = try value(of: arguments[0], on: current, with: evaluator),
                case .string(let pattern) = try value(of: arguments[1], on: current, with: evaluator),
                let regex = IRegexp.compile(pattern, anchored: self == .match)
            else { return .logical(false) }
            do {
                return .logical(try RegularExpression.firstMatch(of: regex, in: text) != nil)
            } catch {
                throw JSONPathEvaluationError(message: "the query was stopped: \(error.message)", stopped: error)
            }
        }
    }

    private func value(of argument: JSONPathArgument, on current: Value, with evaluator: JSONPathEvaluator)
        throws(JSONPathEvaluationError) -> Value?
    {
        guard case .value(let comparable) = argument else { return nil }
        return try evaluator.value(comparable, on: current)
    }

    private func nodes(of argument: JSONPathArgument, on current: Value, with evaluator: JSONPathEvaluator)
        throws(JSONPathEvaluationError) -> [Value]
    {
        guard case .nodes(let query) = argument else { return [] }
        return try evaluator.select(query, current: current)
    }
}
