import ReqPlanPlanner
import ReqPlanSyntax

/// One step of the workflow written: its id and its fields but `outputs`, which later steps add to.
struct ExportedStep {
    var id: String
    var fields: [(key: String, value: ExportNode)]
}

extension ArazzoExporter {
    /// A request step as an Arazzo step: the operation it calls, its parameters, request body, timeout and
    /// success criteria; `nil` (and diagnostics) when it has no Arazzo form.
    mutating func step(_ node: StepNode) -> ExportedStep? {
        let step = node.step
        guard let request = step.request else { return nil }
        let errorsBefore = diagnostics.errorCount
        checkStepSettings(step, request)
        guard let reference = request.operation else {
            refuse(
                "a request not bound to an operation",
                because: "an Arazzo step calls an operation of a source description (`operationId` or `operationPath`)",
                at: step.id.range, hint: "write the request with `operation:` (grammar.md §6.9)")
            return nil
        }
        var fields: [(key: String, value: ExportNode)] = [("stepId", .text(node.localID))]
        if let description = stepDescription(node) { fields.append(("description", .text(description))) }
        fields.append(target(of: node, reference))
        let parameters = parameters(of: request, reference)
        if !parameters.isEmpty { fields.append(("parameters", .list(parameters))) }
        if let body = requestBody(of: request) { fields.append(("requestBody", body)) }
        if let timeout = step.timeout ?? plan.defaults.timeout {
            fields.append(("timeout", .scalar(String(timeout.value.milliseconds))))
        }
        let expect = step.expect.map { $0.merged(over: plan.defaults.expect) } ?? plan.defaults.expect
        let criteria = successCriteria(expect)
        if !criteria.isEmpty { fields.append(("successCriteria", .list(criteria))) }
        guard diagnostics.errorCount == errorsBefore else { return nil }
        return ExportedStep(id: node.localID, fields: fields)
    }

    /// The settings of a request step that Arazzo has no form for.
    private mutating func checkStepSettings(_ step: Step, _ request: RequestSpec) {
        if let condition = step.condition {
            refuse(
                "`if:`",
                because:
                    "an Arazzo step runs whenever control reaches it (a condition would be an action of the step before)",
                at: condition.range)
        }
        if let poll = step.poll {
            refuse(
                "`poll`",
                because:
                    "Arazzo's `onFailure` retry re-sends a request that failed; it cannot wait for a condition on a response that succeeded",
                at: poll.range)
        }
        let retry = step.retry.map { $0.merged(over: plan.defaults.retry) } ?? plan.defaults.retry
        if let retry, (retry.attempts?.value ?? 1) > 1 {
            refuse(
                "`retry`",
                because:
                    "reqplan retries transport failures, timeouts and 5xx with exponential backoff and jitter; Arazzo's `onFailure` retry waits a fixed `retryAfter` and judges only the response",
                at: retry.range)
        }
        if let auth = request.auth { refuse("`auth`", because: Self.credentialsReason, at: auth.range) }
        if let follow = request.followRedirects ?? plan.defaults.followRedirects, !follow.value {
            refuse(
                "`follow_redirects: false`", because: "an Arazzo runner follows redirects its own way", at: follow.range
            )
        }
        if let queryString = request.queryString {
            refuse(
                "`query_string`", because: "Arazzo 1.0 runners know no `in: querystring` parameter",
                at: queryString.range)
        }
    }

    /// The step's description, and where the plan had it: the group or sequence it was a member of.
    private func stepDescription(_ node: StepNode) -> String? {
        var parts: [String] = []
        if let description = node.step.description { parts.append(description) }
        let collections = enclosing(node).map { "`\($0.step.id.value)` (\($0.kind.rawValue))" }
        if !collections.isEmpty {
            parts.append("In the plan, a member of " + collections.joined(separator: " in ") + ".")
        }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// `operationId` (qualified by its source description when the plan binds several), or `operationPath`
    /// for an operation without an id.
    private func target(of node: StepNode, _ reference: OperationReference) -> (key: String, value: ExportNode) {
        let bound = operations[node.id]?.operation
        let id: String? =
            bound?.id
            ?? {
                if case .id(let id) = reference.operation { return id }
                return nil
            }()
        if let id {
            return ("operationId", .text(plan.apis.count == 1 ? id : "$sourceDescriptions.\(reference.api).\(id)"))
        }
        var method = bound?.method ?? "get"
        var path = bound?.path ?? "/"
        if bound == nil, case .route(let written, let route) = reference.operation {
            method = written
            path = route
        }
        let pointer = path.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
        return (
            "operationPath",
            .text("{$sourceDescriptions.\(reference.api).url}#/paths/\(pointer)/\(method.lowercased())")
        )
    }

    /// Path, query and header parameters (the plan's `defaults` first, the request's own winning), each
    /// `name`, `in`, `value`.
    private mutating func parameters(of request: RequestSpec, _ reference: OperationReference)
        -> [ExportNode]
    {
        var result: [ExportNode] = []
        func parameter(_ name: String, _ place: String, _ value: ExportNode) -> ExportNode {
            .map([("name", .text(name)), ("in", .text(place)), ("value", value)])
        }
        for item in reference.pathParameters {
            if let value = value(item.value) { result.append(parameter(item.name.value, "path", value)) }
        }
        let ownQuery = Set(request.query.map(\.name.value))
        for item in plan.defaults.query.filter({ !ownQuery.contains($0.name.value) }) + request.query {
            if let value = value(item.value) { result.append(parameter(item.name.value, "query", value)) }
        }
        let ownHeaders = Set(request.headers.map { $0.name.value.lowercased() })
        for header in plan.defaults.headers.filter({ !ownHeaders.contains($0.name.value.lowercased()) })
            + request.headers
        {
            // The body's content type is the request body's `contentType`.
            if request.body != nil, header.name.value.lowercased() == "content-type" { continue }
            if let value = templateNode(header.value) {
                result.append(parameter(header.name.value, "header", value))
            }
        }
        return result
    }

    /// `requestBody`: its `contentType` (the request's `Content-Type`, else the body kind's) and `payload`.
    private mutating func requestBody(of request: RequestSpec) -> ExportNode? {
        guard let body = request.body else { return nil }
        let written = request.headers.first { $0.name.value.lowercased() == "content-type" }?.value.literalText
        let payload: ExportNode?
        let contentType: String
        switch body {
        case .json(let json):
            contentType = written ?? "application/json"
            payload = value(json)
        case .form(let fields):
            contentType = "application/x-www-form-urlencoded"
            var entries: [(key: String, value: ExportNode)] = []
            for field in fields {
                if let value = value(field.value) { entries.append((field.name.value, value)) }
            }
            payload = .map(entries)
        case .text(let text):
            contentType = written ?? "text/plain"
            payload = templateNode(text)
        case .multipart, .file:
            refuse(
                "a `\(body.keyName)` body",
                because: "an Arazzo payload is a value written in the document, not a file the runner reads",
                at: request.range)
            return nil
        }
        guard let payload else { return nil }
        return .map([("contentType", .text(contentType)), ("payload", payload)])
    }
}
