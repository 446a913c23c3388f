import ReqPlanSyntax
import ReqPlanJSONPath
import ReqPlanXPath

/// Where an expression is written, which decides the names it may use.
struct ExpressionScope {
    /// The step whose expression this is (`nil` for defaults and outputs).
    var node: NodeID?
    /// for_each item names visible here, innermost last, with their for_each.
    var items: [(name: String, loop: NodeID)]
    /// Whether `steps.X` may be read (not in `defaults`).
    var allowsSteps: Bool
    /// Whether `success()`, `failure()`, `always()` may be called (only in `if:`).
    var allowsStatusFunctions: Bool
    /// Whether references create dependencies of `node`.
    var createsDependencies: Bool
    /// "`defaults`", "output `x`", for messages.
    var context: String
    /// Whether `response` (the latest response of a polled request) may be read: only in `poll.until`.
    var allowsResponse = false
    /// Whether that `response` is a sub-plan's end, judged by its step's expectations: `status` (the last
    /// status the sub-plan received) and `outputs`.
    var responseOfSubPlan = false
    /// The var whose value this is: what it reads is recorded for the var, and becomes a dependency of
    /// whatever reads the var.
    var variable: String? = nil
}

/// Resolves every name in every expression of a plan: `inputs.X`, `steps.X`,
/// `env.X`, `vars.X`, item names and functions. Records the implicit dependencies and
/// what each step's result must keep. A sub-plan's own steps (nested in `nodes`) were
/// resolved when its file was checked: only the plan's own steps are resolved here, with
/// the calls of its `plan` steps checked against their sub-plans.
struct NameResolver {
    let plan: Plan
    var nodes: [StepNode]
    /// The plan's own step ids → nodes.
    let index: [String: NodeID]
    /// The sub-plan of each `plan` step, by step id.
    let subPlans: [String: IncludedPlan]
    var diagnostics: DiagnosticCollector
    var usage: [NodeID: ResultUsage] = [:]
    var inputsUsed: Set<String> = []
    var envUsed: Set<String> = []
    /// Inputs suggested for a misspelt `inputs.X`: probably meant to be read, so not reported unused.
    var inputsSuggested: Set<String> = []
    /// Every for_each item name, with its loop, for "used outside its for_each" messages.
    let allItemNames: [String: NodeID]
    /// The plan's vars by name.
    let varsByName: [String: Variable]
    /// For each var, the steps it reads itself (its own `steps.X`), with where.
    var varStepReads: [String: [(target: NodeID, range: SourceRange)]] = [:]
    /// For each var, the vars it reads, with where.
    var varVarReads: [String: [Located<String>]] = [:]
    /// For each var, the steps it reads directly or through other vars (`PlanInstance.varSteps`).
    var varSteps: [String: [NodeID]] = [:]

    private let inputNames: Set<String>
    private let declaredEnv: Set<String>

    init(
        plan: Plan, nodes: [StepNode], index: [String: NodeID], diagnostics: DiagnosticCollector,
        subPlans: [String: IncludedPlan] = [:]
    ) {
        self.plan = plan
        self.nodes = nodes
        self.index = index
        self.subPlans = subPlans
        self.diagnostics = diagnostics
        self.inputNames = Set(plan.inputs.map(\.name.value))
        self.declaredEnv = Set(plan.inputs.compactMap { $0.env?.value })
        self.varsByName = Dictionary(plan.vars.map { ($0.name.value, $0) }, uniquingKeysWith: { first, _ in first })
        var items: [String: NodeID] = [:]
        for node in nodes where node.instance == 0 {
            if case .forEach(let loop) = node.step.kind, items[loop.itemName.value] == nil {
                items[loop.itemName.value] = node.nodeID
            }
        }
        self.allItemNames = items
    }

    /// The loops enclosing `node`, outermost first (not including the node itself).
    func enclosingLoops(of node: NodeID) -> [NodeID] {
        var loops: [NodeID] = []
        var current = nodes[node].loop
        while let loop = current {
            loops.append(loop)
            current = nodes[loop].loop
        }
        return loops.reversed()
    }

    /// Item names visible inside `node` (its loops'), plus the node's own if it is a for_each body.
    func itemScope(of node: NodeID, includingOwn: Bool) -> [(name: String, loop: NodeID)] {
        var loops = enclosingLoops(of: node)
        if includingOwn, case .forEach = nodes[node].step.kind { loops.append(node) }
        return loops.compactMap { loop in
            guard case .forEach(let forEach) = nodes[loop].step.kind else { return nil }
            return (forEach.itemName.value, loop)
        }
    }

    // MARK: Walking the plan

    mutating func resolveAll() {
        // Vars first: what they read becomes the dependencies of whatever reads them.
        resolveVars()

        // Defaults: inputs, env, and vars that read no step.
        let defaultsScope = ExpressionScope(
            node: nil, items: [], allowsSteps: false, allowsStatusFunctions: false,
            createsDependencies: false, context: "`defaults`")
        for expression in plan.defaults.expressions { resolve(expression, in: defaultsScope) }

        for id in nodes.indices where nodes[id].instance == 0 { resolveStep(id) }

        for output in plan.outputs {
            let scope = ExpressionScope(
                node: nil, items: [], allowsSteps: true, allowsStatusFunctions: false,
                createsDependencies: false, context: "output `\(output.name.value)`")
            for expression in output.value.expressions { resolve(expression, in: scope) }
        }

        resolveObjectives()
    }

    private mutating func resolveStep(_ id: NodeID) {
        let node = nodes[id]
        let step = node.step
        let outer = ExpressionScope(
            node: id, items: itemScope(of: id, includingOwn: false), allowsSteps: true, allowsStatusFunctions: false,
            createsDependencies: true, context: "step `\(node.id)`")

        // needs
        var seen: [String: SourceRange] = [:]
        for need in step.needs {
            if let first = seen[need.value] {
                diagnostics.warning(
                    .redundantNeed, "`\(need.value)` is listed twice in `needs` of step `\(node.id)`",
                    at: need.range, notes: [.init("first listed here", at: first)])
                continue
            }
            seen[need.value] = need.range
            guard let target = lookUpStep(need, from: id, items: outer.items, what: "`needs`") else { continue }
            addDependency(of: id, on: target, reason: .needs, range: need.range)
        }

        // if: evaluated once, before the step (for a for_each, before the loop).
        if let condition = step.condition {
            var scope = outer
            scope.allowsStatusFunctions = true
            resolve(condition, in: scope)
        }

        // The control between a flow's members reads their results after each ends: no dependency, the flow
        // runs them (`FlowControl`).
        if let flow = step.flow {
            var scope = outer
            scope.createsDependencies = false
            scope.context = "the control flow of `\(node.id)`"
            for condition in flow.conditions { resolve(condition, in: scope) }
        }

        // The for_each list is evaluated outside the loop.
        if case .forEach(let loop) = step.kind {
            for expression in loop.itemExpressions { resolve(expression, in: outer) }
        }

        // The inputs a sub-plan is given are evaluated when the step starts, like its `if:`.
        if case .plan(let call) = step.kind {
            for input in call.inputs {
                for expression in input.value.expressions { resolve(expression, in: outer) }
            }
            checkCall(call, of: id, in: outer)
            // Its expectations are judged when it has ended (an Arazzo workflow step's success criteria):
            // `response.status` the last status its sub-plan received, `response.outputs` its outputs.
            var judged = outer
            judged.allowsResponse = true
            judged.responseOfSubPlan = true
            for condition in step.expect?.conditions ?? [] { resolve(condition.expression, in: judged) }
        }

        // The request (and its expectations) run per item inside a for_each.
        if let request = step.request {
            var inner = outer
            inner.items = itemScope(of: id, includingOwn: true)
            for expression in request.expressions { resolve(expression, in: inner) }
            for expression in step.expect?.expressions ?? [] { resolve(expression, in: inner) }
            inner.allowsResponse = true
            if let poll = step.poll { resolve(poll.until, in: inner) }
            for condition in step.expect?.conditions ?? [] { resolve(condition.expression, in: inner) }
        }
    }

    mutating func addDependency(
        of node: NodeID, on target: NodeID, reason: Dependency.Reason,
        range: SourceRange
    ) {
        if nodes[node].dependencies.contains(where: { $0.target == target }) { return }
        nodes[node].dependencies.append(Dependency(target: target, reason: reason, range: range))
    }

    /// Finds the step a name refers to, checking it can be addressed from `from`.
    private mutating func lookUpStep(
        _ name: Located<String>, from: NodeID?, items: [(name: String, loop: NodeID)], what: String
    ) -> NodeID? {
        guard let target = index[name.value] else {
            if plan.unreadStepIDs.contains(name.value) { return nil }
            // `steps.a.b` when a step is (invalidly) named `a.b`: its id is reported already.
            if index.keys.contains(where: { $0.hasPrefix(name.value + ".") }) { return nil }
            let suggestion = Suggestion.replacement(for: name.value, in: nodes.filter { $0.instance == 0 }.map(\.id))
            diagnostics.error(
                what == "`needs`" ? .unknownNeed : .unknownStep,
                what == "`needs`"
                    ? "`needs` names `\(name.value)`, but there is no such step"
                    : "unknown step `\(name.value)`",
                at: name.range, hint: suggestion?.hint, fix: suggestion?.fix)
            return nil
        }
        if let loop = nodes[target].loop {
            let visible = Set(items.map(\.loop))
            if !visible.contains(loop) {
                diagnostics.error(
                    .unreachableStep,
                    "step `\(name.value)` runs once per item of for_each `\(nodes[loop].id)` and cannot be addressed from outside it",
                    at: name.range,
                    hint: "wait for `\(nodes[loop].id)` and read `steps.\(nodes[loop].id).results` instead")
                return nil
            }
        }
        return target
    }

    // MARK: Expressions

    mutating func resolve(_ expression: Expression, in scope: ExpressionScope) {
        for reference in expression.references { resolve(reference, in: scope) }
        for call in expression.calls { check(call: call, in: scope) }
    }

    private mutating func check(
        call: (name: Located<String>, arguments: [Expression], range: SourceRange), in scope: ExpressionScope
    ) {
        guard let function = BuiltinFunction(rawValue: call.name.value) else {
            let suggestion = Suggestion.replacement(for: call.name.value, in: BuiltinFunction.allCases.map(\.rawValue))
            let hint =
                suggestion?.hint
                ?? "functions are " + BuiltinFunction.allCases.map { "`\($0.rawValue)()`" }.joined(separator: ", ")
            diagnostics.error(
                .unknownFunction, "unknown function `\(call.name.value)`", at: call.name.range,
                hint: hint, fix: suggestion?.fix)
            return
        }
        if call.arguments.count != function.arity {
            let count = function.arity
            diagnostics.error(
                .invalidCall,
                "`\(function.rawValue)` takes \(count) argument\(count == 1 ? "" : "s"), found \(call.arguments.count)",
                at: call.range, hint: "call it as `\(function.signature)`")
        }
        if function.isStatusFunction && !scope.allowsStatusFunctions {
            diagnostics.error(
                .invalidCall, "`\(function.rawValue)()` is only meaningful in `if:`", at: call.range,
                hint: "it tells whether the steps before succeeded; use it in a step's `if:`")
        }
        if call.arguments.count == 2, function.patternKind != nil {
            checkLiteralPattern(call.arguments[1], of: function)
        }
    }

    /// Compiles the literal pattern of `match()`, expression of `xpath()` or query of `jsonpath()` before the
    /// run, so a mistake in it is a located error of `validate` (a computed one is checked when it is evaluated).
    private mutating func checkLiteralPattern(_ argument: Expression, of function: BuiltinFunction) {
        guard case .literal(let value, let range) = argument else { return }
        guard case .string(let text) = value else {
            diagnostics.error(
                .invalidCall,
                "`\(function.rawValue)` takes \(function.patternKind ?? "a text") as a string, found \(value.type.withArticle)",
                at: range, hint: "call it as `\(function.signature)`")
            return
        }
        switch function {
        case .match:
            do {
                _ = try RegularExpression.compile(text)
            } catch {
                diagnostics.error(
                    .invalidRegex, "invalid regular expression `\(text)`: \(error.reason)", at: range,
                    hint: "patterns use ICU syntax, as `matches` does; write `\\(` for a literal `(`")
            }
        case .jsonpath:
            do {
                _ = try JSONPath.compile(text)
            } catch {
                diagnostics.error(
                    .invalidJSONPath, "invalid JSONPath `\(text)`: \(error)",
                    at: characterRange(error.position, of: text, writtenAt: range),
                    hint: "RFC 9535 JSONPath, as in `$.items[*].id` or `$..book[?@.price < 10]`")
            }
        default:
            do {
                _ = try XPath.compile(text)
            } catch {
                diagnostics.error(
                    .invalidXPath, "invalid XPath `\(text)`: \(error)",
                    at: characterRange(error.position, of: text, writtenAt: range),
                    hint: "XPath 1.0, as in `//input[@name='csrf']/@value` or `string(/order/id)`")
            }
        }
    }

    /// The place of character `position` (from 1) of a string literal's `text`, when the literal is written
    /// on one line without escapes (so each character of the text is one column); else the whole literal.
    private func characterRange(_ position: Int, of text: String, writtenAt literal: SourceRange) -> SourceRange {
        let length = text.unicodeScalars.count
        guard literal.start.line == literal.end.line, literal.end.column - literal.start.column == length + 2,
            let line = plan.source.line(literal.start.line)
        else { return literal }
        let written = line.unicodeScalars.dropFirst(literal.start.column - 1).prefix(length + 2)
        guard let quote = written.first, quote == "'" || quote == "\"",
            written.elementsEqual([quote] + Array(text.unicodeScalars) + [quote])
        else { return literal }
        return SourceRange(at: literal.start.advanced(by: min(position, length + 1)))
    }

    private mutating func resolve(_ reference: Reference, in scope: ExpressionScope) {
        let root = reference.root
        switch root.value {
        case "inputs":
            guard let name = reference.memberName(at: 0) else {
                diagnostics.error(
                    .unknownInput, "`inputs` needs an input name, as in `inputs.user`", at: reference.range)
                return
            }
            if inputNames.contains(name.value) {
                inputsUsed.insert(name.value)
            } else if !plan.unreadInputNames.contains(name.value) {
                let suggestion = Suggestion.closest(to: name.value, in: plan.inputs.map(\.name.value))
                if let suggestion { inputsSuggested.insert(suggestion) }
                let hint =
                    suggestion.map { "did you mean `\($0)`?" }
                    ?? (plan.inputs.isEmpty
                        ? "declare it under `inputs:`"
                        : "inputs are " + plan.inputs.map { "`\($0.name.value)`" }.joined(separator: ", "))
                diagnostics.error(
                    .unknownInput, "unknown input `\(name.value)`", at: name.range, hint: hint,
                    fix: suggestion.flatMap { Suggestion.fix(replacing: name.value, with: $0) })
            }
        case "env":
            guard let name = reference.memberName(at: 0) else {
                diagnostics.error(.undeclaredEnv, "`env` needs a variable name, as in `env.HOME`", at: reference.range)
                return
            }
            if declaredEnv.contains(name.value) {
                envUsed.insert(name.value)
            } else {
                let suggestion = Suggestion.replacement(for: name.value, in: declaredEnv.sorted())
                diagnostics.error(
                    .undeclaredEnv, "environment variable `\(name.value)` is not declared by any input", at: name.range,
                    hint: suggestion?.hint ?? "declare it with an input: `inputs: { x: { env: \(name.value) } }`",
                    fix: suggestion?.fix)
            }
        case "steps":
            resolveStepReference(reference, in: scope)
        case "response":
            resolveResponseReference(reference, in: scope)
        case "vars":
            resolveVarReference(reference, in: scope)
        default:
            // The innermost item of that name: an inner item hides an outer one.
            if let item = scope.items.last(where: { $0.name == root.value }) {
                checkItemField(reference, of: item.loop)
                return
            }
            if let loop = allItemNames[root.value] {
                diagnostics.error(
                    .itemOutOfScope,
                    "`\(root.value)` is the item of for_each `\(nodes[loop].id)` and exists only inside it",
                    at: root.range, hint: "read `steps.\(nodes[loop].id).results` from outside the for_each")
                return
            }
            var candidates = ["inputs", "steps", "env", "vars"] + scope.items.map(\.name)
            if scope.allowsResponse { candidates.append("response") }
            candidates += BuiltinFunction.allCases.map(\.rawValue)
            let suggestion = Suggestion.closest(to: root.value, in: candidates)
            if suggestion == "inputs", let name = reference.memberName(at: 0), inputNames.contains(name.value) {
                // `input.user`: `user` is meant to be read, so it is not reported unused.
                inputsSuggested.insert(name.value)
            }
            var hint = suggestion.map { "did you mean `\($0)`?" }
            var fix = suggestion.flatMap { Suggestion.fix(replacing: root.value, with: $0) }
            if let function = BuiltinFunction(rawValue: root.value) {
                hint = "call it: `\(function.rawValue)()`"
                fix = nil
            }
            diagnostics.error(
                .unknownRoot, "unknown name `\(root.value)` in expression", at: root.range,
                hint: hint ?? "expressions start from `inputs`, `steps`, `env`, `vars`"
                    + (scope.items.isEmpty ? "" : " or " + scope.items.map { "`\($0.name)`" }.joined(separator: ", ")),
                fix: fix)
        }
    }

    /// `item.FIELD` of an item that is a row of a data file whose rows are objects of known fields (a CSV
    /// header's names; the keys of JSON Lines whose lines are all objects): `FIELD` MUST be one of them.
    private mutating func checkItemField(_ reference: Reference, of loop: NodeID) {
        guard case .forEach(let forEach) = nodes[loop].step.kind, let rows = forEach.file?.rows,
            let fields = rows.fields, let field = reference.memberName(at: 0), !fields.contains(field.value)
        else { return }
        let noun = rows.format == .csv ? "column" : "key"
        let suggestion = Suggestion.replacement(for: field.value, in: fields)
        let listed = fields.prefix(10).map { "`\($0)`" }.joined(separator: ", ") + (fields.count > 10 ? ", …" : "")
        diagnostics.error(
            .unknownItemField,
            "the rows of `\(forEach.file?.path.value ?? rows.path)` have no \(noun) `\(field.value)`",
            at: field.range,
            hint: suggestion?.hint
                ?? (fields.isEmpty ? "its rows have no \(noun)s" : "its \(noun)s are \(listed)"),
            fix: suggestion?.fix)
    }

    /// `response.FIELD`: the latest response of the step, readable in its `poll.until` only.
    private mutating func resolveResponseReference(_ reference: Reference, in scope: ExpressionScope) {
        guard scope.allowsResponse else {
            diagnostics.error(
                .responseOutsidePoll, "`response` exists only in the `until` of a `poll`",
                at: reference.root.range,
                hint: "read a finished step's response as `steps.ID.body`, `steps.ID.status`…")
            return
        }
        let fields = scope.responseOfSubPlan ? ["status", "outputs"] : PollPolicy.responseFields
        if !reference.components.isEmpty, reference.memberName(at: 0).map({ fields.contains($0.value) }) != true {
            let written = reference.memberName(at: 0)
            let suggestion = written.flatMap { Suggestion.replacement(for: $0.value, in: fields) }
            diagnostics.error(
                .unknownField,
                written.map { "`response` has no field `\($0.value)`" } ?? "expected a field name after `response`",
                at: written?.range ?? reference.components[0].range,
                hint: suggestion?.hint ?? "fields are " + fields.map { "`\($0)`" }.joined(separator: ", "),
                fix: suggestion?.fix)
        }
    }

    private mutating func resolveStepReference(_ reference: Reference, in scope: ExpressionScope) {
        guard let name = reference.memberName(at: 0) else {
            diagnostics.error(.unknownStep, "`steps` needs a step id, as in `steps.login.body`", at: reference.range)
            return
        }
        guard scope.allowsSteps else {
            diagnostics.error(
                .invalidExpression, "\(scope.context) cannot read step results", at: reference.range,
                hint: "defaults apply to every request, so they may only use `inputs` and `env`")
            return
        }
        guard let target = lookUpStep(name, from: scope.node, items: scope.items, what: "expression") else { return }
        let targetNode = nodes[target]

        // The field after the step id.
        var recorded = usage[target] ?? ResultUsage()
        defer { usage[target] = recorded }
        if reference.components.count == 1 {
            recorded.whole = true
        } else if let fieldName = reference.memberName(at: 1) {
            guard let field = ResultField(rawValue: fieldName.value) else {
                let suggestion = Suggestion.replacement(for: fieldName.value, in: ResultField.allCases.map(\.rawValue))
                diagnostics.error(
                    .unknownField, "step results have no field `\(fieldName.value)`", at: fieldName.range,
                    hint: suggestion?.hint
                        ?? "fields are " + ResultField.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", "),
                    fix: suggestion?.fix)
                return
            }
            if field.isCollectionField && !targetNode.step.isCollection {
                diagnostics.error(
                    .unknownField,
                    "`\(field.rawValue)` exists only on groups, sequences and for_each; `\(name.value)` is a request",
                    at: fieldName.range, hint: "read `steps.\(name.value).body` or `.status` instead")
                return
            }
            if field.isSubPlanField && targetNode.kind != .plan {
                diagnostics.error(
                    .unknownField,
                    "`\(field.rawValue)` exists only on plan steps; `\(name.value)` is a \(targetNode.step.kindName)",
                    at: fieldName.range, hint: "a `plan` step gives the outputs of the plan file it runs")
                return
            }
            if field == .outputs, let output = reference.memberName(at: 2) {
                checkOutput(output, of: target)
            }
            if field.isRequestField && targetNode.step.isCollection {
                diagnostics.error(
                    .unknownField,
                    "`\(field.rawValue)` exists only on requests; `\(name.value)` is a \(targetNode.step.kindName)",
                    at: fieldName.range,
                    hint: targetNode.kind == .plan
                        ? "read what the sub-plan returns through `steps.\(name.value).outputs`"
                        : "read its members' results through `steps.\(name.value).results`")
                return
            }
            recorded.fields.insert(field)
            if field == .results {
                if reference.components.count > 3, let itemField = reference.memberName(at: 3),
                    let itemResultField = ResultField(rawValue: itemField.value)
                {
                    recorded.itemFields.insert(itemResultField)
                } else {
                    recorded.whole = true
                }
            }
        } else {
            diagnostics.error(
                .unknownField, "expected a field name after `steps.\(name.value)`",
                at: reference.components[1].range, hint: "as in `steps.\(name.value).body`")
            return
        }

        if let variable = scope.variable {
            varStepReads[variable, default: []].append((target, reference.range))
        }
        if scope.createsDependencies, let node = scope.node {
            addDependency(of: node, on: target, reason: .reference, range: reference.range)
        }
    }
}
