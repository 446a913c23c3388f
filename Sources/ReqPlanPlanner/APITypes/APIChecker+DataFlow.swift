import ReqPlanSyntax

/// What the plan knows of a value before the run: its schema's types, and why it may be missing.
struct FlowType {
    /// The schema the value comes from, when it comes from a response.
    var schema: APISchema?
    /// Its possible types; `nil` when any.
    var types: Set<APIType>?
    /// Why it may be absent or null (`nil` when it is always there): "`tag` is optional in the response
    /// of `petstore.showPetById`".
    var mayBeAbsent: String?
    /// Where the value is read, for notes.
    var readAt: SourceRange?
}

/// Whose result a path reads: a step's, one item of a `for_each` over a request (a request result), or one
/// item of a `for_each` over a group (its members' results).
enum StepResultShape {
    case step(Step)
    case item(of: Step)
    case members([StepResultShape])
}

extension APIChecker {
    // MARK: Data flow

    /// Walks every `steps.X.body…` of the plan (expressions anywhere, `expect.body` keys) against the
    /// response schemas of `X`.
    mutating func checkDataFlow() {
        for step in plan.allSteps { checkDataFlow(of: step) }
        checkPlanDataFlow()
    }

    /// The expressions a step holds itself (not its members'): its request's, its condition, its
    /// expectations, its poll, its `for_each` items, its sub-plan's inputs.
    static func expressions(of step: Step) -> [Expression] {
        var expressions: [Expression] = []
        if let request = step.request { expressions += request.expressions }
        if let condition = step.condition { expressions.append(condition) }
        expressions += step.expect?.expressions ?? []
        if let poll = step.poll { expressions.append(poll.until) }
        if case .forEach(let loop) = step.kind { expressions += loop.itemExpressions }
        if let call = step.subPlan { expressions += call.expressions }
        return expressions
    }

    /// Walks the `steps.X.body…` one step reads (its own expressions, and its conditions and `expect.body`
    /// keys on its own response).
    mutating func checkDataFlow(of step: Step) {
        if let bound = bound[step.id.value] {
            // Conditions on the step's own response (an Arazzo step's criteria): `response.body…`.
            for condition in step.expect?.conditions ?? [] {
                for reference in condition.expression.references
                where reference.root.value == "response" && reference.memberName(at: 0)?.value == "body" {
                    let rest = reference.components.dropFirst()
                    _ = walk(
                        rest.map(\.value), at: reference.range, from: step, bound,
                        what: "`\(reference.description)`", ranges: rest.map(\.range))
                }
            }
        }
        if let bound = bound[step.id.value], let body = step.expect?.body {
            // A key checked with `exists: false` says the field must be absent: nothing to type.
            for expectation in body where expectation.matcher.exists?.value != false {
                _ = walk(
                    expectation.path.value, at: expectation.path.range, from: step, bound,
                    what: "`\(expectation.pathText)`")
            }
        }
        for expression in Self.expressions(of: step) {
            for reference in expression.references { _ = flowType(of: reference) }
        }
    }

    /// Walks the `steps.X.body…` the plan's outputs and vars read.
    mutating func checkPlanDataFlow() {
        for expression in plan.outputs.flatMap(\.value.expressions) + plan.vars.flatMap(\.value.expressions) {
            for reference in expression.references { _ = flowType(of: reference) }
        }
    }

    /// The type of a value before the run, when it can be told: a response value read through
    /// `steps.X.body…` (walked against `X`'s response schema, reporting unknown members once), an input,
    /// or a literal.
    mutating func flowType(of expression: Expression) -> FlowType? {
        switch expression {
        case .literal(let value, _):
            return value == .null ? nil : FlowType(types: [APIType(of: value)])
        case .not, .binary:
            return FlowType(types: [.boolean])
        case .variable, .access:
            return expression.reference.flatMap { flowType(of: $0) }
        case .call:
            return nil
        }
    }

    mutating func flowType(of reference: Reference) -> FlowType? {
        if let known = walked[reference.range] { return known }
        var result: FlowType?
        switch reference.root.value {
        case "inputs":
            if reference.components.count == 1, let name = reference.memberName(at: 0),
                let input = plan.inputs.first(where: { $0.name.value == name.value }), let type = input.knownType
            {
                result = FlowType(types: type.apiTypes)
            }
        case "steps":
            guard let id = reference.memberName(at: 0), let step = steps[id.value] else { break }
            if case .plan = step.kind {
                // A sub-plan's output, typed by its own file's check (the value itself; not below it).
                if reference.components.count == 3, reference.memberName(at: 1)?.value == "outputs",
                    let name = reference.memberName(at: 2)
                {
                    let through = " (output `\(name.value)` of `\(step.subPlan?.file.value ?? id.value)`)"
                    result = subPlanOutputs[id.value]?[name.value].map {
                        FlowType(
                            schema: $0.schema, types: $0.types, mayBeAbsent: $0.mayBeAbsent.map { $0 + through },
                            readAt: reference.range)
                    }
                }
                break
            }
            result = responseFlow(
                reference.components.dropFirst(), of: .step(step), reference: reference, absent: nil)
        default:
            break
        }
        walked[reference.range] = .some(result)
        return result
    }

    /// What a path below a step's result reads: a request's `body…` (walked against its operation's
    /// response schema), or, through `results[N]` or `results[*]`, the body of a `for_each` request's
    /// items or of a group's or sequence's members (and, for a `for_each` over a group, its items'
    /// members). Other fields (`status`, `headers`, …) are not typed here.
    private mutating func responseFlow(
        _ path: ArraySlice<Located<PathComponent>>, of result: StepResultShape, reference: Reference,
        absent: String?
    ) -> FlowType? {
        guard let first = path.first, case .member(let field) = first.value else { return nil }
        let rest = path.dropFirst()
        if field == "body" {
            let requestStep: Step
            switch result {
            case .step(let step):
                guard case .request = step.kind else { return nil }
                requestStep = step
            case .item(let step):
                requestStep = step
            case .members:
                return nil
            }
            guard let bound = bound[requestStep.id.value] else { return nil }
            var flow = walk(
                rest.map(\.value), at: reference.range, from: requestStep, bound,
                what: "`\(reference.description)`", ranges: rest.map(\.range))
            if let absent, flow != nil, flow?.mayBeAbsent == nil { flow?.mayBeAbsent = absent }
            return flow
        }
        guard field == "results", let selector = rest.first else { return nil }
        let inner = rest.dropFirst()
        // The results: one shape per member, or one shape standing for every item of a for_each.
        let members: [StepResultShape]
        var perItem: StepResultShape?
        var itemCount: Int?  // when the for_each's list is written out
        var name = "the item"
        switch result {
        case .step(let step):
            name = "`\(step.id.value)`"
            switch step.kind {
            case .forEach(let loop):
                if case .list(let listed, _)? = loop.items { itemCount = listed.count }
                if let rows = loop.file?.rows { itemCount = rows.values.count }
                switch loop.body {
                case .request: perItem = .item(of: step)
                case .group(let steps): perItem = .members(steps.map { .step($0) })
                }
                members = []
            case .group(let steps), .sequence(let steps):
                members = steps.map { .step($0) }
            default:
                return nil
            }
        case .members(let shapes):
            members = shapes
        case .item:
            return nil
        }
        switch selector.value {
        case .index(let index):
            if let perItem {
                let exists = itemCount.map { index >= 0 ? index < $0 : -index <= $0 } ?? false
                let why =
                    exists ? absent : absent ?? "\(name) may have no result `[\(index)]` (its list may be shorter)"
                return responseFlow(inner, of: perItem, reference: reference, absent: why)
            }
            let position = index < 0 ? members.count + index : index
            guard members.indices.contains(position) else { return nil }
            return responseFlow(inner, of: members[position], reference: reference, absent: absent)
        case .wildcard:
            // Every item's value, in a list: the names are checked; the value is a list.
            guard let perItem else { return nil }
            _ = responseFlow(inner, of: perItem, reference: reference, absent: absent)
            return FlowType(types: [.array], readAt: reference.range)
        case .member:
            return nil
        }
    }

    /// Walks `path` into the response body of `step`; reports the first member its schemas do not have.
    mutating func walk(
        _ path: [PathComponent], at range: SourceRange, from step: Step, _ bound: BoundOperation, what: String,
        ranges: [SourceRange] = []
    ) -> FlowType? {
        let statuses = (step.expect ?? plan.defaults.expect)?.status?.map(\.value) ?? [.classOf(2)]
        let schemas = bound.operation.responses(matching: statuses).compactMap(\.jsonSchema)
        // A step that succeeds on several statuses (200 or 201) may get any of their responses: a path one of
        // them has is no mistake (the first that has it gives the type); else it is reported against the first.
        if schemas.count > 1 {
            for index in schemas.indices {
                let start = diagnostics.diagnostics.count
                let flow = walk(path, at: range, from: step, bound, what: what, ranges: ranges, schema: index)
                if !diagnostics.diagnostics[start...].contains(where: { $0.severity == .error }) { return flow }
                diagnostics.rollBack(to: start)
            }
        }
        return walk(path, at: range, from: step, bound, what: what, ranges: ranges, schema: 0)
    }

    /// How many components of `path`, from the first, a successful response is sure to have: the longest
    /// prefix of a body path checked with `exists: true` (`$[0].id` assures `[0]` and `[0].id`).
    static func assuredDepth(of path: [PathComponent], by checks: [BodyExpectation]) -> Int {
        var depth = 0
        for check in checks where check.matcher.exists?.value == true {
            let checked = check.path.value
            var common = 0
            while common < min(checked.count, path.count), checked[common] == path[common],
                checked[common] != .wildcard
            {
                common += 1
            }
            depth = max(depth, common)
        }
        return depth
    }

    /// `walk` through the `index`-th schema of the responses the step succeeds on.
    private mutating func walk(
        _ path: [PathComponent], at range: SourceRange, from step: Step, _ bound: BoundOperation, what: String,
        ranges: [SourceRange], schema index: Int
    ) -> FlowType? {
        let statuses = (step.expect ?? plan.defaults.expect)?.status?.map(\.value) ?? [.classOf(2)]
        let responses = bound.operation.responses(matching: statuses)
        let schemas = responses.compactMap(\.jsonSchema)
        guard index < schemas.count else { return nil }
        let schema = schemas[index]
        let mode = apis[bound.api]?.binding.responseFields?.value ?? .described
        // The operation's own examples, walked beside the schema: what they show is there.
        var examples = responses.flatMap(\.jsonExamples)
        let table = bound.schemas
        var current = schema
        var absent: String?
        var wrapped = false
        let source = "the response of `\(bound.label)`"
        let assured = Self.assuredDepth(of: path, by: (step.expect ?? plan.defaults.expect)?.body ?? [])
        for (index, component) in path.enumerated() {
            let componentRange = index < ranges.count ? ranges[index] : range
            // A member the step's own `expect.body` checks with `exists: true` (or one above it) is there
            // whenever the step succeeded: not absent, though the schema does not require it.
            let absentBefore = absent
            switch component {
            case .member(let name):
                defer { examples = examples.compactMap { $0[name] } }
                switch table.member(name, of: current) {
                case .declared(let property, let required):
                    if !required && absent == nil { absent = "`\(name)` is optional in \(source)" }
                    current = property
                case .undeclared(let additional) where table.isMap(current):
                    // A key of a map (`additionalProperties: { … }` and no properties): read as maps are, with
                    // no warning; it may not be there.
                    absent = absent ?? "`\(name)` is a key of a map in \(source), which may not hold it"
                    current = additional
                case .undeclared(let additional):
                    diagnostics.warning(
                        .undeclaredResponseField,
                        "\(source) does not declare `\(name)`, read by \(what)", at: componentRange,
                        hint:
                            "the schema allows other properties, so it may come; declare it in the API description if it does"
                    )
                    absent = absent ?? "`\(name)` is not declared by \(source)"
                    current = additional
                case .unknown(let known, let closed):
                    if examples.contains(where: { $0[name] != nil }) { return nil }
                    let suggestion = Self.likelyMisspelling(of: name, in: known)
                    let isError =
                        switch mode {
                        case .strict: true
                        case .described: closed || suggestion != nil
                        case .loose: closed
                        }
                    guard isError else {
                        if mode == .described || suggestion != nil {
                            diagnostics.warning(
                                .undeclaredResponseField, "\(source) does not declare `\(name)`, read by \(what)",
                                at: componentRange,
                                hint: suggestion.map { "did you mean `\($0)`?" }
                                    ?? "the schema does not close the object, so it may come; declare it in the API "
                                    + "description if it does (`validate --strict` makes this an error)",
                                fix: suggestion.flatMap { Suggestion.fix(replacing: name, with: $0) })
                        }
                        return nil
                    }
                    diagnostics.error(
                        .unknownResponseField, "\(source) has no field `\(name)`, read by \(what)",
                        at: componentRange,
                        notes: [
                            .init(
                                "`\(step.id.value)` is `\(bound.label)`, bound here",
                                at: bound.operationRange(in: step) ?? step.id.range)
                        ],
                        hint: suggestion.map { "did you mean `\($0)`?" }
                            ?? (known.isEmpty
                                ? nil : "its fields are " + known.prefix(12).map { "`\($0)`" }.joined(separator: ", ")),
                        fix: suggestion.flatMap { Suggestion.fix(replacing: name, with: $0) })
                    return nil
                case .unchecked:
                    return nil
                }
            case .index:
                guard let items = table.items(of: current) else { return nil }
                absent = absent ?? "an element of a list in \(source) may not exist"
                current = items
                examples = examples.flatMap(\.elements)
            case .wildcard:
                examples = examples.flatMap(\.elements)
                guard let items = table.items(of: current) else { return nil }
                wrapped = true
                current = items
            }
            if index < assured { absent = absentBefore }
            if table.isNullable(current), table.types(of: current) != nil, absent == nil {
                absent = "\(what) may be null in \(source)"
            }
        }
        if wrapped { return FlowType(schema: nil, types: [.array], mayBeAbsent: nil, readAt: range) }
        return FlowType(schema: current, types: table.types(of: current), mayBeAbsent: absent, readAt: range)
    }
}

extension APIChecker {
    /// The declared field that `name` is likely a mistake for: a close spelling (`emial` for `email`), or
    /// a declared name of four or more characters that is the first or last `_`/`-` separated part of
    /// `name` or has `name` as such a part (`access_token` for `token`).
    static func likelyMisspelling(of name: String, in known: [String]) -> String? {
        if let close = Suggestion.closest(to: name, in: known) { return close }
        func parts(_ text: String) -> [Substring] { text.split(whereSeparator: { $0 == "_" || $0 == "-" }) }
        let own = parts(name)
        return known.first { declared in
            let theirs = parts(declared)
            guard own.count != theirs.count else { return false }
            let (short, long) = own.count < theirs.count ? (own, theirs) : (theirs, own)
            guard short.joined(separator: "_").count >= 4 else { return false }
            return long.prefix(short.count).elementsEqual(short) || long.suffix(short.count).elementsEqual(short)
        }
    }
}

extension BoundOperation {
    /// Where the step names its operation (`operation:`), or its URL.
    func operationRange(in step: Step) -> SourceRange? {
        step.request.map { $0.operation?.written.range ?? $0.url.range }
    }
}

extension Value {
    /// The elements of a list (none for another value).
    fileprivate var elements: [Value] {
        guard case .list(let items) = self else { return [] }
        return items
    }
}

extension ValueType {
    /// The schema types of a value of this type.
    var apiTypes: Set<APIType> {
        switch self {
        case .string: [.string]
        case .number: [.number, .integer]
        case .boolean: [.boolean]
        case .list: [.array]
        case .object: [.object]
        case .null: [.null]
        }
    }
}
