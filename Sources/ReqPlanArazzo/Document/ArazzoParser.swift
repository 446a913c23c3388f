import ReqPlanPlanner
import ReqPlanSyntax

/// Reads an Arazzo document's YAML (or JSON) into an `ArazzoDocument`, reporting every problem of its
/// structure with its place: unknown keys, wrong types, missing required fields, what reqplan does not run.
struct ArazzoParser {
    let source: SourceFile
    var diagnostics: DiagnosticCollector
    /// Source descriptions refused (AsyncAPI), by name.
    var refusedSources: Set<String> = []
    /// Whether the document is Arazzo 1.1 (its fields are read in a 1.0 document too, with a warning).
    var isVersion11 = true

    /// The versions read: 1.0.x and 1.1.x.
    static func supports(_ version: String) -> Bool { version.hasPrefix("1.0.") || version.hasPrefix("1.1.") }

    init(source: SourceFile) {
        self.source = source
        self.diagnostics = DiagnosticCollector(file: source.path)
    }

    /// Reads the document; `nil` when it is not one (reported).
    mutating func read(_ root: YAMLNode) -> ArazzoDocument? {
        guard let top = mapping(root, "the Arazzo document") else { return nil }
        guard let versionNode = top.value("arazzo"), let version = string(versionNode, "`arazzo`") else { return nil }
        if !Self.supports(version.value) {
            diagnostics.error(
                .arazzoVersion, "Arazzo \(version.value) is not supported", at: version.range,
                hint: "reqplan reads Arazzo 1.0.x and 1.1.x")
        }
        isVersion11 = !version.value.hasPrefix("1.0.")
        checkKeys(
            top, ["arazzo", "info", "sourceDescriptions", "workflows", "components"], in: "the Arazzo document",
            since11: ["$self"])
        // `$self` (1.1): the document's own URI, the base of its relative references.
        if let node = top.value("$self") { _ = string(node, "`$self`") }
        var title: String?
        if let info = top.value("info").flatMap({ mapping($0, "`info`") }) {
            checkKeys(info, ["title", "summary", "description", "version"], in: "`info`")
            title = info.value("title").flatMap { string($0, "`info.title`")?.value }
            for key in ["title", "version"] where info.value(key) == nil {
                diagnostics.warning(
                    .missingKey, "`info` has no `\(key)`, which the specification requires", at: info.range,
                    hint: "add `\(key): …`")
            }
        } else if top.value("info") == nil {
            diagnostics.error(.missingKey, "the Arazzo document has no `info`", at: top.range)
        }
        var sources: [SourceDescription] = []
        if let node = top.value("sourceDescriptions") {
            let items = list(node, "`sourceDescriptions`")
            for (index, item) in items.enumerated() {
                if let description = readSource(item, index) { sources.append(description) }
            }
            if items.isEmpty, case .sequence = node {
                diagnostics.error(
                    .missingKey, "`sourceDescriptions` is empty; the specification requires at least one",
                    at: range(node),
                    hint:
                        "name the OpenAPI description the workflows call: `- { name: api, url: ./api.yaml, type: openapi }`"
                )
            }
        } else {
            diagnostics.error(.missingKey, "the Arazzo document has no `sourceDescriptions`", at: top.range)
        }
        reportDuplicates(sources.map(\.name), "two source descriptions are named")
        let components = top.value("components").map { readComponents($0) } ?? Components()
        var workflows: [Workflow] = []
        if let node = top.value("workflows") {
            for item in list(node, "`workflows`") {
                if let workflow = readWorkflow(item) { workflows.append(workflow) }
            }
            if workflows.isEmpty, !diagnostics.hasErrors {
                diagnostics.error(.arazzoVersion, "the Arazzo document has no workflow", at: range(node))
            }
        } else {
            diagnostics.error(.missingKey, "the Arazzo document has no `workflows`", at: top.range)
        }
        reportDuplicates(workflows.map(\.id), "two workflows have the id")
        var document = ArazzoDocument(
            source: source, version: version, title: title, sources: sources, workflows: workflows,
            components: components)
        document.refusedSources = refusedSources
        if let node = top.value("sourceDescriptions") {
            if case .sequence(let items) = node { document.sourcesMissing = items.isEmpty }
        } else {
            document.sourcesMissing = true
        }
        return document
    }

    // MARK: Parts

    private mutating func readSource(_ node: YAMLNode, _ index: Int) -> SourceDescription? {
        guard let fields = mapping(node, "a source description") else { return nil }
        checkKeys(fields, ["name", "url", "type"], in: "a source description")
        guard let name = required(fields, "name", in: "a source description").flatMap({ string($0, "`name`") }),
            let url = required(fields, "url", in: "source description `\(fields.value("name").map(text) ?? "")`")
                .flatMap({ string($0, "`url`") })
        else { return nil }
        let type = fields.value("type").flatMap { string($0, "`type`") }
        if let type, !["openapi", "arazzo"].contains(type.value) {
            if type.value == "asyncapi" {
                refusedSources.insert(name.value)
                diagnostics.error(
                    .arazzoUnsupported, "AsyncAPI source descriptions are not supported", at: type.range,
                    hint:
                        "reqplan runs the HTTP operations of OpenAPI descriptions and the workflows of Arazzo documents"
                )
            } else {
                diagnostics.error(
                    .invalidValue, "unknown source description type `\(type.value)`", at: type.range,
                    hint: "`openapi` or `arazzo`")
            }
            return nil
        }
        if type?.value != "arazzo", url.value.urlScheme != nil {
            diagnostics.warning(
                .unknownSourceDescription,
                "source description `\(name.value)` is at a remote URL, which reqplan does not fetch: its operations "
                    + "are not checked, and a run cannot send them", at: url.range,
                hint: "save it beside the workflow and name it by a relative path (`url: ./\(name.value).openapi.yaml`)"
            )
        }
        return SourceDescription(name: name, url: url, type: type, range: range(node))
    }

    private mutating func readComponents(_ node: YAMLNode) -> Components {
        var components = Components()
        guard let fields = mapping(node, "`components`") else { return components }
        checkKeys(fields, ["inputs", "parameters", "successActions", "failureActions"], in: "`components`")
        if let inputs = fields.value("inputs").flatMap({ mapping($0, "`components.inputs`") }) {
            for entry in inputs.entries { components.inputs[entry.key.value] = entry.value }
        }
        if let parameters = fields.value("parameters").flatMap({ mapping($0, "`components.parameters`") }) {
            for entry in parameters.entries {
                if let parameter = readParameterFields(entry.value) {
                    components.parameters[entry.key.value] = parameter
                }
            }
        }
        for (key, kinds) in [("successActions", [Action.Kind.end, .goto]), ("failureActions", [.end, .goto, .retry])] {
            guard let actions = fields.value(key).flatMap({ mapping($0, "`components.\(key)`") }) else { continue }
            for entry in actions.entries {
                guard let action = readAction(entry.value, allowed: kinds) else { continue }
                if key == "successActions" {
                    components.successActions[entry.key.value] = action
                } else {
                    components.failureActions[entry.key.value] = action
                }
            }
        }
        return components
    }

    private mutating func readWorkflow(_ node: YAMLNode) -> Workflow? {
        guard let fields = mapping(node, "a workflow") else { return nil }
        checkKeys(
            fields,
            [
                "workflowId", "summary", "description", "inputs", "dependsOn", "steps", "successActions",
                "failureActions", "outputs", "parameters",
            ], in: "a workflow")
        guard let id = required(fields, "workflowId", in: "a workflow").flatMap({ string($0, "`workflowId`") }) else {
            return nil
        }
        let what = "workflow `\(id.value)`"
        refuseRespectExtensions(fields)
        var steps: [ArazzoStep] = []
        if let node = required(fields, "steps", in: what) {
            for item in list(node, "`steps` of \(what)") {
                if let step = readStep(item, in: what) { steps.append(step) }
            }
        }
        reportDuplicates(steps.map(\.id), "two steps of \(what) have the id")
        var workflow = Workflow(
            id: id,
            summary: fields.value("summary").flatMap { string($0, "`summary`")?.value },
            inputs: fields.value("inputs"),
            dependsOn: fields.value("dependsOn").map { strings($0, "`dependsOn`") } ?? [],
            steps: steps,
            successActions: fields.value("successActions").map { actions($0, "`successActions`", [.end, .goto]) } ?? [],
            failureActions: fields.value("failureActions").map {
                actions($0, "`failureActions`", [.end, .goto, .retry])
            } ?? [],
            outputs: fields.value("outputs").map { outputs($0, "`outputs` of \(what)") } ?? [],
            parameters: fields.value("parameters").map { parameters($0, "`parameters` of \(what)") } ?? [],
            range: id.range)
        workflow.security = fields.value("x-security").map { security($0, inlineOnly: false) }
        return workflow
    }

    private mutating func readStep(_ node: YAMLNode, in workflow: String) -> ArazzoStep? {
        guard let fields = mapping(node, "a step") else { return nil }
        checkKeys(
            fields,
            [
                "stepId", "description", "operationId", "operationPath", "workflowId", "parameters", "requestBody",
                "successCriteria", "onSuccess", "onFailure", "outputs",
            ], in: "a step", since11: ["channelPath", "action", "correlationId", "dependsOn", "timeout"])
        guard let id = required(fields, "stepId", in: "a step of \(workflow)").flatMap({ string($0, "`stepId`") })
        else {
            return nil
        }
        let what = "step `\(id.value)`"
        let message = fields.key("channelPath") ?? fields.key("action") ?? fields.key("correlationId")
        if let channel = message {
            diagnostics.error(
                .arazzoUnsupported, "message steps (AsyncAPI `\(channel.value)`) are not supported", at: channel.range,
                hint: "reqplan runs the HTTP operations of OpenAPI descriptions and the workflows of Arazzo documents")
        }
        refuseRespectExtensions(fields)
        let targets = ["operationId", "operationPath", "workflowId"].compactMap { key in fields.key(key) }
        var target: ArazzoStep.Target?
        if targets.count > 1 {
            diagnostics.error(
                .conflictingKeys,
                "\(what) has both " + targets.map { "`\($0.value)`" }.joined(separator: " and "), at: targets[1].range,
                hint: "a step calls one operation (`operationId` or `operationPath`) or one workflow (`workflowId`)")
        } else if targets.isEmpty, fields.key("channelPath") == nil, fields.key("x-operation") == nil {
            diagnostics.error(
                .missingKey, "\(what) has no `operationId`, `operationPath` or `workflowId`", at: id.range,
                hint: "a step calls an operation or a workflow")
        }
        if let key = targets.first, let value = fields.value(key.value).flatMap({ string($0, "`\(key.value)`") }) {
            switch key.value {
            case "operationId": target = .operationID(value)
            case "operationPath": target = .operationPath(value)
            default: target = .workflow(value)
            }
        }
        var body: RequestBody?
        if let node = fields.value("requestBody"), let bodyFields = mapping(node, "`requestBody` of \(what)") {
            checkKeys(bodyFields, ["contentType", "payload", "replacements"], in: "`requestBody`")
            var replacements: [PayloadReplacement] = []
            for item in bodyFields.value("replacements").map({ list($0, "`replacements`") }) ?? [] {
                guard let replacement = mapping(item, "a payload replacement") else { continue }
                checkKeys(
                    replacement, ["target", "value"], in: "a payload replacement", since11: ["targetSelectorType"])
                guard
                    let target = required(replacement, "target", in: "a payload replacement")
                        .flatMap({ string($0, "`target`") }),
                    let value = required(replacement, "value", in: "a payload replacement")
                else { continue }
                let selectorType = replacement.value("targetSelectorType").flatMap { expressionType($0) }
                replacements.append(PayloadReplacement(target: target, value: value, selectorType: selectorType))
            }
            body = RequestBody(
                contentType: bodyFields.value("contentType").flatMap { string($0, "`contentType`") },
                payload: bodyFields.value("payload"), replacements: replacements, range: range(node))
        }
        var timeout: Located<Int>?
        if let node = fields.value("timeout") {
            if case .int(let value)? = node.coreSchemaValue, value > 0 {
                if value <= PlanDuration.maximum.milliseconds {
                    timeout = Located(value, at: range(node))
                } else {
                    // Held to a plan's bound before it becomes a deadline (milliseconds → nanoseconds overflows).
                    diagnostics.error(
                        .invalidValue,
                        "`timeout` of \(what) must be at most \(PlanDuration.maximum.milliseconds) milliseconds (a week)",
                        at: range(node))
                }
            } else {
                diagnostics.error(
                    .wrongType, "`timeout` of \(what) must be a positive number of milliseconds", at: range(node))
            }
        }
        var step = ArazzoStep(
            id: id,
            description: fields.value("description").flatMap { string($0, "`description`")?.value },
            target: target,
            isMessageStep: message != nil,
            parameters: fields.value("parameters").map { parameters($0, "`parameters` of \(what)") } ?? [],
            requestBody: body,
            successCriteria: fields.value("successCriteria").map { criteria($0, "`successCriteria` of \(what)") } ?? [],
            onSuccess: fields.value("onSuccess").map { actions($0, "`onSuccess` of \(what)", [.end, .goto]) } ?? [],
            onFailure: fields.value("onFailure").map { actions($0, "`onFailure` of \(what)", [.end, .goto, .retry]) }
                ?? [],
            outputs: fields.value("outputs").map { outputs($0, "`outputs` of \(what)") } ?? [],
            dependsOn: fields.value("dependsOn").map { strings($0, "`dependsOn`") },
            timeout: timeout,
            range: range(node))
        step.security = fields.value("x-security").map { security($0, inlineOnly: fields.key("x-operation") != nil) }
        return step
    }

    private mutating func parameters(_ node: YAMLNode, _ what: String) -> [ParameterEntry] {
        var result: [ParameterEntry] = []
        for item in list(node, what) {
            guard let fields = mapping(item, "a parameter") else { continue }
            if let reference = fields.value("reference") {
                let text = string(reference, "`reference`")
                // `name` and `in` beside `reference`: a Parameter Object with an empty `reference` (what some
                // generators write) is read as the parameter it is; beside a real reference they are ignored.
                if fields.value("name") != nil, text?.value.trimmingCharacters(in: .whitespaces).isEmpty ?? true {
                    checkKeys(fields, ["reference", "name", "in", "value"], in: "a parameter")
                    diagnostics.warning(
                        .invalidValue,
                        "an empty `reference` beside `name`: it names nothing, so the parameter is read "
                            + "as written", at: text?.range ?? range(reference), hint: "remove `reference`")
                    if let parameter = readParameterFields(item, allowing: ["reference"]) {
                        result.append(.parameter(parameter))
                    }
                    continue
                }
                checkKeys(fields, ["reference", "value"], in: "a reusable parameter")
                if let text { result.append(.reference(text, value: fields.value("value"))) }
                continue
            }
            if let parameter = readParameterFields(item) { result.append(.parameter(parameter)) }
        }
        return result
    }

    private mutating func readParameterFields(_ node: YAMLNode, allowing more: [String] = []) -> Parameter? {
        guard let fields = mapping(node, "a parameter") else { return nil }
        checkKeys(fields, ["name", "in", "value"] + more, in: "a parameter")
        guard let name = required(fields, "name", in: "a parameter").flatMap({ string($0, "`name`") }),
            let value = required(fields, "value", in: "parameter `\(fields.value("name").map(text) ?? "")`")
        else { return nil }
        let location = fields.value("in").flatMap { string($0, "`in`") }
        if let location, !["path", "query", "header", "cookie", "querystring"].contains(location.value) {
            diagnostics.error(
                .invalidArazzoParameter, "parameter `\(name.value)` is `in: \(location.value)`", at: location.range,
                hint: "`in` is `path`, `query`, `header`, `cookie` or (Arazzo 1.1) `querystring`")
            return nil
        }
        if let location, location.value == "querystring", !isVersion11 {
            since11("`in: querystring`", at: location.range)
        }
        return Parameter(name: name, location: location, value: value, range: range(node))
    }

    private mutating func criteria(_ node: YAMLNode, _ what: String) -> [Criterion] {
        var result: [Criterion] = []
        for item in list(node, what) {
            guard let fields = mapping(item, "a criterion") else { continue }
            checkKeys(fields, ["context", "condition", "type"], in: "a criterion")
            guard
                let condition = required(fields, "condition", in: "a criterion").flatMap({ string($0, "`condition`") })
            else { continue }
            var kind = Located(Criterion.Kind.simple, at: condition.range)
            if let typeNode = fields.value("type") {
                let typeName = expressionTypeName(typeNode, "`type`")
                if let typeName {
                    if let known = Criterion.Kind(rawValue: typeName.value) {
                        kind = Located(known, at: typeName.range)
                    } else {
                        diagnostics.error(
                            .invalidCriterion, "unknown criterion type `\(typeName.value)`", at: typeName.range,
                            hint: "`simple`, `regex`, `jsonpath` or `xpath`")
                        continue
                    }
                }
            }
            let context = fields.value("context").flatMap { string($0, "`context`") }
            if let context, kind.value == .simple, !context.value.hasPrefix("$") {
                // A simple condition reads its values itself; the specification's `context` is a runtime
                // expression all the same, and an empty one or text is none (a regex, JSONPath or XPath
                // criterion's is read, and refused, where it is translated).
                diagnostics.warning(
                    .invalidRuntimeExpression,
                    context.value.isEmpty
                        ? "`context` is empty, not a runtime expression"
                        : "`context: \(context.value)` is not a runtime expression", at: context.range,
                    hint: "a simple condition reads its values itself: remove `context`")
            }
            if kind.value != .simple, context == nil {
                diagnostics.error(
                    .invalidCriterion, "a `\(kind.value.rawValue)` criterion needs a `context`", at: condition.range,
                    hint: "name the value it applies to: `context: $response.body`")
                continue
            }
            result.append(Criterion(context: context, condition: condition, kind: kind, range: range(item)))
        }
        return result
    }

    private mutating func actions(_ node: YAMLNode, _ what: String, _ allowed: [Action.Kind]) -> [ActionEntry] {
        var result: [ActionEntry] = []
        for item in list(node, what) {
            guard let fields = mapping(item, "an action") else { continue }
            if let reference = fields.value("reference") {
                checkKeys(fields, ["reference"], in: "a reusable action")
                if let text = string(reference, "`reference`") { result.append(.reference(text)) }
                continue
            }
            if let action = readAction(item, allowed: allowed) { result.append(.action(action)) }
        }
        return result
    }

    private mutating func readAction(_ node: YAMLNode, allowed: [Action.Kind]) -> Action? {
        guard let fields = mapping(node, "an action") else { return nil }
        checkKeys(
            fields, ["name", "type", "workflowId", "stepId", "retryAfter", "retryLimit", "criteria"], in: "an action",
            since11: ["parameters"])
        if fields.value("name") == nil {
            diagnostics.warning(
                .missingKey, "an action has no `name`, which the specification requires", at: fields.range,
                hint: "name it: `name: …` (reports and `reference`s name an action by it)")
        }
        guard let typeText = required(fields, "type", in: "an action").flatMap({ string($0, "`type`") }) else {
            return nil
        }
        guard let kind = Action.Kind(rawValue: typeText.value), allowed.contains(kind) else {
            diagnostics.error(
                .invalidValue, "an action here is not of type `\(typeText.value)`", at: typeText.range,
                hint: allowed.map { "`\($0.rawValue)`" }.joined(separator: ", "))
            return nil
        }
        // Numbers from the document are held to the bounds plans have before any arithmetic: a wait of at
        // most a week (`PlanDuration.maximum`), at most 10,000 attempts (`poll.attempts`).
        let longest = Double(PlanDuration.maximum.milliseconds / 1000)
        let mostRetries = PollPolicy.attemptsRange.upperBound - 1
        var retryAfter: Located<Double>?
        if let node = fields.value("retryAfter") {
            let seconds: Double?
            switch node.coreSchemaValue {
            case .int(let value)?: seconds = Double(value)
            case .largeInt?: seconds = .infinity
            case .double(let value)?: seconds = value
            default: seconds = nil
            }
            if let seconds, seconds.isFinite, (0...longest).contains(seconds) {
                retryAfter = Located(seconds, at: range(node))
            } else if seconds == nil {
                diagnostics.error(.wrongType, "`retryAfter` must be a number of seconds", at: range(node))
            } else {
                diagnostics.error(
                    .invalidValue,
                    "`retryAfter` must be from 0 to \(Int(longest)) seconds (a week), found "
                        + "`\(node.string ?? "")`", at: range(node),
                    hint: "a retry waits at most a week, as a plan's durations do")
            }
        }
        var retryLimit: Located<Int>?
        if let node = fields.value("retryLimit") {
            switch node.coreSchemaValue {
            case .int(let value)? where (0...mostRetries).contains(value):
                retryLimit = Located(value, at: range(node))
            case .int?, .largeInt?:
                diagnostics.error(
                    .invalidValue,
                    "`retryLimit` must be from 0 to \(mostRetries), found `\(node.string ?? "")`",
                    at: range(node),
                    hint: "a request is sent at most \(mostRetries + 1) times, as a plan's `poll.attempts` allows")
            default:
                diagnostics.error(.wrongType, "`retryLimit` must be a whole number", at: range(node))
            }
        }
        let stepID = fields.value("stepId").flatMap { string($0, "`stepId`") }
        let workflowID = fields.value("workflowId").flatMap { string($0, "`workflowId`") }
        if kind == .goto, stepID == nil, workflowID == nil {
            diagnostics.error(.missingKey, "a `goto` action names no `stepId` or `workflowId`", at: typeText.range)
        }
        if let stepID, workflowID != nil {
            diagnostics.error(
                .conflictingKeys, "a `\(kind.rawValue)` action has both `stepId` and `workflowId`", at: stepID.range)
        }
        return Action(
            name: fields.value("name").flatMap { string($0, "`name`") }, kind: Located(kind, at: typeText.range),
            stepID: stepID, workflowID: workflowID, retryAfter: retryAfter, retryLimit: retryLimit,
            criteria: fields.value("criteria").map { criteria($0, "`criteria`") } ?? [], range: range(node),
            parameters: fields.value("parameters").map { parameters($0, "`parameters` of an action") } ?? [])
    }

    /// Outputs, each name checked against the specification's `^[a-zA-Z0-9.\-_]+$` (a MUST: a runtime
    /// expression cannot read another) and each value that is neither a runtime expression nor (1.1) a
    /// selector object warned about: it is taken as the literal it is.
    private mutating func outputs(_ node: YAMLNode, _ what: String) -> [(name: Located<String>, value: YAMLNode)] {
        guard let fields = mapping(node, what) else { return [] }
        for entry in fields.entries {
            let name = entry.key
            let allowed =
                !name.value.isEmpty
                && name.value.unicodeScalars.allSatisfy {
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                        || ".-_".unicodeScalars.contains($0)
                }
            if !allowed {
                diagnostics.warning(
                    .invalidName, "output name `\(name.value)` has characters the specification does not allow",
                    at: name.range,
                    hint: "an output name matches `^[a-zA-Z0-9.\\-_]+$`; a runtime expression cannot read this one")
            }
            if case .mapping = entry.value { continue }
            let text = entry.value.coreSchemaValue?.interpolated ?? ""
            let isExpression = text.hasPrefix("$") || (text.hasPrefix("{$") && text.hasSuffix("}"))
            guard !isExpression else { continue }
            let selectorHint =
                text.hasPrefix("//")
                ? " An XPath is read with a selector object (1.1): `{ context: $response.body, selector: '\(text)', type: xpath }`"
                : text.hasPrefix("/")
                    ? " A JSON pointer into the response is written `$response.body#\(text)`"
                    : ""
            diagnostics.warning(
                .invalidRuntimeExpression,
                "output `\(name.value)` is not a runtime expression: it is the literal `\(text)`",
                at: range(entry.value),
                hint: "an output's value is a runtime expression (`$response.body#/id`)." + selectorHint)
        }
        return fields.entries.map { ($0.key, $0.value) }
    }

    /// Reports each id of `ids` written a second time (RP1013), with a note at the first.
    mutating func reportDuplicates(_ ids: [Located<String>], _ message: String) {
        var seen: [String: SourceRange] = [:]
        for id in ids {
            if let first = seen[id.value] {
                diagnostics.error(
                    .duplicateArazzoID, "\(message) `\(id.value)`", at: id.range,
                    notes: [.init("the first is here", at: first)])
            } else {
                seen[id.value] = id.range
            }
        }
    }

    // MARK: Nodes

    struct Fields {
        var entries: [(key: Located<String>, value: YAMLNode)]
        var range: SourceRange

        // By index: `first(where:)` would copy each entry (a key and a node) it looks at.
        func value(_ key: String) -> YAMLNode? { entries.firstIndex { $0.key.value == key }.map { entries[$0].value } }
        func key(_ key: String) -> Located<String>? {
            entries.firstIndex { $0.key.value == key }.map { entries[$0].key }
        }
    }

    func range(_ node: YAMLNode) -> SourceRange { source.range(of: node) }

    func text(_ node: YAMLNode) -> String {
        if case .scalar(let scalar) = node { return scalar.string }
        return ""
    }

    mutating func mapping(_ node: YAMLNode, _ what: String) -> Fields? {
        guard case .mapping(let mapping) = node else {
            diagnostics.error(.wrongType, "\(what) must be a mapping, found \(describe(node))", at: range(node))
            return nil
        }
        var entries: [(Located<String>, YAMLNode)] = []
        for (key, value) in mapping {
            guard case .scalar(let scalar) = key else {
                diagnostics.error(.wrongType, "the keys of \(what) must be names", at: range(key))
                continue
            }
            entries.append((Located(scalar.string, at: range(key)), value))
        }
        return Fields(entries: entries, range: range(node))
    }

    mutating func list(_ node: YAMLNode, _ what: String) -> [YAMLNode] {
        guard case .sequence(let sequence) = node else {
            if node.coreSchemaValue == .null { return [] }
            diagnostics.error(.wrongType, "\(what) must be a list, found \(describe(node))", at: range(node))
            return []
        }
        return sequence.nodes
    }

    mutating func string(_ node: YAMLNode, _ what: String) -> Located<String>? {
        guard case .scalar(let scalar) = node, node.coreSchemaValue != .null else {
            diagnostics.error(.wrongType, "\(what) must be a string, found \(describe(node))", at: range(node))
            return nil
        }
        return Located(scalar.string, at: range(node))
    }

    mutating func strings(_ node: YAMLNode, _ what: String) -> [Located<String>] {
        list(node, what).compactMap { string($0, what) }
    }

    mutating func required(_ fields: Fields, _ key: String, in what: String) -> YAMLNode? {
        if let value = fields.value(key) { return value }
        diagnostics.error(.missingKey, "\(what) has no `\(key)`", at: SourceRange(at: fields.range.start))
        return nil
    }

    /// Reports keys that are not `allowed` (extensions `x-…` are); the keys of `since11` are Arazzo 1.1's,
    /// read in a 1.0 document too, with a warning.
    mutating func checkKeys(_ fields: Fields, _ allowed: [String], in what: String, since11: [String] = []) {
        for entry in fields.entries where since11.contains(entry.key.value) && !isVersion11 {
            self.since11("`\(entry.key.value)` in \(what)", at: entry.key.range)
        }
        let allowed = allowed + since11
        for entry in fields.entries where !allowed.contains(entry.key.value) && !entry.key.value.hasPrefix("x-") {
            let suggestion = Suggestion.replacement(for: entry.key.value, in: allowed)
            diagnostics.error(
                .unknownKey, "unknown key `\(entry.key.value)` in \(what)", at: entry.key.range,
                hint: suggestion?.hint ?? "its keys are " + allowed.map { "`\($0)`" }.joined(separator: ", "),
                fix: suggestion?.fix)
        }
    }

    /// A warning for what Arazzo 1.1 added, written in a 1.0 document: read as 1.1 defines it.
    mutating func since11(_ what: String, at range: SourceRange) {
        diagnostics.warning(
            .arazzoVersion, "\(what) is Arazzo 1.1, and this document is 1.0: it is read as 1.1 defines it",
            at: range, hint: "write `arazzo: 1.1.0` at the top, or leave it out")
    }

    /// The name an expression type gives, written as a name or as an expression type object (`type`, its
    /// `version` checked); `what` names it in messages. Nil (reported) when there is none.
    mutating func expressionTypeName(_ node: YAMLNode, _ what: String) -> Located<String>? {
        guard case .mapping = node, let object = mapping(node, what) else { return string(node, what) }
        checkKeys(object, ["type", "version"], in: "an expression type")
        let name = required(object, "type", in: "an expression type").flatMap { string($0, "`type`") }
        if let version = object.value("version").flatMap({ string($0, "`version`") }) {
            checkExpressionVersion(version, of: name?.value)
        }
        return name
    }

    /// An expression type: `jsonpath`, `xpath` or `jsonpointer`, or an expression type object (`type`,
    /// `version`); nil (reported) for another.
    mutating func expressionType(_ node: YAMLNode) -> Located<String>? {
        guard let name = expressionTypeName(node, "an expression type") else { return nil }
        guard ["jsonpath", "xpath", "jsonpointer"].contains(name.value) else {
            diagnostics.error(
                .invalidValue, "unknown expression type `\(name.value)`", at: name.range,
                hint: "`jsonpath`, `xpath` or `jsonpointer`")
            return nil
        }
        return name
    }

    func describe(_ node: YAMLNode) -> String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar: return node.coreSchemaValue.map { $0.type.withArticle } ?? "a value"
        }
    }
}

extension ArazzoParser {
    /// Redocly Respect's extensions that change what a step sends: `x-operation` (a step's request by URL
    /// and method, without a source description) is refused (RP1002), since skipping it would send nothing
    /// as written. (`x-security` is read: `security(_:inlineOnly:)`.)
    mutating func refuseRespectExtensions(_ fields: Fields) {
        guard fields.entries.contains(where: { $0.key.value.hasPrefix("x-") }) else { return }
        if let key = fields.key("x-operation") {
            diagnostics.error(
                .arazzoUnsupported,
                "Redocly Respect's `x-operation` (a request by URL and method, outside any source description) is "
                    + "not supported", at: key.range,
                hint: "describe the operation in an OpenAPI source description and name it with `operationId` or "
                    + "`operationPath`")
        }
    }

    /// The `version` of an expression type object, one of those the specification lists. JSONPath is read as
    /// RFC 9535 (Goessner's draft too: the queries the two share mean the same, and one RFC 9535 does not read
    /// is refused where it is compiled); XPath as XPath 1.0 (an expression beyond 1.0 is refused where it is
    /// compiled).
    mutating func checkExpressionVersion(_ version: Located<String>, of type: String?) {
        let known: [String: [String]] = [
            "jsonpath": ["rfc9535", "draft-goessner-dispatch-jsonpath-00"],
            "xpath": ["xpath-31", "xpath-30", "xpath-20", "xpath-10"],
            "jsonpointer": ["rfc6901"],
        ]
        guard let type, let versions = known[type] else { return }
        if !versions.contains(version.value) {
            diagnostics.error(
                .invalidCriterion, "unknown `\(type)` version `\(version.value)`", at: version.range,
                hint: versions.map { "`\($0)`" }.joined(separator: ", "))
        }
    }
}
