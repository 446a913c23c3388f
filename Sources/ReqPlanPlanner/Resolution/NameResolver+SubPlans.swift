import ReqPlanSyntax

// The interface of a sub-plan, checked at each `plan` step before anything runs: every input given is
// declared by the sub-plan and has its declared type (a literal always, an expression when its type is
// known statically), every required input is given, and `steps.X.outputs.NAME` names a declared output.
// A problem is located in the calling file, with a note at the sub-plan's declaration (another file).

extension NameResolver {
    /// Checks the inputs a `plan` step gives against its sub-plan's declarations.
    mutating func checkCall(_ call: SubPlanCall, of node: NodeID, in scope: ExpressionScope) {
        guard let sub = subPlans[nodes[node].id]?.plan else { return }
        let file = sub.source.path
        if let objective = sub.slo.first {
            diagnostics.warning(
                .subPlanObjectives,
                "sub-plan `\(call.file.value)` has `slo:`, which is not checked when it runs as a step",
                at: call.file.range, notes: [.init("its first objective is here", at: objective.range, in: file)],
                hint: "only the plan given to a load run has its `slo:` checked; to hold this step to limits, "
                    + "write them in this plan's `slo:` with `step: \(nodes[node].localID)`")
        }
        let declared = Dictionary(sub.inputs.map { ($0.name.value, $0) }, uniquingKeysWith: { first, _ in first })
        // An input suggested for a misspelt one is not reported missing as well.
        var suggested: Set<String> = []
        for given in call.inputs {
            guard let declaration = declared[given.name.value] else {
                if sub.unreadInputNames.contains(given.name.value) { continue }
                let names = sub.inputs.map(\.name.value)
                let suggestion = Suggestion.closest(to: given.name.value, in: names)
                if let suggestion { suggested.insert(suggestion) }
                let hint =
                    suggestion.map { "did you mean `\($0)`?" }
                    ?? (names.isEmpty
                        ? "`\(call.file.value)` declares no inputs"
                        : "its inputs are " + names.map { "`\($0)`" }.joined(separator: ", "))
                let shown = suggestion.flatMap { declared[$0] } ?? sub.inputs.first
                let notes = shown.map {
                    [Diagnostic.Note("`\($0.name.value)` is declared here", at: $0.name.range, in: file)]
                }
                diagnostics.error(
                    .unknownSubPlanInput,
                    "sub-plan `\(call.file.value)` has no input `\(given.name.value)`",
                    at: given.name.range, notes: notes ?? [], hint: hint,
                    fix: suggestion.flatMap { Suggestion.fix(replacing: given.name.value, with: $0) })
                continue
            }
            guard let expected = declaration.knownType, let found = staticType(of: given.value), found != expected
            else { continue }
            let declaredAt = declaration.type?.range ?? declaration.name.range
            diagnostics.error(
                .subPlanInputType,
                "input `\(given.name.value)` of sub-plan `\(call.file.value)` is \(expected.withArticle), "
                    + "but this is \(found.withArticle)",
                at: given.value.range,
                notes: [
                    .init("`\(given.name.value)` is declared here as \(expected.withArticle)", at: declaredAt, in: file)
                ],
                hint: Self.typeHint(expected))
        }
        let given = Set(call.inputs.map(\.name.value))
        for declaration in sub.inputs
        where declaration.isRequired && declaration.env == nil
            && !given.contains(declaration.name.value) && !suggested.contains(declaration.name.value)
        {
            diagnostics.error(
                .missingSubPlanInput,
                "sub-plan `\(call.file.value)` needs input `\(declaration.name.value)`, which is not given",
                at: call.inputsKey?.range ?? call.key.range,
                notes: [
                    .init(
                        "`\(declaration.name.value)` is declared here, without a default", at: declaration.name.range,
                        in: file)
                ],
                hint: "give it under `inputs:`: `\(declaration.name.value): …`")
        }
    }

    /// `steps.X.outputs.NAME`: the sub-plan of `X` must declare `NAME`.
    mutating func checkOutput(_ name: Located<String>, of node: NodeID) {
        guard let sub = subPlans[nodes[node].id]?.plan,
            !sub.outputs.contains(where: { $0.name.value == name.value })
        else { return }
        let names = sub.outputs.map(\.name.value)
        let suggestion = Suggestion.closest(to: name.value, in: names)
        let file = nodes[node].step.subPlan?.file.value ?? sub.source.path
        let shown = suggestion.flatMap { wanted in sub.outputs.first { $0.name.value == wanted } } ?? sub.outputs.first
        diagnostics.error(
            .unknownSubPlanOutput, "sub-plan `\(file)` has no output `\(name.value)`", at: name.range,
            notes: shown.map { [.init("`\($0.name.value)` is declared here", at: $0.name.range, in: sub.source.path)] }
                ?? [],
            hint: suggestion.map { "did you mean `\($0)`?" }
                ?? (names.isEmpty
                    ? "`\(file)` declares no outputs"
                    : "its outputs are " + names.map { "`\($0)`" }.joined(separator: ", ")),
            fix: suggestion.flatMap { Suggestion.fix(replacing: name.value, with: $0) })
    }

    private static func typeHint(_ type: ValueType) -> String {
        switch type {
        case .string: "give text, or a `${{ }}` that gives text"
        case .number: "give a number, as in `3`"
        case .boolean: "give `true` or `false`"
        case .list: "give a YAML list, or one `${{ }}` that gives a list"
        case .object: "give a YAML mapping, or one `${{ }}` that gives an object"
        case .null: "give `null`"
        }
    }

    // MARK: Static types

    /// The type a value will have, when it can be told before running: a literal's, text around `${{ }}`
    /// (a string), and the expressions below; `nil` when unknown, or null (which fits any type).
    func staticType(of value: ValueTemplate) -> ValueType? {
        switch value {
        case .literal(let literal, _): return literal == .null ? nil : literal.type
        case .list: return .list
        case .object: return .object
        case .template(let template):
            guard let expression = template.singleExpression else { return .string }
            var visiting: Set<String> = []
            return staticType(of: expression, visiting: &visiting)
        }
    }

    private func staticType(of expression: Expression, visiting: inout Set<String>) -> ValueType? {
        switch expression {
        case .literal(let value, _):
            return value == .null ? nil : value.type
        case .not, .binary:
            return .boolean
        case .call(let name, let arguments, _):
            switch BuiltinFunction(rawValue: name.value) {
            case .success, .failure, .always, .contains: return .boolean
            case .length: return .number
            case .json: return .string
            case .match: return arguments.isEmpty ? nil : .list
            default: return nil
            }
        case .variable, .access:
            guard let reference = expression.reference else { return nil }
            switch reference.root.value {
            case "inputs":
                guard reference.components.count == 1, let name = reference.memberName(at: 0),
                    let input = plan.inputs.first(where: { $0.name.value == name.value })
                else { return nil }
                return input.knownType
            case "env":
                return reference.components.count == 1 ? .string : nil
            case "vars":
                guard reference.components.count == 1, let name = reference.memberName(at: 0),
                    let variable = varsByName[name.value], visiting.insert(name.value).inserted
                else { return nil }
                switch variable.value {
                case .template(let template):
                    guard let inner = template.singleExpression else { return .string }
                    return staticType(of: inner, visiting: &visiting)
                default:
                    return staticType(of: variable.value)
                }
            case "steps":
                guard reference.components.count == 2, let field = reference.memberName(at: 1) else { return nil }
                switch ResultField(rawValue: field.value) {
                case .duration, .attempts: return .number
                case .state: return .string
                case .results, .errors: return .list
                default: return nil  // `status`, `error`, `body`, … may be null or anything
                }
            default:
                return nil
            }
        }
    }
}
