extension PlanReader {
    static let stepKindKeys = ["request", "group", "sequence", "for_each", "plan"]
    /// The keys of `for_each: { file: …, format: … }`.
    static let itemsFileKeys = ["file", "format"]
    static let commonStepKeys = ["needs", "if", "description", "timeout", "cookies"]
    static let requestOnlyKeys = ["retry", "expect", "poll"]
    static let collectionOnlyKeys = ["concurrency", "on_failure"]
    static let allStepKeys = stepKindKeys + commonStepKeys + requestOnlyKeys + collectionOnlyKeys + ["as"]
    /// Names a for_each item cannot take: the roots of expressions.
    static let reservedItemNames = ["inputs", "steps", "env", "vars", "response"]
    /// The most requests in flight (`concurrency:` of the plan and of a step).
    static let concurrencyRange = 1...100_000
    /// Tries of a request, the first included (`retry:`).
    static let retryAttemptsRange = 1...100

    /// A mapping of step id → step (`steps:`, `group:`, `sequence:`).
    mutating func readSteps(_ node: YAMLNode, in what: String, key: Located<String>?) -> [Step] {
        guard let entries = mapping(node, what) else { return [] }
        if entries.entries.isEmpty {
            diagnostics.error(
                .emptyCollection, "\(what) has no steps", at: key?.range ?? range(node),
                hint: "list at least one step under it")
            return []
        }
        if stepDepth == 0 && entries.entries.count >= PlanReader.stepsReadInParallel {
            return readStepsInParallel(entries.entries, in: node)
        }
        return entries.entries.compactMap { readDeclaredStep(id: $0.key, $0.value) }
    }

    /// A step under `id`, its id checked: a valid name, not declared before.
    mutating func readDeclaredStep(id: Located<String>, _ value: YAMLNode) -> Step? {
        let validName = checkName(id, "step id")
        if !validName { invalidStepIDs.insert(id.value) }
        if validName {
            if let first = stepIDs[id.value] {
                reportDuplicateStep(id, first: first)
            } else {
                stepIDs[id.value] = id.range
                declaredStepIDs?.append(id)
            }
        }
        return readStep(id: id, value)
    }

    mutating func reportDuplicateStep(_ id: Located<String>, first: SourceRange) {
        diagnostics.error(
            .duplicateStep, "duplicate step id `\(id.value)`", at: id.range,
            notes: [.init("`\(id.value)` is first defined here", at: first)],
            hint: "step ids are unique in the whole plan, members of groups included")
    }

    /// The members of a group, sequence or for_each body, one level deeper than the steps being read; past
    /// `maxNesting` levels, RP0008 at `key` and nothing below is read (so no plan nests the reader, the
    /// planner or the runner deeper than that).
    mutating func readMembers(_ node: YAMLNode, in what: String, key: Located<String>) -> [Step] {
        guard stepDepth + 1 < limits.maxNesting else {
            diagnostics.error(
                .nestedTooDeep, "steps are nested more than \(limits.maxNesting) levels deep here", at: key.range,
                hint: "move the inner steps into a step of their own, or into a sub-plan file of fewer levels")
            // Its members' ids are known, so a `needs` naming one is not reported as well.
            if case .mapping(let members) = node {
                for case .scalar(let id) in members.keys where stepIDs[id.string] == nil {
                    stepIDs[id.string] = SourceRange(at: key.range.start)
                }
            }
            return []
        }
        stepDepth += 1
        defer { stepDepth -= 1 }
        return readSteps(node, in: what, key: key)
    }

    /// One step: exactly one of `request`, `group`, `sequence`, `for_each` (over `request` or `group`).
    mutating func readStep(id: Located<String>, _ node: YAMLNode) -> Step? {
        let what = "step `\(id.value)`"
        guard let fields = mapping(node, what) else { return nil }

        // Unknown keys first, so a misspelt kind is reported as such.
        var misspeltKind = false
        for entry in fields.entries where !PlanReader.allStepKeys.contains(entry.key.value) {
            reportUnknownKey(entry.key, allowed: PlanReader.allStepKeys, in: what)
            if Suggestion.closest(to: entry.key.value, in: PlanReader.stepKindKeys) != nil { misspeltKind = true }
        }

        let kinds = fields.entries.filter { PlanReader.stepKindKeys.contains($0.key.value) }
        let isForEach = fields.has("for_each")
        let bodies = kinds.filter { $0.key.value != "for_each" }
        if kinds.isEmpty {
            registerUnreadMembers(node)
            if !misspeltKind {
                diagnostics.error(
                    .missingKey, "\(what) has no `request`, `group`, `sequence`, `for_each` or `plan`",
                    at: id.range,
                    hint: "a step is exactly one of `request`, `group`, `sequence`, `for_each`, `plan`")
            }
            return nil
        }
        if bodies.count > 1 || (!isForEach && kinds.count > 1) {
            let first = bodies[0]
            for extra in bodies.dropFirst() {
                diagnostics.error(
                    .conflictingKeys, "\(what) has both `\(first.key.value)` and `\(extra.key.value)`",
                    at: extra.key.range, notes: [.init("`\(first.key.value)` is given here", at: first.key.range)],
                    hint: isForEach
                        ? "a for_each body is one `request` or one `group`"
                        : "a step is exactly one of `request`, `group`, `sequence`, `for_each`, `plan`")
            }
            registerUnreadMembers(node)
            return nil
        }
        if isForEach && bodies.isEmpty {
            diagnostics.error(
                .missingKey, "for_each \(what) has no body", at: fields.key("for_each")?.range,
                hint: "add a `request:` or a `group:` to run for each item")
            return nil
        }
        if isForEach, let body = bodies.first, body.key.value == "sequence" || body.key.value == "plan" {
            diagnostics.error(
                .conflictingKeys,
                "a for_each body is a `request` or a `group`, not a `\(body.key.value)`",
                at: body.key.range, hint: "use a `group` with a `\(body.key.value)` member")
            registerUnreadMembers(node)
            return nil
        }
        if !isForEach, let asKey = fields.key("as") {
            diagnostics.error(.keyNotAllowed, "`as` is only allowed on a for_each step", at: asKey.range)
        }

        let body = bodies[0]
        let kind: Step.Kind?
        let kindName: String
        switch (isForEach, body.key.value) {
        case (false, "request"):
            kindName = "request"
            kind = readRequest(body.value, "`request` of \(what)", key: body.key).map(Step.Kind.request)
        case (false, "group"):
            kindName = "group"
            kind = .group(readMembers(body.value, in: "`group` of \(what)", key: body.key))
        case (false, "plan"):
            kindName = "plan"
            kind = readSubPlanCall(body.value, "`plan` of \(what)", key: body.key).map(Step.Kind.plan)
        case (false, _):
            kindName = "sequence"
            kind = .sequence(readMembers(body.value, in: "`sequence` of \(what)", key: body.key))
        case (true, _):
            kindName = "for_each"
            kind = readForEach(fields, body: body, what: what).map(Step.Kind.forEach)
        }

        // Keys that belong to other kinds of step.
        let requestBody = isForEach ? body.key.value == "request" : kindName == "request"
        for entry in fields.entries {
            let key = entry.key.value
            if PlanReader.requestOnlyKeys.contains(key) && !requestBody {
                diagnostics.error(
                    .keyNotAllowed, "`\(key)` is not allowed on a \(describeKind(kindName, body.key.value)) step",
                    at: entry.key.range,
                    hint: kindName == "plan"
                        ? "`\(key)` applies to requests; set it in the sub-plan, on its steps"
                            + (PlanReader.defaultsKeys.contains(key) ? " or in its `defaults`" : "")
                        : "`\(key)` applies to requests; set it on the members instead")
            }
            if PlanReader.collectionOnlyKeys.contains(key) && kindName == "request" {
                diagnostics.error(
                    .keyNotAllowed, "`\(key)` is not allowed on a request step", at: entry.key.range,
                    hint: "`\(key)` applies to `group`, `sequence`, `for_each` and `plan` steps")
            }
            if key == "on_failure" && kindName == "plan" {
                diagnostics.error(
                    .keyNotAllowed, "`on_failure` is not allowed on a plan step", at: entry.key.range,
                    hint: "the sub-plan's own `on_failure` applies inside it; "
                        + "set it in the sub-plan file")
            }
        }

        // A name that is not a valid id is left out, and reported once every step id is known
        // (not at all when it names a step whose id is reported already).
        var needs = fields.value("needs").map { names($0, "`needs` of \(what)") } ?? []
        invalidNeeds += needs.filter { !PlanReader.isValidName($0.value) }
        needs.removeAll { !PlanReader.isValidName($0.value) }
        let condition = fields.value("if").flatMap { self.condition($0, "`if` of \(what)") }
        let description = fields.value("description").flatMap { text($0, "`description` of \(what)") }?.value
        let timeout = fields.value("timeout").flatMap { duration($0, "`timeout` of \(what)") }
        let retry = requestBody ? fields.value("retry").flatMap { readRetry($0, "`retry` of \(what)") } : nil
        let expect = requestBody ? fields.value("expect").flatMap { readExpect($0, "`expect` of \(what)") } : nil
        let concurrency =
            kindName == "request"
            ? nil
            : fields.value("concurrency").flatMap {
                integer($0, "`concurrency` of \(what)", in: PlanReader.concurrencyRange)
            }
        let onFailure =
            kindName == "request" || kindName == "plan"
            ? nil
            : fields.value("on_failure").flatMap { choice($0, "`on_failure` of \(what)", FailurePolicy.self) }

        let cookies = fields.value("cookies").flatMap { bool($0, "`cookies` of \(what)") }
        let poll =
            requestBody
            ? fields.entries.first { $0.key.value == "poll" }
                .flatMap { readPoll($0.value, "`poll` of \(what)", key: $0.key) } : nil

        guard let kind else { return nil }
        let step = Step(
            id: id, kind: kind, needs: needs, condition: condition, description: description,
            timeout: timeout, retry: retry, expect: expect, concurrency: concurrency, onFailure: onFailure,
            range: SourceRange(start: id.range.start, end: id.range.end), cookies: cookies, poll: poll)
        if let poll { checkPollMethod(poll, of: step.request, in: what) }
        return step
    }

    /// Records the ids of the members of a step that is not read (under `group:`, `sequence:`
    /// or a misspelling of them), so that references to them are not reported as unknown steps.
    private mutating func registerUnreadMembers(_ node: YAMLNode, depth: Int = 0) {
        guard depth < 100, case .mapping(let fields) = node else { return }
        for (key, value) in fields {
            guard case .scalar(let keyScalar) = key, case .mapping(let members) = value else { continue }
            let kind =
                PlanReader.stepKindKeys.contains(keyScalar.string)
                ? keyScalar.string : Suggestion.closest(to: keyScalar.string, in: PlanReader.stepKindKeys)
            guard kind == "group" || kind == "sequence" else { continue }
            for (memberKey, member) in members {
                guard charge(member) else { return }
                guard case .scalar(let id) = memberKey else { continue }
                if stepIDs[id.string] == nil { stepIDs[id.string] = range(memberKey) }
                registerUnreadMembers(member, depth: depth + 1)
            }
        }
    }

    private func describeKind(_ kindName: String, _ body: String) -> String {
        kindName == "for_each" ? "for_each over a \(body)" : kindName
    }

    private mutating func readForEach(
        _ fields: MappingEntries, body: (key: Located<String>, value: YAMLNode), what: String
    )
        -> ForEach?
    {
        guard let itemsNode = fields.value("for_each") else { return nil }
        var source: ForEach.Source?
        if case .mapping = itemsNode {
            source = readItemsFile(itemsNode, "`for_each` of \(what)").map(ForEach.Source.file)
        } else {
            source = readItemsList(itemsNode, what: what).map(ForEach.Source.list)
        }
        var itemName = Located("item", at: fields.key("for_each")?.range ?? range(itemsNode))
        // With a bad `as`, the body would be resolved under the wrong name: read it, but not the step.
        var validItemName = true
        if let asNode = fields.value("as") {
            if let name = string(asNode, "`as` of \(what)"), checkName(name, "item name") {
                if PlanReader.reservedItemNames.contains(name.value) {
                    diagnostics.error(
                        .invalidName, "`\(name.value)` is reserved and cannot name a for_each item",
                        at: name.range, hint: "choose another name, such as `item`")
                    validItemName = false
                } else {
                    itemName = name
                }
            } else {
                validItemName = false
            }
        }
        let loopBody: ForEach.Body?
        if body.key.value == "request" {
            loopBody = readRequest(body.value, "`request` of \(what)", key: body.key).map(ForEach.Body.request)
        } else {
            loopBody = .group(readMembers(body.value, in: "`group` of \(what)", key: body.key))
        }
        guard let source, let loopBody, validItemName else { return nil }
        return ForEach(source: source, itemName: itemName, body: loopBody)
    }

    /// The items of a for_each written in the plan: a YAML list, or exactly one `${{ }}` giving a list.
    private mutating func readItemsList(_ itemsNode: YAMLNode, what: String) -> ValueTemplate? {
        var items = valueTemplate(itemsNode, "`for_each` of \(what)")
        switch items {
        case .template(let template) where template.singleExpression == nil:
            diagnostics.error(
                .wrongType, "`for_each` of \(what) must be a list or one `${{ }}` giving a list",
                at: template.range, hint: "text around `${{ }}` makes a string, not a list")
            items = nil
        case .literal(let value, let range) where value.type != .list:
            diagnostics.error(
                .wrongType, "`for_each` of \(what) must be a list, found \(value.type.withArticle)",
                at: range, hint: "write `for_each: ${{ inputs.name }}` or a YAML list")
            items = nil
        case .object(_, let range):
            diagnostics.error(.wrongType, "`for_each` of \(what) must be a list, found a mapping", at: range)
            items = nil
        default:
            break
        }
        return items
    }

    /// `for_each: { file: PATH, format: csv | jsonl }`: the rows of a data file. The path is literal (the planner
    /// reads the file before the run); `format` is needed when the name ends in neither `.csv` nor `.jsonl` or
    /// `.ndjson`.
    private mutating func readItemsFile(_ node: YAMLNode, _ what: String) -> ItemsFile? {
        guard let fields = mapping(node, what) else { return nil }
        checkKeys(fields, allowed: PlanReader.itemsFileKeys, in: what)
        var format: Located<DataFile.Format>?
        var formatIsValid = true
        if let formatNode = fields.value("format") {
            if let written = choice(formatNode, "`format` of \(what)", ItemsFileFormat.self) {
                format = Located(written.value.format, at: written.range)
            } else {
                formatIsValid = false
            }
        }
        guard let fileNode = fields.value("file") else {
            diagnostics.error(
                .missingKey, "\(what) has no `file`", at: range(node),
                hint: "name the data file whose rows are the items: `for_each: { file: rows.csv }`")
            return nil
        }
        guard let path = string(fileNode, "`file` of \(what)") else { return nil }
        if Template.opensExpression(path.value) {
            sawMalformedExpression = true
            diagnostics.error(
                .invalidExpression, "the data file of a for_each is a literal path; `${{ }}` is not evaluated here",
                at: path.range, hint: "name the file itself, relative to this plan's file")
            return nil
        }
        if path.value.isEmpty {
            diagnostics.error(
                .invalidValue, "the file of a for_each is empty", at: path.range,
                hint: "name a `.csv` or `.jsonl` file, relative to this plan's file")
            return nil
        }
        guard formatIsValid else { return nil }
        if format == nil, DataFile.Format(path: path.value) == nil {
            diagnostics.error(
                .missingKey, "cannot tell the format of `\(path.value)` from its name, and \(what) has no `format`",
                at: path.range,
                hint: "add `format: csv` (a header row, then one row per item) or `format: jsonl` (one JSON value per "
                    + "line), or name the file `.csv`, `.jsonl` or `.ndjson`")
            return nil
        }
        return ItemsFile(path: path, format: format, range: range(node))
    }

    // MARK: Retry

    static let retryKeys = ["attempts", "backoff", "max_backoff", "on", "unsafe"]

    mutating func readRetry(_ node: YAMLNode, _ what: String) -> RetryPolicy? {
        if case .int = scalarValue(node) {
            // Shorthand: `retry: 3` means three attempts.
            guard let attempts = integer(node, "\(what)", in: PlanReader.retryAttemptsRange) else { return nil }
            return RetryPolicy(
                attempts: attempts, backoff: nil, maxBackoff: nil, on: nil, unsafe: nil,
                range: attempts.range)
        }
        guard let fields = mapping(node, what) else { return nil }
        checkKeys(fields, allowed: PlanReader.retryKeys, in: what)
        var on: [Located<RetryCondition>]?
        if let onNode = fields.value("on") {
            var conditions: [Located<RetryCondition>] = []
            let nodes: [YAMLNode] =
                if case .sequence = onNode { sequence(onNode, "`on` of \(what)") ?? [] } else { [onNode] }
            for item in nodes {
                if let condition = choice(item, "retry condition", RetryCondition.self) { conditions.append(condition) }
            }
            on = conditions
        }
        let backoff = fields.value("backoff").flatMap { duration($0, "`backoff`") }
        let maxBackoff = fields.value("max_backoff").flatMap { duration($0, "`max_backoff`") }
        if let backoff, let maxBackoff, maxBackoff.value < backoff.value {
            diagnostics.error(
                .invalidValue, "`max_backoff` (\(maxBackoff.value)) is shorter than `backoff` (\(backoff.value))",
                at: maxBackoff.range)
        }
        return RetryPolicy(
            attempts: fields.value("attempts").flatMap { integer($0, "`attempts`", in: PlanReader.retryAttemptsRange) },
            backoff: backoff, maxBackoff: maxBackoff, on: on,
            unsafe: fields.value("unsafe").flatMap { bool($0, "`unsafe`") },
            range: fields.range)
    }
}

/// The words `format:` of a for_each's data file takes.
enum ItemsFileFormat: String, CaseIterable {
    case csv
    case jsonl

    /// The data file format it names.
    var format: DataFile.Format {
        switch self {
        case .csv: .csv
        case .jsonl: .jsonLines
        }
    }
}
