import ReqPlanSyntax

/// Where a runtime expression is written, which decides what it reads.
enum ExpressionPlace {
    /// A step's parameters and request body: evaluated before its request is sent.
    case request(ArazzoStep)
    /// A step's `successCriteria`: the response being judged, read as `response`.
    case criteria(ArazzoStep)
    /// A step's outputs, and the criteria of its actions: its result, read as `steps.STEP`.
    case after(ArazzoStep)
    /// The workflow's outputs.
    case workflowOutputs

    var step: ArazzoStep? {
        switch self {
        case .request(let step), .criteria(let step), .after(let step): step
        case .workflowOutputs: nil
        }
    }
}

extension WorkflowTranslator {
    // MARK: Runtime expressions

    /// The `${{ }}` expression that reads what `text` (a runtime expression written at `range`) reads, in
    /// `place`; `nil` (reported) when it reads nothing there.
    mutating func expression(_ text: String, at range: SourceRange, in place: ExpressionPlace) -> Expression? {
        let parsed: RuntimeExpression
        if text == "$message" || text.hasPrefix("$message.") {
            diagnostics.error(
                .arazzoUnsupported, "`\(text)` reads an AsyncAPI message, which reqplan does not run", at: range,
                hint: "reqplan runs the HTTP operations of OpenAPI descriptions (AsyncAPI steps, `channelPath` and "
                    + "`$message`, are not supported)")
            return nil
        }
        do {
            parsed = try RuntimeExpression.parse(text)
        } catch {
            diagnostics.error(
                .invalidRuntimeExpression, "invalid runtime expression `\(text)`: \(error.message)", at: range,
                hint: "runtime expressions are `$statusCode`, `$response.body#/pointer`, `$inputs.NAME`, "
                    + "`$steps.STEP.outputs.NAME`, …")
            return nil
        }
        return expression(parsed, at: range, in: place)
    }

    mutating func expression(_ parsed: RuntimeExpression, at range: SourceRange, in place: ExpressionPlace)
        -> Expression?
    {
        let base: Expression?
        switch parsed.root {
        case .inputs(let name):
            readsInputs.insert(name.split(separator: ".").first.map(String.init) ?? name)
            base = inputExpression(name, at: range)
        case .statusCode:
            base = responseField("status", [], text: parsed.text, at: range, in: place)
        case .response(let source):
            switch source {
            case .body: base = responseField("body", [], text: parsed.text, at: range, in: place)
            case .header(let name):
                base = responseField("headers", [.member(name.lowercased())], text: parsed.text, at: range, in: place)
            case .query, .path: base = nil
            }
        case .request(let source):
            base = requestValue(source, text: parsed.text, at: range, in: place)
        case .method:
            guard let step = place.step, let method = method(of: step) else {
                outOfPlace(
                    parsed.text, at: range,
                    why: place.step == nil
                        ? "`$method` is a step's" : "the method of the step's operation is not known")
                return nil
            }
            base = .literal(.string(method), range)
        case .url:
            base = responseField("url", [], text: parsed.text, at: range, in: place)
        case .outputs(let name):
            base = calledWorkflowOutput(name, text: parsed.text, at: range, in: place)
        case .steps(let id, let fields):
            base = stepOutput(id, fields, at: range, in: place)
        case .workflows(let id, let fields):
            base = workflowOutput(id, fields, at: range, in: place)
        case .sourceDescriptions(let name, let field):
            guard let source = document.sources.first(where: { $0.name.value == name }) else {
                unknownSource(name, at: range)
                return nil
            }
            guard field == "url" else {
                outOfPlace(
                    parsed.text, at: range, why: "`$sourceDescriptions.\(name).ID` names an operation or a workflow")
                return nil
            }
            base = .literal(.string(source.url.value), range)
        case .components:
            outOfPlace(parsed.text, at: range, why: "components are named only by `reference`")
            return nil
        }
        guard let base else { return nil }
        guard let pointer = parsed.pointer else { return base }
        return pointer.reduce(base) { partial, token in
            .access(partial, Located(Self.component(token), at: range), range)
        }
    }

    /// A JSON pointer token as a path component: digits index a list.
    static func component(_ token: String) -> PathComponent {
        if !token.isEmpty, token.allSatisfy(\.isASCII), token.allSatisfy(\.isNumber), let index = Int(token) {
            return .index(index)
        }
        return .member(token)
    }

    /// `root.a.b…` with every part at `range`.
    func path(_ root: String, _ components: [PathComponent], at range: SourceRange) -> Expression {
        components.reduce(Expression.variable(Located(root, at: range))) {
            .access($0, Located($1, at: range), range)
        }
    }

    mutating func outOfPlace(_ text: String, at range: SourceRange, why: String) {
        diagnostics.error(.expressionOutOfPlace, "`\(text)` cannot be read here: \(why)", at: range)
    }

    mutating func unknownSource(_ name: String, at range: SourceRange) {
        diagnostics.error(
            .unknownSourceDescription, "no source description is named `\(name)`", at: range,
            hint: Suggestion.didYouMean(name, in: document.sources.map(\.name.value))
                ?? "source descriptions: " + document.sources.map { "`\($0.name.value)`" }.joined(separator: ", "))
    }

    /// `$statusCode`, `$response.body`, `$response.header.X`: the response judged, or the step's result.
    private mutating func responseField(
        _ field: String, _ rest: [PathComponent], text: String, at range: SourceRange, in place: ExpressionPlace
    ) -> Expression? {
        switch place {
        case .criteria(let step), .after(let step):
            if case .workflow? = step.target {
                // The criteria of a step that runs a workflow read the status of the last response it received
                // (the specification's own pet-coupons example judges such a step by `$statusCode`).
                if case .criteria = place, field == "status" { return path("response", [.member(field)], at: range) }
                outOfPlace(
                    text, at: range,
                    why: "step `\(step.id.value)` runs a workflow, which has no response of its own"
                        + (field == "status"
                            ? " (its success criteria read the status of the last one it received)" : ""))
                return nil
            }
            if case .criteria = place { return path("response", [.member(field)] + rest, at: range) }
            return path("steps", [.member(step.id.value), .member(field)] + rest, at: range)
        case .request(let step):
            outOfPlace(text, at: range, why: "the response of step `\(step.id.value)` has not come yet")
            return nil
        case .workflowOutputs:
            outOfPlace(
                text, at: range, why: "a workflow's outputs read its steps' outputs (`$steps.STEP.outputs.NAME`)")
            return nil
        }
    }

    /// `$request.query.NAME` and the like: the value the step sent, as written in it.
    private mutating func requestValue(
        _ source: RuntimeExpression.Source, text: String, at range: SourceRange, in place: ExpressionPlace
    ) -> Expression? {
        guard let step = place.step, place.isAfterRequest else {
            outOfPlace(text, at: range, why: "only a step's criteria and outputs read its request")
            return nil
        }
        var node: YAMLNode?
        switch source {
        case .body:
            node = step.requestBody?.payload
        case .header(let name), .query(let name), .path(let name):
            let location: String
            switch source {
            case .header: location = "header"
            case .query: location = "query"
            default: location = "path"
            }
            node =
                parameters(of: step).first {
                    $0.location?.value == location
                        && (location == "header"
                            ? $0.name.value.lowercased() == name.lowercased() : $0.name.value == name)
                }?.value
        }
        guard let node else {
            diagnostics.error(
                .expressionOutOfPlace, "step `\(step.id.value)` sends no value for `\(text)`", at: range)
            return nil
        }
        return singleExpression(value(node, in: .request(step)), at: range)
    }

    /// A value that is one expression or a literal, as an expression.
    func singleExpression(_ template: ValueTemplate, at range: SourceRange) -> Expression? {
        switch template {
        case .literal(let value, let at): return .literal(value, at)
        case .template(let template): return template.singleExpression
        case .list, .object:
            return template.literalValue.map { .literal($0, range) }
        }
    }

    /// `$outputs.NAME` in a workflow step's outputs: the called workflow's output.
    private mutating func calledWorkflowOutput(
        _ name: String, text: String, at range: SourceRange, in place: ExpressionPlace
    ) -> Expression? {
        guard let step = place.step, case .workflow(let target)? = step.target, place.isAfterRequest else {
            outOfPlace(
                text, at: range,
                why: "`$outputs` is read only in the outputs and criteria of a step that runs a workflow")
            return nil
        }
        if let called = calledWorkflow(target), !called.outputs.contains(where: { $0.name.value == name }) {
            diagnostics.error(
                .unknownArazzoOutput, "workflow `\(called.id.value)` has no output `\(name)`", at: range,
                notes: [.init("the workflow is here", at: called.id.range)],
                hint: Suggestion.didYouMean(name, in: called.outputs.map(\.name.value))
                    ?? (called.outputs.isEmpty
                        ? "it declares no outputs"
                        : "its outputs: " + called.outputs.map { "`\($0.name.value)`" }.joined(separator: ", ")))
            return nil
        }
        if case .criteria = place { return path("response", [.member("outputs"), .member(name)], at: range) }
        return path("steps", [.member(step.id.value), .member("outputs"), .member(name)], at: range)
    }

    /// `$steps.STEP.outputs.NAME`: the output's own expression, read from the step's result.
    private mutating func stepOutput(_ id: String, _ fields: [String], at range: SourceRange, in place: ExpressionPlace)
        -> Expression?
    {
        guard let target = workflow.step(id) else {
            diagnostics.error(
                .unknownArazzoStep, "workflow `\(workflow.id.value)` has no step `\(id)`", at: range,
                hint: Suggestion.didYouMean(id, in: workflow.steps.map(\.id.value)))
            return nil
        }
        guard fields.first == "outputs", fields.count >= 2 else {
            diagnostics.error(
                .invalidRuntimeExpression, "`$steps.\(([id] + fields).joined(separator: "."))` reads no output",
                at: range,
                hint: "a step's values are read as `$steps.\(id).outputs.NAME`"
                    + (fields.count == 1 && target.output(fields[0]) != nil
                        ? ": write `$steps.\(id).outputs.\(fields[0])`" : ""))
            return nil
        }
        // An output name may hold dots: the longest name the step declares, the rest a path into it.
        var nameCount = fields.count - 1
        while nameCount > 1, target.output(fields[1...nameCount].joined(separator: ".")) == nil { nameCount -= 1 }
        let name = fields[1...nameCount].joined(separator: ".")
        guard let definition = target.output(name) else {
            diagnostics.error(
                .unknownArazzoOutput, "step `\(id)` has no output `\(name)`", at: range,
                notes: [.init("step `\(id)` is here", at: target.id.range)],
                hint: Suggestion.didYouMean(name, in: target.outputs.map(\.name.value))
                    ?? (target.outputs.isEmpty
                        ? "it declares no outputs"
                        : "its outputs: " + target.outputs.map { "`\($0.name.value)`" }.joined(separator: ", ")))
            return nil
        }
        if let current = place.step, !workflow.declaresStepDependencies,
            let from = workflow.position(of: current.id.value), let to = workflow.position(of: id), to >= from,
            // In a state machine, a later step that control can bring back before this one (a loop) has run.
            !(flowReach?[to].contains(from) ?? false),
            !(to == from && place.isAfterRequest)
        {
            diagnostics.error(
                .forwardReference,
                to == from
                    ? "step `\(id)` reads its own output `\(name)` before it has run"
                    : "step `\(current.id.value)` reads output `\(name)` of step `\(id)`, which runs after it",
                at: range, notes: [.init("step `\(id)` is here", at: target.id.range)],
                hint: "a workflow without step `dependsOn` runs its steps in list order: move `\(id)` first, "
                    + "or read the value from a step before it")
            return nil
        }
        let key = "\(id)/\(name)"
        guard !inlining.contains(key) else {
            diagnostics.error(
                .arazzoCycle, "output `\(name)` of step `\(id)` reads itself", at: range)
            return nil
        }
        inlining.insert(key)
        defer { inlining.remove(key) }
        guard let inner = outputValue(definition, named: name, of: target) else { return nil }
        return fields.dropFirst(nameCount + 1).reduce(inner) {
            .access($0, Located(Self.component($1), at: range), range)
        }
    }

    /// The value of output `name` of step `target`, translated once (what it reports, reported once); nil
    /// when it reads nothing.
    mutating func outputValue(_ definition: YAMLNode, named name: String, of target: ArazzoStep) -> Expression? {
        let key = "\(target.id.value)/\(name)"
        if let known = translatedOutputs[key] { return known }
        var inner: Expression?
        if case .scalar(let scalar) = definition, scalar.string.hasPrefix("$") {
            inner = expression(scalar.string, at: source.range(of: definition), in: .after(target))
        } else if case .scalar(let scalar) = definition, let whole = Self.wholeEmbedded(scalar.string) {
            // `{$response.body}`: the expression written as it is embedded in text, the whole value.
            inner = expression(whole, at: located(whole, near: source.range(of: definition)), in: .after(target))
        } else if Self.isSelector(definition) {
            inner = selector(definition, in: .after(target))
        } else if let literal = definition.coreSchemaValue, !Self.embedsExpression(literal.interpolated) {
            inner = .literal(literal, source.range(of: definition))
        } else {
            diagnostics.error(
                .arazzoUnsupported,
                "output `\(name)` of step `\(target.id.value)` is not a runtime expression or a literal",
                at: source.range(of: definition),
                hint: "an output is a runtime expression, a selector object or a literal; text around an "
                    + "expression is not")
        }
        translatedOutputs[key] = .some(inner)
        return inner
    }

    /// The expression of a string that is one `{$…}` and nothing else; nil for another.
    static func wholeEmbedded(_ text: String) -> String? {
        guard text.hasPrefix("{$"), text.hasSuffix("}"), text.count > 3 else { return nil }
        let inner = text.dropFirst().dropLast()
        guard !inner.contains("{"), !inner.contains("}") else { return nil }
        return String(inner)
    }

    /// Checks the outputs of every step that nothing read: a mistake in one is reported now, not once something
    /// reads it.
    mutating func checkUnreadOutputs() {
        for step in workflow.steps {
            for output in step.outputs where translatedOutputs["\(step.id.value)/\(output.name.value)"] == nil {
                _ = outputValue(output.value, named: output.name.value, of: step)
            }
        }
    }

    /// `$workflows.ID.outputs.NAME`: another workflow's output, which this one depends on.
    private mutating func workflowOutput(
        _ id: String, _ fields: [String], at range: SourceRange, in place: ExpressionPlace
    ) -> Expression? {
        guard let other = document.workflow(id) else {
            diagnostics.error(
                .unknownWorkflow, "no workflow has the id `\(id)`", at: range,
                hint: Suggestion.didYouMean(id, in: document.workflows.map(\.id.value)))
            return nil
        }
        if fields.first == "inputs", fields.count >= 2 {
            return workflowInput(of: other, fields, at: range, in: place)
        }
        guard fields.first == "outputs", fields.count >= 2 else {
            diagnostics.error(
                .invalidRuntimeExpression, "`$workflows.\(([id] + fields).joined(separator: "."))` reads no output",
                at: range, hint: "a workflow's values are read as `$workflows.\(id).outputs.NAME`")
            return nil
        }
        let name = fields[1]
        guard other.outputs.contains(where: { $0.name.value == name }) else {
            diagnostics.error(
                .unknownArazzoOutput, "workflow `\(id)` has no output `\(name)`", at: range,
                notes: [.init("workflow `\(id)` is here", at: other.id.range)],
                hint: Suggestion.didYouMean(name, in: other.outputs.map(\.name.value)))
            return nil
        }
        // A workflow a step of this one runs is read from that step (the run it made); another runs before this
        // workflow, as if it were in its `dependsOn` (the specification sets no `dependsOn` for the expression).
        if !workflow.dependsOn.contains(where: { $0.value == id }),
            let runner = workflow.steps.first(where: { step in
                if case .workflow(let written)? = step.target { return written.value == id }
                return false
            })
        {
            // The criteria of the step that runs it judge that run: its outputs as `$outputs` reads them.
            if case .criteria(let current) = place, current.id.value == runner.id.value {
                return path(
                    "response", [.member("outputs")] + fields.dropFirst().map(Self.component), at: range)
            }
            if let current = place.step, !workflow.declaresStepDependencies,
                let from = workflow.position(of: current.id.value), let to = workflow.position(of: runner.id.value),
                to > from || (to == from && !place.isAfterRequest)
            {
                diagnostics.error(
                    .forwardReference,
                    "step `\(current.id.value)` reads outputs of workflow `\(id)`, which step `\(runner.id.value)` "
                        + "runs after it", at: range,
                    notes: [.init("step `\(runner.id.value)` is here", at: runner.id.range)],
                    hint: "a workflow without step `dependsOn` runs its steps in list order")
                return nil
            }
            return path(
                "steps", [.member(runner.id.value), .member("outputs")] + fields.dropFirst().map(Self.component),
                at: range)
        }
        readsWorkflows.insert(id)
        return path(
            "inputs",
            [.member(Self.workflowsInput), .member(id), .member("outputs")] + fields.dropFirst().map(Self.component),
            at: range)
    }

    /// `$workflows.ID.inputs.NAME`, an input of a workflow: this one's own input; else the value the step of
    /// this workflow that runs ID gives it (its parameter of that name); else the input of that name, which
    /// the document's plan gives every workflow that declares it (the same value).
    private mutating func workflowInput(
        of other: Workflow, _ fields: [String], at range: SourceRange, in place: ExpressionPlace
    ) -> Expression? {
        let name = fields[1]
        let rest = fields.dropFirst(2).map(Self.component)
        if other.id.value == workflow.id.value {
            readsInputs.insert(name)
            return inputExpression(([name] + fields.dropFirst(2)).joined(separator: "."), at: range)
        }
        let runner = workflow.steps.first { step in
            if case .workflow(let written)? = step.target { return written.value == other.id.value }
            return false
        }
        if let runner, let parameter = parameters(of: runner).first(where: { $0.name.value == name }) {
            switch value(parameter.value, in: place) {
            case .literal(let literal, _) where rest.isEmpty: return .literal(literal, range)
            case .template(let template):
                if let expression = template.singleExpression {
                    return rest.reduce(expression) { .access($0, Located($1, at: range), range) }
                }
            default: break
            }
        }
        if implicitInputs[name] == nil, declaredInputs?.contains(name) != true { implicitInputs[name] = range }
        readsInputs.insert(name)
        return path("inputs", [.member(name)] + rest, at: range)
    }

    // MARK: Values

    /// A YAML value whose strings may be runtime expressions (`$inputs.id`) or hold them (`Bearer {$inputs.token}`).
    mutating func value(_ node: YAMLNode, in place: ExpressionPlace) -> ValueTemplate {
        let range = source.range(of: node)
        switch node {
        case .sequence(let sequence):
            return .list(sequence.map { value($0, in: place) }, range)
        case .mapping where Self.isSelector(node):
            guard let selected = selector(node, in: place) else { return .literal(.null, range) }
            return .template(Template(parts: [.expression(selected)], range: range))
        case .mapping(let mapping):
            var entries: [ValueTemplate.Entry] = []
            for (key, item) in mapping {
                guard case .scalar(let scalar) = key else { continue }
                entries.append(
                    .init(key: Located(scalar.string, at: source.range(of: key)), value: value(item, in: place)))
            }
            return .object(entries, range)
        case .scalar(let scalar):
            guard let literal = node.coreSchemaValue else { return .literal(.null, range) }
            guard case .string(let text) = literal, scalar.style == .plain || text.utf8.contains(UInt8(ascii: "$"))
            else {
                return .literal(literal, range)
            }
            return string(text, at: range, in: place)
        }
    }

    /// A string: one runtime expression, text with `{$…}` inside, or plain text.
    mutating func string(_ text: String, at range: SourceRange, in place: ExpressionPlace) -> ValueTemplate {
        if text.hasPrefix("$"), Self.looksLikeExpression(text) {
            guard let expression = expression(text, at: range, in: place) else { return .literal(.null, range) }
            return .template(Template(parts: [.expression(expression)], range: range))
        }
        guard Self.embedsExpression(text) else {
            warnIfUnembedded(text, at: range)
            return .literal(.string(text), range)
        }
        var parts: [Template.Part] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{$") {
            if open.lowerBound > rest.startIndex { parts.append(.text(String(rest[..<open.lowerBound]))) }
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                diagnostics.error(
                    .invalidRuntimeExpression, "`{$` opens a runtime expression that no `}` closes", at: range)
                return .literal(.string(text), range)
            }
            let inner = String(rest[rest.index(after: open.lowerBound)..<close])
            let at = located(inner, near: range)
            if let expression = expression(inner, at: at, in: place) { parts.append(.expression(expression)) }
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        return .template(Template(parts: parts, range: range))
    }

    /// Whether a string that starts with `$` is meant as a runtime expression: `$` and a name (`$5` is text),
    /// without spaces, or one of the specification's roots (`$steps.Search Pets.outputs.id`: the 1.0 grammar's
    /// names may hold spaces, so it is read, and evaluates or is a located error, never text).
    static func looksLikeExpression(_ text: String) -> Bool {
        guard let first = text.dropFirst().first else { return false }
        return first.isLetter && (!text.utf8.contains(0x20) || expressionRoot(in: text.dropFirst()) != nil)
    }

    /// Whether text holds `{$`, the start of an embedded runtime expression (by its bytes: `String.contains`
    /// of a string goes through Foundation's search, a measurable part of reading a long workflow).
    static func embedsExpression(_ text: String) -> Bool {
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if previous == UInt8(ascii: "{") && byte == UInt8(ascii: "$") { return true }
            previous = byte
        }
        return false
    }

    /// The specification's root that `text` (after a `$`) starts with, followed by its end or a `.`.
    static func expressionRoot(in text: Substring) -> String? {
        RuntimeExpression.rootNames.first { root in
            text.hasPrefix(root) && (text.count == root.count || text.dropFirst(root.count).first == ".")
        }
    }

    /// Warns that text holds a runtime expression without the braces that embed one (`Bearer
    /// $steps.login.outputs.token`): it is sent as the text it is. The fix adds the braces.
    mutating func warnIfUnembedded(_ text: String, at range: SourceRange) {
        guard let dollar = text.firstIndex(of: "$"), dollar > text.startIndex,
            Self.expressionRoot(in: text[text.index(after: dollar)...]) != nil
        else { return }
        let end = text[dollar...].firstIndex { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "'" } ?? text.endIndex
        let written = String(text[dollar..<end])
        let embedded = String(text[..<dollar]) + "{" + written + "}" + String(text[end...])
        let fix = writtenText(at: range).flatMap {
            Diagnostic.Fix.scalar(embedded, replacing: $0, title: "Embed `\(written)` in braces")
        }
        diagnostics.warning(
            .invalidRuntimeExpression,
            "`\(written)` is sent as text: a runtime expression inside text is written in braces", at: range,
            hint: "write `\(embedded)` to send its value", fix: fix)
    }

    /// Where `text` is written at or after `range`'s start (within the value), else `range`.
    func located(_ text: String, near range: SourceRange) -> SourceRange {
        guard !text.contains("\n"), let start = source.find(text, from: range.start, maxLines: 400) else {
            return range
        }
        return SourceRange(start: start, length: text.unicodeScalars.count)
    }
}

extension ExpressionPlace {
    /// Whether the step's request has been sent (its criteria and outputs).
    var isAfterRequest: Bool {
        switch self {
        case .criteria, .after: true
        case .request, .workflowOutputs: false
        }
    }
}
