import ReqPlanSyntax

extension WorkflowTranslator {
    // MARK: Criteria

    /// A criterion as a condition on the response; `nil` (reported) when it cannot be one.
    mutating func criterion(_ criterion: Criterion, of step: ArazzoStep, place: ExpressionPlace? = nil)
        -> ResponseCondition?
    {
        let place = place ?? .criteria(step)
        switch criterion.kind.value {
        case .simple:
            guard let expression = simpleCondition(criterion.condition, in: place) else { return nil }
            return ResponseCondition(expression: expression, written: criterion.condition)
        case .regex, .jsonpath, .xpath:
            guard let context = criterion.context,
                let subject = expression(context.value, at: context.range, in: place)
            else { return nil }
            let condition = criterion.condition
            if let embedded = condition.value.range(of: "{$") {
                let column = condition.value.distance(from: condition.value.startIndex, to: embedded.lowerBound)
                diagnostics.error(
                    .arazzoUnsupported,
                    "runtime expressions inside a `\(criterion.kind.value.rawValue)` condition are not supported yet",
                    at: SourceRange(
                        start: SourceLocation(
                            line: condition.range.start.line, column: condition.range.start.column + column),
                        length: 2),
                    hint: "compare the value in a simple condition instead: `$response.body#/status == $inputs.status`")
                return nil
            }
            let range = condition.range
            func call(_ name: String, _ arguments: [Expression]) -> Expression {
                .call(Located(name, at: range), arguments, range)
            }
            let holds: Expression
            switch criterion.kind.value {
            case .jsonpath:
                // RFC 9535: the criterion holds when the query selects at least one node.
                holds = .binary(
                    .greater, call("length", [call("jsonpath", [subject, .literal(.string(condition.value), range)])]),
                    .literal(.int(0), range), range)
            case .xpath:
                guard compiles(xpath: condition) else { return nil }
                // XPath's effective boolean value: a node-set with a node, a number other than 0, a string
                // that is not empty, `true`.
                holds = .binary(
                    .equal, call("xpath", [subject, .literal(.string("boolean(\(condition.value))"), range)]),
                    .literal(.bool(true), range), range)
            default:
                holds = .binary(
                    .notEqual, call("match", [subject, .literal(.string(condition.value), range)]),
                    .literal(.null, range), range)
            }
            return ResponseCondition(expression: holds, written: condition)
        }
    }

    /// A simple condition (`$statusCode == 200 && $response.body#/status == 'done'`) as an expression: each
    /// runtime expression is read in its place, the operators and literals by reqplan's expression parser.
    mutating func simpleCondition(_ condition: Located<String>, in place: ExpressionPlace) -> Expression? {
        // Each runtime expression is replaced by a name of the same length, so that the parser's columns
        // stay those of the file; the names are then replaced by what the runtime expressions read.
        var scalars = Array(condition.value.unicodeScalars)
        var replaced: [String: Expression] = [:]
        var index = 0
        var failed = false
        while index < scalars.count {
            guard scalars[index] == "$" else {
                if scalars[index] == "'" || scalars[index] == "\"" {
                    let quote = scalars[index]
                    let start = index
                    index += 1
                    while index < scalars.count, scalars[index] != quote { index += 1 }
                    if quote == "\"", index < scalars.count {
                        warnDoubleQuoted(Array(scalars[(start + 1)..<index]), in: condition, at: start)
                    }
                }
                index += 1
                continue
            }
            var end = index + 1
            while end < scalars.count, RuntimeExpression.continues(scalars[end]) { end += 1 }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars[index..<end])
            let range = SourceRange(
                start: SourceLocation(
                    line: condition.range.start.line, column: condition.range.start.column + index),
                length: end - index)
            let name = Self.placeholder(replaced.count, length: end - index)
            if let read = expression(text, at: range, in: place) {
                replaced[name] = read
            } else {
                failed = true
            }
            // A name longer than what it stands for (a `$` alone, reported as no expression) is not written: it
            // would run past the text (a fuzzed `$statusCode == 200$` crashed validate).
            if name.unicodeScalars.count == end - index {
                for (offset, scalar) in name.unicodeScalars.enumerated() { scalars[index + offset] = scalar }
            } else {
                failed = true
            }
            index = end
        }
        guard !failed else { return nil }
        var rewritten = ""
        rewritten.unicodeScalars.append(contentsOf: scalars)
        switch TemplateParser(source: source).condition(rewritten, at: condition.range) {
        case .failure(var diagnostic):
            diagnostic.message = diagnostic.message.replacingPlaceholders(replaced)
            diagnostic.hint =
                "a simple condition compares runtime expressions and literals with `==`, `!=`, `<`, "
                + "`<=`, `>`, `>=`, `&&`, `||` and `!`"
            diagnostics.error(
                .invalidCriterion, "criterion `\(condition.value)` does not parse: \(diagnostic.message)",
                at: diagnostic.range ?? condition.range, hint: diagnostic.hint)
            return nil
        case .success(let parsed):
            return parsed.substituting(replaced)
        }
    }

    /// Warns that a simple condition writes a string literal in double quotes, which the specification's
    /// literals do not have (they are single-quoted); it is read as the string it holds all the same. The
    /// fix writes it single-quoted where the file's text at that place is the literal as written (a plain
    /// scalar), and the string holds no single quote.
    private mutating func warnDoubleQuoted(_ content: [Unicode.Scalar], in condition: Located<String>, at offset: Int) {
        var text = ""
        text.unicodeScalars.append(contentsOf: content)
        let range = SourceRange(
            start: SourceLocation(line: condition.range.start.line, column: condition.range.start.column + offset),
            length: content.count + 2)
        let fix: Diagnostic.Fix? =
            writtenText(at: range) == "\"" + text + "\"" && !text.contains("'")
            ? Diagnostic.Fix(title: "Write the string in single quotes", replacement: "'" + text + "'") : nil
        diagnostics.warning(
            .invalidCriterion, "a condition's strings are single-quoted: `\"\(text)\"` is read as the string `\(text)`",
            at: range, hint: "write `'\(text)'`: other runners may not read double quotes", fix: fix)
    }

    /// A name of `length` characters (at least 2) that no condition writes: `zz0`, `zz1_____`.
    static func placeholder(_ index: Int, length: Int) -> String {
        let base = "z\(index)"
        return base.count >= length ? base : base + String(repeating: "_", count: length - base.count)
    }

    // MARK: Actions

    /// Checks the `onFailure` actions of a step (`onSuccess` ones are read by `controlFlow`): `end` and
    /// `retry` run; a `goto` whose target exists is refused as not supported yet.
    mutating func checkFailureActions(of step: ArazzoStep) {
        for entry in step.onFailure {
            guard let action = action(entry, success: false), action.kind.value == .goto else { continue }
            if let target = action.stepID, workflow.step(target.value) == nil {
                unknownGotoTarget(target)
            } else if let target = action.workflowID, calledWorkflow(target) == nil {
                continue
            } else {
                // Elsewhere the workflow runs as a state machine (`needsStateMachine`); not yet beside `dependsOn`.
                diagnostics.error(
                    .arazzoUnsupported,
                    "a `goto` on failure in a workflow whose steps declare `dependsOn` is not supported yet",
                    at: action.kind.range,
                    hint: "there each step runs when what it depends on has ended, not after the one before it")
            }
        }
    }

    /// An action, or the component a `reference` names.
    mutating func action(_ entry: ActionEntry, success: Bool) -> Action? {
        switch entry {
        case .action(let action): return action
        case .reference(let reference):
            let kind = success ? "successActions" : "failureActions"
            let prefix = "$components.\(kind)."
            let table = success ? document.components.successActions : document.components.failureActions
            guard reference.value.hasPrefix(prefix), let action = table[String(reference.value.dropFirst(prefix.count))]
            else {
                diagnostics.error(
                    .invalidValue, "`\(reference.value)` names no action of `components.\(kind)`", at: reference.range,
                    hint: Suggestion.didYouMean(
                        String(reference.value.dropFirst(prefix.count)), in: table.keys.sorted()))
                return nil
            }
            return action
        }
    }

    /// The `retry` actions of a step's `onFailure` (the workflow's `failureActions` when it has none).
    func retries(_ step: ArazzoStep) -> [Action] {
        let entries = step.onFailure.isEmpty ? workflow.failureActions : step.onFailure
        return entries.compactMap { entry in
            switch entry {
            case .action(let action): return action.kind.value == .retry ? action : nil
            case .reference(let reference):
                let action = document.components.failureActions[
                    String(reference.value.dropFirst("$components.failureActions.".count))]
                return action?.kind.value == .retry ? action : nil
            }
        }
    }

    /// A `retry` action as polling: the request is sent again, `retryAfter` apart, at most `retryLimit`
    /// more times, until its success criteria hold or the action's own criteria no longer do.
    mutating func poll(of step: ArazzoStep, conditions: [ResponseCondition]) -> PollPolicy? {
        guard let retry = retries(step).first else { return nil }
        let range = retry.kind.range
        let success = conditions.map(\.expression).reduce(nil as Expression?) { partial, next in
            partial.map { .binary(.and, $0, next, range) } ?? next
        }
        let twoHundreds = Expression.binary(
            .and,
            .binary(
                .greaterOrEqual, path("response", [.member("status")], at: range), .literal(.int(200), range), range),
            .binary(.less, path("response", [.member("status")], at: range), .literal(.int(300), range), range), range)
        var until = success ?? twoHundreds
        let when = retry.criteria.compactMap { criterion($0, of: step) }.map(\.expression)
        if let first = when.first {
            let applies = when.dropFirst().reduce(first) { .binary(.and, $0, $1, range) }
            until = .binary(.or, until, .not(applies, range), range)
        }
        let limit = retry.retryLimit?.value ?? 1
        return PollPolicy(
            until: until,
            every: retry.retryAfter.map {
                Located(.fixed(PlanDuration(milliseconds: Int(($0.value * 1000).rounded()))), at: $0.range)
            } ?? Located(.fixed(PlanDuration(milliseconds: 0)), at: range),
            timeout: nil, attempts: Located(limit + 1, at: retry.retryLimit?.range ?? range),
            unsafe: Located(true, at: range), range: range)
    }
}

extension Expression {
    /// The expression with each variable named in `replacements` replaced.
    func substituting(_ replacements: [String: Expression]) -> Expression {
        switch self {
        case .literal: return self
        case .variable(let name): return replacements[name.value] ?? self
        case .access(let base, let component, let range):
            return .access(base.substituting(replacements), component, range)
        case .call(let name, let arguments, let range):
            return .call(name, arguments.map { $0.substituting(replacements) }, range)
        case .not(let operand, let range): return .not(operand.substituting(replacements), range)
        case .binary(let op, let left, let right, let range):
            return .binary(op, left.substituting(replacements), right.substituting(replacements), range)
        }
    }
}

extension String {
    /// The text with each placeholder name replaced by a description of what it stands for.
    func replacingPlaceholders(_ replacements: [String: Expression]) -> String {
        var text = self
        for (name, expression) in replacements {
            var result = ""
            var rest = Substring(text)
            while let found = rest.firstRange(of: name) {
                result += rest[..<found.lowerBound] + expression.description
                rest = rest[found.upperBound...]
            }
            text = result + rest
        }
        return text
    }
}
