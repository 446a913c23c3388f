import ReqPlanPlanner
import ReqPlanSyntax

/// Turns one workflow of an Arazzo document into a plan (the AST the planner checks and the executor
/// runs): a step that calls an operation becomes a request bound to it (`operation:`), a step that runs a
/// workflow becomes a sub-plan of the same document, `successCriteria` become the expectation's
/// conditions, a `retry` action becomes polling until the criteria hold, and the workflow's outputs the
/// plan's. Every part keeps its place in the Arazzo file, so the planner's diagnostics point there.
struct WorkflowTranslator {
    /// The document.
    let document: ArazzoDocument
    /// The workflow translated.
    let workflow: Workflow
    /// Where each source description is served (`--server NAME=URL`).
    let servers: [String: String]
    /// The document's file name, for the sub-plans that run its other workflows.
    let fileName: String
    /// What is wrong, located in the document.
    var diagnostics: DiagnosticCollector
    /// The names of the workflow's inputs; `nil` when it declares none (`$inputs.X` is then not checked).
    var declaredInputs: Set<String>?
    /// The inputs its expressions read.
    var readsInputs: Set<String> = []
    /// The workflows whose outputs it reads (`$workflows.X.outputs.Y`).
    var readsWorkflows: Set<String> = []
    /// The step outputs being inlined, against an output that reads itself.
    var inlining: Set<String> = []
    /// Inputs read in place of values that are not there (`givenValue`).
    var unreadInputs: Set<String> = []
    /// `--parallel`: a sequential workflow runs by its data flow (`stepsOrderedBefore`).
    var parallel = false
    /// The OpenAPI source descriptions read in outline, by name, for `--parallel` to know each step's method
    /// and path, and to tell Respect's `operationId: SOURCE.opId` from an operation of that id.
    var descriptions: [String: APIDescription] = [:]
    /// The Arazzo source descriptions (`type: arazzo`) that could be read, by name: their workflows run as
    /// sub-plans of their files.
    var workflowSources: [String: ArazzoSource] = [:]
    /// For a workflow run as a state machine, the steps control may reach from each step: a step may read
    /// the outputs of a later one that can come back to it (a loop).
    var flowReach: [Set<Int>]?
    /// Whether the input schema closes its properties (`additionalProperties: false`).
    var inputsClosed = false
    /// The inputs read that the (open) schema does not list, by name, at their first read.
    var implicitInputs: [String: SourceRange] = [:]
    /// Step outputs translated so far, by `STEP/NAME` (nil inside: one that reads nothing).
    var translatedOutputs: [String: Expression?] = [:]

    /// Why a step control did not reach is skipped.
    static let notReached = "no step before it led here (`goto`, `end`)"

    /// The input through which a workflow receives the outputs of those it depends on.
    static let workflowsInput = "arazzo_workflows"

    /// The document's text.
    var source: SourceFile { document.source }

    init(document: ArazzoDocument, workflow: Workflow, servers: [String: String], fileName: String) {
        self.document = document
        self.workflow = workflow
        self.servers = servers
        self.fileName = fileName
        self.diagnostics = DiagnosticCollector(file: document.source.path)
    }

    // MARK: The plan

    /// The workflow as a plan.
    mutating func plan() -> Plan {
        let inputs = inputDeclarations()
        declaredInputs = workflow.inputs == nil ? nil : Set(inputs.map(\.name.value))
        inputsClosed = Self.closesInputs(workflow, resolve: resolved)
        var steps: [Step] = []
        var unread: Set<String> = []
        // A `goto` back, or to a workflow, or a `goto` or `end` on failure: the steps run as a state machine.
        let machine = !workflow.declaresStepDependencies && needsStateMachine()
        let flow = machine ? [:] : controlFlow()
        if machine { flowReach = reachability() }
        // A workflow that moves control runs in list order: `--parallel` never reorders around a `goto`.
        if !flow.isEmpty || machine { parallel = false }
        for (index, step) in workflow.steps.enumerated() {
            if let translated = translate(step, index: index, condition: flow[index], inFlow: machine) {
                steps.append(translated)
            } else {
                // Already reported: what reads it is not reported again.
                unread.insert(step.id.value)
            }
        }
        checkUnreadOutputs()
        if machine && unread.isEmpty {
            let (members, control) = stateMachine(over: steps)
            var id = Self.flowStepID
            while workflow.step(id) != nil { id += "'" }
            steps = [
                Step(
                    id: Located(id, at: workflow.id.range), kind: .sequence(members), needs: [], condition: nil,
                    description: "the steps of workflow `\(workflow.id.value)`, as its actions move control",
                    timeout: nil, retry: nil, expect: nil, concurrency: nil, onFailure: nil, range: workflow.range,
                    flow: control)
            ]
        }
        let outputs = workflow.outputs.map { output in
            Output(name: output.name, value: value(output.value, in: .workflowOutputs))
        }
        var plan = Plan(
            source: source, version: Located(1, at: document.version.range),
            name: Located(workflow.id.value, at: workflow.id.range),
            description: workflow.summary.map { Located($0, at: workflow.id.range) },
            inputs: inputs + implicitInputDeclarations(),
            defaults: .none, concurrency: nil,
            // A failed step ends its workflow (Arazzo's default failure action): what still runs is stopped.
            onFailure: Located(.failFast, at: workflow.id.range), timeout: nil, redactHeaders: [], cookies: nil,
            steps: steps, outputs: outputs)
        plan.notation = ArazzoNotation()
        if !readsWorkflows.isEmpty {
            plan.inputs.append(
                InputDeclaration(
                    name: Located(Self.workflowsInput, at: workflow.id.range),
                    type: Located(.object, at: workflow.id.range),
                    defaultValue: nil, env: nil, secret: false, description: "outputs of the workflows it depends on",
                    range: workflow.id.range, required: Located(true, at: workflow.id.range)))
        }
        plan.apis = bindings()
        plan.unreadStepIDs = unread
        plan.unreadInputNames = unreadInputs
        return plan
    }

    /// The source descriptions of type `openapi`, as the API descriptions the plan binds.
    func bindings() -> [APIBinding] {
        document.sources.filter { !$0.isArazzo }.map { description in
            var binding = APIBinding(
                name: description.name, file: description.url,
                baseURL: servers[description.name.value].map {
                    Template(parts: [.text($0)], range: description.name.range)
                }, range: description.name.range)
            binding.servedAtFirstServer = true
            if description.url.value.urlScheme != nil { binding.unread = Self.remoteReason(description) }
            return binding
        }
    }

    /// Why a source description at a remote URL is not read.
    static func remoteReason(_ description: SourceDescription) -> String {
        "source description `\(description.name.value)` is at a remote URL (`\(description.url.value)`), which "
            + "reqplan does not fetch"
    }

    /// The properties of the workflow's `inputs` schema, as plan inputs.
    func inputDeclarations() -> [InputDeclaration] {
        guard let schema = workflow.inputs.flatMap(resolved) else { return [] }
        let required = Set(schema.value("required")?.sequenceStrings ?? [])
        guard case .mapping(let properties)? = schema.value("properties") else { return [] }
        var result: [InputDeclaration] = []
        for (key, property) in properties {
            guard case .scalar(let name) = key else { continue }
            let range = source.range(of: key)
            let property = resolved(property) ?? property
            let type = property.value("type").flatMap { $0.coreSchemaValue?.stringValue }.flatMap(Self.valueType)
            var declaration =
                InputDeclaration(
                    name: Located(name.string, at: range), type: type.map { Located($0, at: range) },
                    defaultValue: property.value("default").flatMap { node in
                        node.coreSchemaValue.map { Located($0, at: source.range(of: node)) }
                    },
                    env: nil, secret: false,
                    description: property.value("description").flatMap { $0.coreSchemaValue?.stringValue },
                    range: range, required: Located(required.contains(name.string), at: range))
            // A schema that names no single type takes any value (JSON Schema's rule).
            declaration.acceptsAnyType = type == nil
            result.append(declaration)
        }
        return result
    }

    /// A schema, with a `$ref` to `#/components/inputs/NAME` followed.
    func resolved(_ node: YAMLNode) -> YAMLNode? {
        guard let reference = node.value("$ref")?.coreSchemaValue?.stringValue else { return node }
        let prefix = "#/components/inputs/"
        guard reference.hasPrefix(prefix) else { return nil }
        return document.components.inputs[String(reference.dropFirst(prefix.count))]
    }

    /// The plan type of a JSON Schema `type`.
    static func valueType(_ type: String) -> ValueType? {
        switch type {
        case "string": .string
        case "integer", "number": .number
        case "boolean": .boolean
        case "array": .list
        case "object": .object
        default: nil
        }
    }

    // MARK: Steps

    /// One step as a plan step, run when `condition` holds (else when the steps it needs have succeeded);
    /// `nil` (reported) when it cannot be one.
    /// - Parameter inFlow: the step is a member of a state machine, which orders it (it needs nothing) and runs
    ///   its actions.
    mutating func translate(_ step: ArazzoStep, index: Int, condition: Expression? = nil, inFlow: Bool = false)
        -> Step?
    {
        guard let target = step.target else {
            checkRequestValues(of: step)
            return nil
        }
        let needs = inFlow ? [] : needs(of: step, index: index)
        let conditions = step.successCriteria.compactMap { criterion($0, of: step) }
        let timeout = step.timeout.map { Located(PlanDuration(milliseconds: $0.value), at: $0.range) }
        if !inFlow { checkFailureActions(of: step) }
        switch target {
        case .workflow(let written):
            guard let (called, file) = calledWorkflowAndFile(written) else {
                for parameter in parameters(of: step) { _ = givenValue(parameter.value, in: .request(step)) }
                return nil
            }
            if let items = step.security, let first = items.first {
                diagnostics.warning(
                    .arazzoUnsupported,
                    "`x-security` on a step that runs a workflow is not sent: its steps send their own credentials",
                    at: first.range, hint: "write `x-security` on the called workflow, or on its steps")
            }
            var inputs: [SubPlanInput] = []
            for parameter in parameters(of: step) {
                if let location = parameter.location {
                    diagnostics.error(
                        .invalidArazzoParameter,
                        "a parameter of step `\(step.id.value)`, which runs a workflow, has `in: \(location.value)`",
                        at: location.range, hint: "a workflow's parameters are its inputs: leave `in` out")
                }
                inputs.append(
                    SubPlanInput(name: parameter.name, value: givenValue(parameter.value, in: .request(step))))
            }
            let call = SubPlanCall(
                file: Located(file, at: written.range), inputs: inputs, key: written, inputsKey: nil,
                entry: called.id.value)
            return Step(
                id: step.id, kind: .plan(call), needs: needs, condition: condition, description: step.description,
                timeout: timeout, retry: nil,
                expect: conditions.isEmpty
                    ? nil
                    : Expectation(
                        status: nil, headers: nil, body: nil, maxDuration: nil, range: step.id.range,
                        conditions: conditions), concurrency: nil, onFailure: nil, range: step.range,
                skippedBecause: condition.map { _ in Self.notReached })
        case .operationID, .operationPath:
            guard let operation = operation(of: step) else {
                checkRequestValues(of: step)
                return nil
            }
            var request = RequestSpec(
                method: nil, url: Template(parts: [], range: step.id.range), query: [], headers: [], body: nil,
                auth: nil, followRedirects: nil, range: step.range, operation: operation)
            addParameters(of: step, to: &request)
            request.body = body(of: step, request: &request)
            if let auth = securityAuth(of: step, api: operation.api) {
                // Respect applies `x-security` after the parameters: its header replaces one of the same name.
                if let name = auth.value.headerName { request.headers.removeAll { $0.name.value.lowercased() == name } }
                request.auth = auth
            }
            let expectation = Expectation(
                status: statuses(of: step, conditions: conditions), headers: nil, body: nil, maxDuration: nil,
                range: step.id.range, conditions: conditions)
            return Step(
                id: step.id, kind: .request(request), needs: needs, condition: condition, description: step.description,
                timeout: timeout, retry: nil, expect: expectation, concurrency: nil, onFailure: nil,
                range: step.range, poll: poll(of: step, conditions: conditions),
                skippedBecause: condition.map { _ in Self.notReached })
        }
    }

    /// The parameters and body of a step whose operation is not known (reported): their runtime expressions
    /// are still checked, so that every mistake of the step shows at once.
    mutating func checkRequestValues(of step: ArazzoStep) {
        var request = RequestSpec(
            method: nil, url: Template(parts: [], range: step.id.range), query: [], headers: [], body: nil, auth: nil,
            followRedirects: nil, range: step.range)
        addParameters(of: step, to: &request)
        _ = body(of: step, request: &request)
        _ = securityAuth(of: step, api: nil)
    }

    /// What a step waits for: the step before it in a sequential workflow (under `--parallel`, the earlier
    /// steps it could conflict with), else its `dependsOn`.
    mutating func needs(of step: ArazzoStep, index: Int) -> [Located<String>] {
        guard workflow.declaresStepDependencies else {
            if parallel { return stepsOrderedBefore(index) }
            return index == 0 ? [] : [Located(workflow.steps[index - 1].id.value, at: step.id.range)]
        }
        var result: [Located<String>] = []
        for dependency in step.dependsOn ?? [] {
            if workflow.step(dependency.value) == nil, dependency.value.hasPrefix("$workflows.") {
                // Arazzo 1.1 lets a step wait for a step of another workflow (an AsyncAPI step receiving what
                // one sends), across workflows that run at the same time.
                diagnostics.error(
                    .arazzoUnsupported,
                    "a step that depends on a step of another workflow (`\(dependency.value)`) is not supported",
                    at: dependency.range,
                    hint: "reqplan runs one workflow's steps by their dependencies; run the other workflow first "
                        + "with a step that has `workflowId`")
                continue
            }
            if workflow.step(dependency.value) == nil {
                let suggestion = Suggestion.replacement(for: dependency.value, in: workflow.steps.map(\.id.value))
                diagnostics.error(
                    .unknownArazzoStep,
                    "step `\(step.id.value)` depends on `\(dependency.value)`, which is no step of "
                        + "workflow `\(workflow.id.value)`", at: dependency.range,
                    hint: suggestion?.hint, fix: suggestion?.fix)
                continue
            }
            result.append(dependency)
        }
        return result
    }

    /// The workflow a `workflowId` names; `nil` (reported) when there is none.
    mutating func calledWorkflow(_ written: Located<String>) -> Workflow? {
        calledWorkflowAndFile(written)?.workflow
    }

    /// The workflow a `workflowId` names, in this document or (`$sourceDescriptions.NAME.ID`) in the Arazzo
    /// document source description `NAME` is, and the file that holds it, relative to this document; `nil`
    /// (reported) when there is none.
    mutating func calledWorkflowAndFile(_ written: Located<String>) -> (workflow: Workflow, file: String)? {
        guard written.value.hasPrefix("$sourceDescriptions.") else {
            guard let called = document.workflow(written.value) else {
                let suggestion = Suggestion.replacement(for: written.value, in: document.workflows.map(\.id.value))
                diagnostics.error(
                    .unknownWorkflow, "no workflow has the id `\(written.value)`", at: written.range,
                    hint: suggestion?.hint, fix: suggestion?.fix)
                return nil
            }
            return (called, fileName)
        }
        guard let parsed = Self.sourceAndOperationID(written.value), let name = parsed.source else {
            diagnostics.error(
                .invalidRuntimeExpression, "`\(written.value)` names no workflow", at: written.range,
                hint: "a workflow of another document is named `$sourceDescriptions.NAME.WORKFLOW`")
            return nil
        }
        guard let source = document.sources.first(where: { $0.name.value == name }) else {
            unknownSource(name, at: written.range)
            return nil
        }
        guard source.isArazzo else {
            diagnostics.error(
                .unknownWorkflow, "source description `\(name)` is an OpenAPI description, which has no workflows",
                at: written.range, notes: [.init("it is declared here", at: source.name.range)],
                hint: "name it with `type: arazzo` if it is an Arazzo document")
            return nil
        }
        // One that could not be read is reported once, where it is declared (`ArazzoReader`); one at a remote
        // URL is only a warning there, and so an error at each step that would run it.
        guard let other = workflowSources[name] else {
            if source.url.value.urlScheme != nil {
                diagnostics.error(
                    .unknownSourceDescription,
                    "`\(written.value)` is a workflow of `\(name)`, which is at a remote URL that reqplan does not fetch",
                    at: written.range, notes: [.init("it is declared here", at: source.url.range)],
                    hint: "save the document beside this one and name it by a relative path")
            }
            return nil
        }
        var id = parsed.id
        if let respect = Self.respectWorkflowID(id, in: other.document) {
            warnShorthand(
                .respect, key: "workflowId", written: written, specForm: "$sourceDescriptions.\(name).\(respect)")
            id = respect
        }
        guard let called = other.document.workflow(id) else {
            diagnostics.error(
                .unknownWorkflow, "`\(other.path)` has no workflow `\(parsed.id)`", at: written.range,
                hint: Suggestion.didYouMean(parsed.id, in: other.document.workflows.map(\.id.value))
                    ?? "its workflows: " + other.document.workflows.map { "`\($0.id.value)`" }.joined(separator: ", "))
            return nil
        }
        return (called, other.path)
    }

    /// An `operationId` as the name of the source description it names (`$sourceDescriptions.NAME.ID`; nil
    /// for a plain id) and the id; nil when a `$sourceDescriptions.` reference names no operation.
    static func sourceAndOperationID(_ written: String) -> (source: String?, id: String)? {
        guard written.hasPrefix("$sourceDescriptions.") else { return (nil, written) }
        let rest = written.dropFirst("$sourceDescriptions.".count)
        guard let dot = rest.firstIndex(of: ".") else { return nil }
        return (String(rest[..<dot]), String(rest[rest.index(after: dot)...]))
    }

    /// The operation a step calls, as a reference the planner binds to its description.
    mutating func operation(of step: ArazzoStep) -> OperationReference? {
        // A message step is refused where it is read; its operation is in an AsyncAPI description.
        guard !step.isMessageStep else { return nil }
        let openAPI = document.sources.filter { !$0.isArazzo }
        switch step.target {
        case .operationID(let written)?:
            if let shorthand = respectOperationID(written.value, among: openAPI) {
                return respectOperation(written, shorthand, among: openAPI)
            }
            guard let (sourceName, id) = Self.sourceAndOperationID(written.value) else {
                diagnostics.error(
                    .invalidRuntimeExpression, "`\(written.value)` names no operation", at: written.range,
                    hint: "write `$sourceDescriptions.NAME.operationId`")
                return nil
            }
            if sourceName == nil, openAPI.count > 1 {
                diagnostics.error(
                    .invalidValue,
                    "`operationId: \(written.value)` does not say which of the \(openAPI.count) OpenAPI descriptions "
                        + "it is in", at: written.range,
                    hint: "write `$sourceDescriptions.NAME.\(written.value)`")
                return nil
            }
            guard let description = sourceDescription(named: sourceName, from: openAPI, at: written.range) else {
                return nil
            }
            return OperationReference(written: written, api: description.name.value, operation: .id(id))
        case .operationPath(let written)?:
            // `{$sourceDescriptions.NAME.url}#/paths/~1pets~1{id}/get`
            var text = written.value
            if let shorthand = shorthandOperationPath(text, among: openAPI) {
                warnShorthand(shorthand.runner, key: "operationPath", written: written, specForm: shorthand.specForm)
                text = shorthand.specForm
            }
            guard text.hasPrefix("{$sourceDescriptions."), let close = text.firstIndex(of: "}"),
                let hash = text.firstIndex(of: "#"), hash > close
            else {
                diagnostics.error(
                    .invalidValue, "`operationPath` is written `{$sourceDescriptions.NAME.url}#/paths/…/method`",
                    at: written.range)
                return nil
            }
            let inside = text[text.index(text.startIndex, offsetBy: 21)..<close]
            guard inside.hasSuffix(".url") else {
                diagnostics.error(
                    .invalidValue, "`operationPath` starts with `{$sourceDescriptions.NAME.url}`", at: written.range)
                return nil
            }
            let name = String(inside.dropLast(4))
            guard let description = sourceDescription(named: name, from: openAPI, at: written.range) else { return nil }
            let tokens: [String]
            do {
                tokens = try RuntimeExpression.pointer(String(text[text.index(after: hash)...]), offset: 0)
            } catch {
                diagnostics.error(.invalidValue, "`operationPath`: \(error.message)", at: written.range)
                return nil
            }
            guard tokens.count == 3, tokens[0] == "paths" else {
                diagnostics.error(
                    .invalidValue, "`operationPath` points at `#/paths/PATH/METHOD`, found `\(text[hash...])`",
                    at: written.range)
                return nil
            }
            return OperationReference(
                written: written, api: description.name.value,
                operation: .route(method: tokens[2].uppercased(), path: tokens[1]))
        default:
            return nil
        }
    }

    /// The OpenAPI source description `name` (the only one when `nil`), readable from the document's folder.
    mutating func sourceDescription(named name: String?, from openAPI: [SourceDescription], at range: SourceRange)
        -> SourceDescription?
    {
        let found = name.map { name in openAPI.first { $0.name.value == name } } ?? openAPI.first
        guard let found else {
            if let name {
                // One refused where it is declared (AsyncAPI) is not said again to be missing.
                if !document.refusedSources.contains(name) { unknownSource(name, at: range) }
            } else if document.sourcesMissing || !document.refusedSources.isEmpty {
                // Reported where `sourceDescriptions` is (missing, empty, or only what reqplan refuses).
            } else {
                diagnostics.error(
                    .unknownSourceDescription, "the document has no OpenAPI source description", at: range)
            }
            return nil
        }
        return found
    }

    /// The parameters that apply to a step: the workflow's, then its own (which win by name and place),
    /// references resolved.
    mutating func parameters(of step: ArazzoStep) -> [Parameter] {
        var result: [Parameter] = []
        let isOperation: Bool
        if case .workflow? = step.target { isOperation = false } else { isOperation = true }
        for entry in (isOperation ? workflow.parameters : []) + step.parameters {
            guard let parameter = resolve(entry) else { continue }
            result.removeAll {
                $0.name.value == parameter.name.value && $0.location?.value == parameter.location?.value
            }
            result.append(parameter)
        }
        return result
    }

    /// A parameter, or the component a `reference` names with its value overridden.
    mutating func resolve(_ entry: ParameterEntry) -> Parameter? {
        switch entry {
        case .parameter(let parameter): return parameter
        case .reference(let reference, let value):
            let prefix = "$components.parameters."
            guard reference.value.hasPrefix(prefix),
                var parameter = document.components.parameters[String(reference.value.dropFirst(prefix.count))]
            else {
                diagnostics.error(
                    .invalidArazzoParameter, "`\(reference.value)` names no parameter of `components.parameters`",
                    at: reference.range,
                    hint: Suggestion.didYouMean(
                        String(reference.value.dropFirst(prefix.count)),
                        in: document.components.parameters.keys.sorted()))
                return nil
            }
            if let value { parameter.value = value }
            return parameter
        }
    }

    /// Puts an operation step's parameters where they go: path, query, headers, cookies.
    mutating func addParameters(of step: ArazzoStep, to request: inout RequestSpec) {
        var cookies: [Template.Part] = []
        for parameter in parameters(of: step) {
            guard let location = parameter.location else {
                diagnostics.error(
                    .invalidArazzoParameter,
                    "parameter `\(parameter.name.value)` of step `\(step.id.value)` has no `in`",
                    at: parameter.name.range,
                    hint: "an operation's parameter is `in: path`, `query`, `header` or `cookie`")
                continue
            }
            let written = givenValue(parameter.value, in: .request(step))
            switch location.value {
            case "path": request.operation?.pathParameters.append(QueryParameter(name: parameter.name, value: written))
            case "query": request.query.append(QueryParameter(name: parameter.name, value: written))
            case "header": request.headers.append(Header(name: parameter.name, value: template(written)))
            case "querystring":
                // The whole query string (1.1), sent as written after the other query parameters.
                if request.queryString != nil {
                    diagnostics.error(
                        .invalidArazzoParameter, "step `\(step.id.value)` has two parameters `in: querystring`",
                        at: location.range, hint: "a request has one query string")
                }
                request.queryString = template(written)
            default:
                if !cookies.isEmpty { cookies.append(.text("; ")) }
                cookies.append(.text(parameter.name.value + "="))
                cookies += template(written).parts
            }
        }
        if !cookies.isEmpty {
            request.headers.append(
                Header(
                    name: Located("Cookie", at: step.id.range), value: Template(parts: cookies, range: step.id.range)))
        }
    }

    /// A value whose runtime expressions all read something here; `nil` when one does not (reported), so
    /// that what it feeds is not checked again against a value that is not there.
    mutating func checkedValue(_ node: YAMLNode, in place: ExpressionPlace) -> ValueTemplate? {
        let errors = diagnostics.errorCount
        let written = value(node, in: place)
        return diagnostics.errorCount == errors ? written : nil
    }

    /// A value whose runtime expressions all read something here; where one does not (reported), a value the
    /// planner takes as given but of no known type (an input whose declaration had errors), so that neither
    /// its absence nor its type is reported again.
    mutating func givenValue(_ node: YAMLNode, in place: ExpressionPlace) -> ValueTemplate {
        if let written = checkedValue(node, in: place) { return written }
        return unknownValue(at: source.range(of: node))
    }

    /// A value the planner takes as given but of no known type, in place of one that is not there (reported).
    mutating func unknownValue(at range: SourceRange) -> ValueTemplate {
        unreadInputs.insert(Self.unreadInput)
        return .template(
            Template(parts: [.expression(path("inputs", [.member(Self.unreadInput)], at: range))], range: range))
    }

    /// The input `givenValue` reads in place of a value that is not there.
    static let unreadInput = "arazzo_unread"

    /// A value as text in a header.
    func template(_ value: ValueTemplate) -> Template {
        switch value {
        case .template(let template): return template
        default:
            if let expression = singleExpression(value, at: value.range) {
                return Template(parts: [.expression(expression)], range: value.range)
            }
            return Template(parts: [], range: value.range)
        }
    }

    /// The request body: JSON unless `contentType` says otherwise.
    mutating func body(of step: ArazzoStep, request: inout RequestSpec) -> ReqPlanSyntax.RequestBody? {
        guard let body = step.requestBody, let payload = body.payload else { return nil }
        let contentType = body.contentType?.value.lowercased()
        let isJSON = contentType == nil || contentType?.contains("json") == true
        var given: ValueTemplate
        if isJSON, case .scalar(let scalar) = payload,
            let first = scalar.string.first(where: { !$0.isWhitespace }), first == "{" || first == "["
        {
            // JSON text (Arazzo's "JSON templated" payload): the value it is.
            let range = source.range(of: payload)
            given = jsonPayload(scalar.string, at: range, in: .request(step)) ?? unknownValue(at: range)
        } else if contentType == "application/x-www-form-urlencoded", case .scalar(let scalar) = payload,
            scalar.string.contains("="), !scalar.string.hasPrefix("$")
        {
            // Form text (`name=Rex&tag={$inputs.tag}`): its fields, each decoded, so that a replacement can set
            // one (`/tag`) and each is encoded once when sent.
            given = formFields(scalar.string, at: source.range(of: payload), in: .request(step))
        } else {
            given = givenValue(payload, in: .request(step))
        }
        let written = replaced(given, body.replacements, of: step)
        if isJSON {
            if let contentType = body.contentType, contentType.value.lowercased() != "application/json" {
                request.headers.append(
                    Header(
                        name: Located("Content-Type", at: contentType.range),
                        value: Template(parts: [.text(contentType.value)], range: contentType.range)))
            }
            return .json(written)
        }
        if contentType == "application/x-www-form-urlencoded", case .object(let entries, _) = written {
            return .form(entries.map { QueryParameter(name: $0.key, value: $0.value) })
        }
        if let contentType = body.contentType {
            request.headers.append(
                Header(
                    name: Located("Content-Type", at: contentType.range),
                    value: Template(parts: [.text(contentType.value)], range: contentType.range)))
        }
        return .text(template(written))
    }

    /// Form text (`a=1&b=x%20y`) as an object of its fields, names and values decoded (`+` is a space); a
    /// value may hold runtime expressions (`{$inputs.tag}`).
    mutating func formFields(_ text: String, at range: SourceRange, in place: ExpressionPlace) -> ValueTemplate {
        var entries: [ValueTemplate.Entry] = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            let name = decode(parts[0])
            let value = parts.count > 1 ? decode(parts[1]) : ""
            entries.append(.init(key: Located(name, at: range), value: string(value, at: range, in: place)))
        }
        return .object(entries, range)
    }

    /// The statuses a step's criteria accept: `$statusCode == N` (through `&&` and `||`) gives N;
    /// another condition on `$statusCode` any status (the condition judges it); none, `nil` (2xx). A step
    /// that retries accepts any status while it polls, placed where the poll is (not a written status).
    func statuses(of step: ArazzoStep, conditions: [ResponseCondition]) -> [Located<StatusPattern>]? {
        if let retry = retries(step).first {
            return (1...5).map { Located(.classOf($0), at: retry.kind.range) }
        }
        var codes: [Located<StatusPattern>] = []
        var readsStatus = false
        for condition in conditions {
            let found = Self.statusCodes(in: condition.expression)
            codes += found.map { Located(.code($0), at: condition.written.range) }
            if found.isEmpty, condition.expression.references.contains(where: { $0.description == "response.status" }) {
                readsStatus = true
            }
        }
        if readsStatus { return (1...5).map { Located(.classOf($0), at: step.id.range) } }
        return codes.isEmpty ? nil : codes
    }

    /// The codes `response.status == N` allows in `expression`, through `&&` (the codes both sides allow)
    /// and `||` (the codes either side allows); empty when it does not restrict them to a list.
    static func statusCodes(in expression: Expression) -> [Int] {
        switch expression {
        case .binary(.equal, let left, .literal(.int(let code), _), _)
        where left.reference?.description == "response.status":
            return [code]
        case .binary(.and, let left, let right, _):
            let (left, right) = (statusCodes(in: left), statusCodes(in: right))
            if left.isEmpty || right.isEmpty { return left + right }
            return left.filter(right.contains)
        case .binary(.or, let left, let right, _):
            let (left, right) = (statusCodes(in: left), statusCodes(in: right))
            if left.isEmpty || right.isEmpty { return [] }
            return left + right.filter { !left.contains($0) }
        default:
            return []
        }
    }
}

extension YAMLNode {
    /// The value of `key` in a mapping.
    func value(_ key: String) -> YAMLNode? {
        guard case .mapping(let mapping) = self else { return nil }
        return mapping.first { $0.key.string == key }?.value
    }

    /// The strings of a list of scalars.
    var sequenceStrings: [String]? {
        guard case .sequence(let sequence) = self else { return nil }
        return sequence.compactMap(\.string)
    }
}

extension Value {
    /// The text of a string value.
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
