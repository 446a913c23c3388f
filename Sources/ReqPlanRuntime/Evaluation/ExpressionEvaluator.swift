import ReqPlanSyntax
import ReqPlanJSONPath
import ReqPlanXPath

/// Evaluates `${{ }}` expressions and templates against an `EvaluationContext`.
///
/// Paths are lenient, as in GitHub Actions: a missing member, an index out of
/// range, or a path into `null` gives `null`. Operators are strict: `<` and
/// friends compare two numbers or two strings; `&&`, `||` and `!` take booleans
/// (`null` counts as false).
public enum ExpressionEvaluator {
    /// The value of an expression.
    public static func evaluate(_ expression: Expression, in context: EvaluationContext) throws(EvaluationError)
        -> Value
    {
        switch expression {
        case .literal(let value, _):
            return value
        case .variable(let name):
            return try root(name, in: context)
        case .access:
            return try access(expression, in: context)
        case .call(let name, let arguments, let range):
            return try call(name, arguments, range: range, in: context)
        case .not(let operand, let range):
            return .bool(!(try truth(evaluate(operand, in: context), at: range, what: "`!`")))
        case .binary(let op, let left, let right, let range):
            return try binary(op, left, right, range: range, in: context)
        }
    }

    /// A template's value: the typed value of a single `${{ }}`, otherwise the interpolated text.
    public static func evaluate(_ template: Template, in context: EvaluationContext) throws(EvaluationError) -> Value {
        if let expression = template.singleExpression { return try evaluate(expression, in: context) }
        return .string(try text(template, in: context))
    }

    /// A template as text (for URLs, headers, raw bodies).
    public static func text(_ template: Template, in context: EvaluationContext) throws(EvaluationError) -> String {
        var result = ""
        for part in template.parts {
            switch part {
            case .text(let text): result += text
            case .expression(let expression): result += try evaluate(expression, in: context).interpolated
            }
        }
        return result
    }

    /// A value template (JSON bodies, query values, for_each lists, expected values).
    public static func evaluate(_ template: ValueTemplate, in context: EvaluationContext) throws(EvaluationError)
        -> Value
    {
        switch template {
        case .literal(let value, _): return value
        case .template(let inner): return try evaluate(inner, in: context)
        case .list(let items, _):
            var values: [Value] = []
            values.reserveCapacity(items.count)
            for item in items { values.append(try evaluate(item, in: context)) }
            return .list(values)
        case .object(let entries, _):
            var fields: [Value.Field] = []
            fields.reserveCapacity(entries.count)
            for entry in entries { fields.append(.init(entry.key.value, try evaluate(entry.value, in: context))) }
            return .object(fields)
        }
    }

    /// Whether a condition holds: `true` runs, `false` and `null` do not, anything else is an error.
    public static func condition(_ expression: Expression, in context: EvaluationContext) throws(EvaluationError)
        -> Bool
    {
        let value = try evaluate(expression, in: context)
        switch value {
        case .bool(let flag): return flag
        case .null: return false
        default:
            throw EvaluationError("the condition is \(value.type.withArticle), not a boolean", at: expression.range)
        }
    }

    // MARK: Paths

    private static func root(_ name: Located<String>, in context: EvaluationContext) throws(EvaluationError) -> Value {
        switch name.value {
        case "inputs": return .object(context.inputs.sorted { $0.key < $1.key }.map { .init($0.key, $0.value) })
        case "env":
            return .object(context.environment.sorted { $0.key < $1.key }.map { .init($0.key, .string($0.value)) })
        case "steps": throw EvaluationError("`steps` needs a step id", at: name.range)
        case "vars": throw EvaluationError("`vars` needs a var name", at: name.range)
        default:
            if let item = context.items[name.value] { return item }
            throw EvaluationError("unknown name `\(name.value)`", at: name.range)
        }
    }

    private static func access(_ expression: Expression, in context: EvaluationContext) throws(EvaluationError)
        -> Value
    {
        // Flatten the chain of accesses down to its base.
        var components: [Located<PathComponent>] = []
        var base = expression
        while case .access(let inner, let component, _) = base {
            components.append(component)
            base = inner
        }
        components.reverse()
        var start: Value
        var rest = components[...]
        if case .variable(let name) = base {
            switch name.value {
            case "steps":
                guard case .member(let id)? = rest.first?.value else {
                    throw EvaluationError("`steps` needs a step id", at: name.range)
                }
                start = context.step(id) ?? .null
                rest = rest.dropFirst()
                // A path into a body that should have been JSON but is not fails with why, not with null.
                if rest.count >= 2, case .member("body") = rest[rest.startIndex].value,
                    let problem = context.stepBodyProblem(id)
                {
                    throw EvaluationError(
                        "cannot read `steps.\(id).body\(rest.dropFirst().map(\.value.description).joined())`: \(problem)",
                        at: rest[rest.startIndex + 1].range)
                }
                // Header names are case-insensitive: results store them in lower case.
                if rest.count >= 2, case .member("headers") = rest[rest.startIndex].value,
                    case .member(let header) = rest[rest.startIndex + 1].value
                {
                    var lowered = Array(rest)
                    lowered[1].value = .member(header.lowercased())
                    rest = lowered[...]
                }
            case "inputs":
                guard case .member(let input)? = rest.first?.value else { return try root(name, in: context) }
                start = context.inputs[input] ?? .null
                rest = rest.dropFirst()
            case "env":
                guard case .member(let variable)? = rest.first?.value else { return try root(name, in: context) }
                start = context.environment[variable].map(Value.string) ?? .null
                rest = rest.dropFirst()
            case "vars":
                guard case .member(let variable)? = rest.first?.value else { return try root(name, in: context) }
                start = try variableValue(variable, at: name.range, in: context)
                rest = rest.dropFirst()
            default:
                start = try root(name, in: context)
            }
        } else {
            start = try evaluate(base, in: context)
        }
        return follow(start, Array(rest.map(\.value)))
    }

    /// The value of a var: computed once by whoever provides the context, its failure repeated to each reader.
    private static func variableValue(_ name: String, at range: SourceRange, in context: EvaluationContext)
        throws(EvaluationError) -> Value
    {
        switch context.variable(name) {
        case .success(let value)?: return value
        case .failure(let error)?: throw error
        case nil: throw EvaluationError("unknown var `\(name)`", at: range)
        }
    }

    /// Follows path components from `value`; `[*]` maps the rest of the path over each element.
    public static func follow(_ value: Value, _ components: [PathComponent]) -> Value {
        var current = value
        for (position, component) in components.enumerated() {
            switch component {
            case .member(let name):
                current = current[name] ?? .null
            case .index(let index):
                guard case .list(let items) = current else { return .null }
                let resolved = index < 0 ? items.count + index : index
                current = items.indices.contains(resolved) ? items[resolved] : .null
            case .wildcard:
                let rest = Array(components[(position + 1)...])
                switch current {
                case .list(let items): return .list(items.map { follow($0, rest) })
                case .object(let fields): return .list(fields.map { follow($0.value, rest) })
                default: return .null
                }
            }
        }
        return current
    }

    // MARK: Operators

    private static func truth(_ value: Value, at range: SourceRange, what: String) throws(EvaluationError) -> Bool {
        switch value {
        case .bool(let flag): return flag
        case .null: return false
        default: throw EvaluationError("\(what) needs booleans, found \(value.type.withArticle)", at: range)
        }
    }

    private static func binary(
        _ op: BinaryOperator, _ left: Expression, _ right: Expression, range: SourceRange, in context: EvaluationContext
    ) throws(EvaluationError) -> Value {
        switch op {
        case .and:
            guard try truth(evaluate(left, in: context), at: left.range, what: "`&&`") else { return .bool(false) }
            return .bool(try truth(evaluate(right, in: context), at: right.range, what: "`&&`"))
        case .or:
            if try truth(evaluate(left, in: context), at: left.range, what: "`||`") { return .bool(true) }
            return .bool(try truth(evaluate(right, in: context), at: right.range, what: "`||`"))
        case .equal:
            return .bool(try evaluate(left, in: context).languageEquals(evaluate(right, in: context)))
        case .notEqual:
            return .bool(!(try evaluate(left, in: context).languageEquals(evaluate(right, in: context))))
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let lhs = try evaluate(left, in: context)
            let rhs = try evaluate(right, in: context)
            let order: Int
            if case .int(let a) = lhs, case .int(let b) = rhs {
                // Exact: ids past 2^53 differ where their doubles do not.
                order = a < b ? -1 : (a == b ? 0 : 1)
            } else if let a = lhs.doubleValue, let b = rhs.doubleValue {
                order = a < b ? -1 : (a == b ? 0 : 1)
            } else if case .string(let a) = lhs, case .string(let b) = rhs {
                order = a < b ? -1 : (a == b ? 0 : 1)
            } else {
                throw EvaluationError(
                    "`\(op.rawValue)` compares two numbers or two strings, found \(lhs.type.withArticle) and \(rhs.type.withArticle)",
                    at: range)
            }
            switch op {
            case .less: return .bool(order < 0)
            case .lessOrEqual: return .bool(order <= 0)
            case .greater: return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        }
    }

    // MARK: Functions

    private static func call(
        _ name: Located<String>, _ arguments: [Expression], range: SourceRange, in context: EvaluationContext
    ) throws(EvaluationError) -> Value {
        guard let function = BuiltinFunction(rawValue: name.value) else {
            throw EvaluationError("unknown function `\(name.value)`", at: name.range)
        }
        guard arguments.count == function.arity else {
            throw EvaluationError("`\(function.rawValue)` takes \(function.arity) arguments", at: range)
        }
        var values: [Value] = []
        for argument in arguments { values.append(try evaluate(argument, in: context)) }
        switch function {
        case .success: return .bool(context.dependenciesSucceeded)
        case .failure: return .bool(context.dependencyFailed)
        case .always: return .bool(true)
        case .length:
            switch values[0] {
            case .string(let text): return .int(text.count)
            case .list(let items): return .int(items.count)
            case .object(let fields): return .int(fields.count)
            case .null: return .int(0)
            default:
                throw EvaluationError(
                    "`length` takes a string, a list or an object, found \(values[0].type.withArticle)", at: range)
            }
        case .contains:
            switch (values[0], values[1]) {
            case (.string(let haystack), .string(let needle)): return .bool(haystack.contains(needle))
            case (.string(let haystack), let needle): return .bool(haystack.contains(needle.interpolated))
            case (.list(let items), let needle):
                // A list of a server's making, compared item by item with a value that may be large: counted
                // against the evaluation's budget (`EvaluationLimits`), as every evaluator's work is.
                let meter = EvaluationMeter()
                let cost = needle.size()
                for item in items {
                    do {
                        try meter.spend(cost)
                    } catch {
                        throw stoppedError(error, of: function, at: range)
                    }
                    if item.languageEquals(needle) { return .bool(true) }
                }
                return .bool(false)
            case (.null, _): return .bool(false)
            default:
                throw EvaluationError(
                    "`contains` searches a string or a list, found \(values[0].type.withArticle)", at: range)
            }
        case .json:
            return .string(values[0].jsonText())
        case .fromJSON:
            guard case .string(let text) = values[0] else {
                throw EvaluationError("`from_json` takes a string, found \(values[0].type.withArticle)", at: range)
            }
            do {
                return try Value.parseJSON(text)
            } catch {
                throw EvaluationError("`from_json` could not parse its argument: \(error)", at: range)
            }
        case .default:
            return values[0] == .null ? values[1] : values[0]
        case .match:
            guard let text = try searchedText(values[0], of: function, at: arguments[0].range) else { return .null }
            let pattern = try patternText(values[1], of: function, at: arguments[1].range)
            let groups: [String?]?
            do {
                groups = try RegularExpression.firstMatch(of: pattern, in: text)
            } catch {
                switch error {
                case .invalid(let invalid):
                    throw EvaluationError(
                        "invalid regular expression `\(pattern)`: \(invalid.reason)", at: arguments[1].range)
                case .stopped(let stopped):
                    throw stoppedError(stopped, of: function, at: range)
                }
            }
            guard let groups else { return .null }
            return .list(groups.map { $0.map(Value.string) ?? .null })
        case .xpath:
            guard let text = try searchedText(values[0], of: function, at: arguments[0].range) else { return .null }
            let expression = try patternText(values[1], of: function, at: arguments[1].range)
            let xpath: XPath
            do {
                xpath = try XPath.compile(expression)
            } catch {
                throw EvaluationError("invalid XPath `\(expression)`: \(error)", at: arguments[1].range)
            }
            do {
                return try xpath.evaluate(onDocument: text)
            } catch {
                if let stopped = error.stopped { throw stoppedError(stopped, of: function, at: range) }
                throw EvaluationError("`xpath` cannot read its text as XML: \(error)", at: arguments[0].range)
            }
        case .set:
            guard case .string(let pointer) = values[1] else {
                throw EvaluationError(
                    "`set` takes a JSON pointer as a string, found \(values[1].type.withArticle)",
                    at: arguments[1].range)
            }
            let tokens: [String]
            do {
                tokens = try JSONPointer.tokens(pointer)
            } catch {
                throw EvaluationError(
                    "`set`: `\(pointer)` is not a JSON pointer: \(error.message)", at: arguments[1].range)
            }
            guard let changed = JSONPointer.setting(values[2], at: tokens[...], in: values[0]) else {
                throw EvaluationError(
                    "`set`: \(values[0].type.withArticle) has no place `\(pointer)` (a member is added only at the "
                        + "end of the pointer, and an item only at `-`)", at: range)
            }
            return changed
        case .jsonpath:
            let text = try patternText(values[1], of: function, at: arguments[1].range)
            let query: JSONPath
            do {
                query = try JSONPath.compile(text)
            } catch {
                throw EvaluationError("invalid JSONPath `\(text)`: \(error)", at: arguments[1].range)
            }
            guard values[0] != .null else { return .list([]) }
            do {
                return .list(try query.select(in: values[0]))
            } catch {
                if let stopped = error.stopped { throw stoppedError(stopped, of: function, at: range) }
                throw EvaluationError("`jsonpath` could not evaluate `\(text)`: \(error)", at: range)
            }
        }
    }

    /// The error of an evaluation that was stopped before its end: the step's failure says which function
    /// and why, and is a timeout (the attempt's timeout ran out) or a cancellation as the run's own are.
    static func stoppedError(_ stopped: EvaluationStopped, of function: BuiltinFunction, at range: SourceRange)
        -> EvaluationError
    {
        let kind: StepReason.Kind
        switch stopped.reason {
        case .cancelled: kind = .cancelled
        case .deadline: kind = .timeout
        case .budget: kind = .evaluation
        }
        return EvaluationError("`\(function.rawValue)` was stopped: \(stopped.message)", at: range, kind: kind)
    }

    /// The text `match` and `xpath` search: a string, or a number or boolean as text; nil for null.
    private static func searchedText(_ value: Value, of function: BuiltinFunction, at range: SourceRange)
        throws(EvaluationError) -> String?
    {
        switch value {
        case .null: return nil
        case .string(let text): return text
        case .int, .largeInt, .double, .bool: return value.interpolated
        case .list, .object:
            throw EvaluationError("`\(function.rawValue)` reads a text, found \(value.type.withArticle)", at: range)
        }
    }

    /// The pattern of `match`, the expression of `xpath` or the query of `jsonpath`: a string.
    private static func patternText(_ value: Value, of function: BuiltinFunction, at range: SourceRange)
        throws(EvaluationError) -> String
    {
        guard case .string(let text) = value else {
            throw EvaluationError(
                "`\(function.rawValue)` takes \(function.patternKind ?? "a text") as a string, found \(value.type.withArticle)",
                at: range)
        }
        return text
    }
}
