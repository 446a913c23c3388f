import Foundation

/// The result of reading a plan: the AST when it could be built, and every diagnostic.
public struct ParseResult: Sendable {
    /// The plan, or `nil` when the file is not a plan at all (unreadable, not YAML, wrong root).
    /// A plan may be returned together with errors: everything else in it was read.
    public var plan: Plan?
    /// Every problem found, in the order found.
    public var diagnostics: [Diagnostic]
    /// The source, for rendering excerpts.
    public var source: SourceFile?

    /// Whether any diagnostic is an error.
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// Creates a result.
    public init(plan: Plan?, diagnostics: [Diagnostic], source: SourceFile?) {
        self.plan = plan
        self.diagnostics = diagnostics
        self.source = source
    }
}

/// Reads plan files into the AST (YAML → AST), reporting every problem with its location.
public enum PlanParser {
    /// The format versions this build reads.
    public static let supportedVersions = [1]

    /// Parses plan text.
    /// - Parameters:
    ///   - source: the text and its display path.
    ///   - limits: size and alias-expansion limits.
    /// - Returns: the AST (if any) and all diagnostics.
    public static func parse(_ source: SourceFile, limits: ParseLimits = ParseLimits()) -> ParseResult {
        parseInParts(source, limits: limits) ?? parseWhole(source, limits: limits)
    }

    /// A long plan in the plain layout (`StepBlocks`), its top-level steps composed and read in runs of
    /// consecutive steps on every core at once; `nil` for any other plan, or when a run does not read alone as it does in
    /// the plan (`parseWhole` then reads it, and reports what is wrong). Reads what `parseWhole` reads
    /// (`LongPlanReadingTests`).
    static func parseInParts(_ source: SourceFile, limits: ParseLimits) -> ParseResult? {
        // A plan shorter than this many bytes cannot hold enough steps to gain from it.
        guard source.text.utf8.count >= 16 * PlanReader.stepsReadInParallel,
            source.text.utf8.count <= limits.maxFileSize, let blocks = StepBlocks.cut(source),
            blocks.blocks.count >= PlanReader.stepsReadInParallel
        else { return nil }
        var reading = StepBlocksRead(blocks: blocks.blocks, kept: [:])
        // On every core, in more runs than cores (`PlanReader.runs`), so a thread that finishes early takes
        // another run.
        reading.threads = max(2, ProcessInfo.processInfo.activeProcessorCount)
        return parse(source, blocks, limits: limits, reading: reading)?.0
    }

    /// Composes `source` whole, then reads it.
    static func parseWhole(_ source: SourceFile, limits: ParseLimits) -> ParseResult {
        let root: YAMLNode
        switch YAMLLoader.composePlan(source, limits: limits) {
        case .failure(var diagnostic):
            diagnostic.file = source.path
            return ParseResult(plan: nil, diagnostics: [diagnostic], source: source)
        case .success(let node?):
            root = node
        case .success(nil):
            var diagnostic = Diagnostic.error(
                .notAPlan, "the document is empty", at: SourceRange(at: .init(line: 1, column: 1)),
                hint: "a plan starts with `reqplan: 1`")
            diagnostic.file = source.path
            return ParseResult(plan: nil, diagnostics: [diagnostic], source: source)
        }
        var reader = PlanReader(source: source, limits: limits)
        let plan = reader.readPlan(root)
        // Past the alias-expansion limit nothing more was read: planning the rest would only cascade.
        return ParseResult(
            plan: reader.budgetExceeded ? nil : plan, diagnostics: reader.diagnostics.diagnostics,
            source: source)
    }

    /// Reads the text of the plan file at `path` under `limits`, without parsing it.
    /// - Parameter origin: who named the file (`FileReader`): the user, or an input within a boundary.
    /// - Returns: the text, or the result of a file that cannot be read (RP0001, RP0004).
    public static func readFile(
        atPath path: String, displayPath: String? = nil, limits: ParseLimits = ParseLimits(),
        origin: FileReader.Origin = .user
    ) -> Result<SourceFile, ParseFailure> {
        let shown = displayPath ?? path
        switch FileReader.text(atPath: path, origin: origin, limit: limits.maxFileSize, what: "plan", shownAs: shown) {
        case .failure(let message):
            var diagnostic = Diagnostic.error(
                message.isTooLarge ? .fileTooLarge : .unreadableFile, message.text, at: nil,
                hint: message.isTooLarge ? limits.tooLargeHint : message.hint)
            diagnostic.file = shown
            return .failure(ParseFailure(result: ParseResult(plan: nil, diagnostics: [diagnostic], source: nil)))
        case .success(let text):
            return .success(SourceFile(path: shown, text: text))
        }
    }

    /// A file that could not be read, as the result of parsing it.
    public struct ParseFailure: Error, Sendable {
        /// No plan, and why.
        public var result: ParseResult
    }
}

// MARK: - The plan

extension PlanReader {
    static let planKeys = [
        "reqplan", "name", "description", "inputs", "defaults", "concurrency", "on_failure", "timeout",
        "redact_headers", "cookies", "vars", "steps", "outputs", "openapi", "slo",
    ]

    mutating func readPlan(_ root: YAMLNode) -> Plan? {
        guard case .mapping = root else {
            diagnostics.error(
                .notAPlan, "a plan must be a mapping of keys such as `reqplan`, `steps`, found \(describe(root))",
                at: range(root), hint: "a plan starts with `reqplan: 1`")
            return nil
        }
        guard let top = mapping(root, "the plan") else { return nil }
        // Top-level keys starting with `x-` are extensions, ignored: a place to keep YAML anchors.
        checkKeys(
            MappingEntries(entries: top.entries.filter { !$0.key.value.hasPrefix("x-") }, range: top.range),
            allowed: PlanReader.planKeys, in: "the plan")

        var version = Located(1, at: SourceRange(at: SourceLocation(line: 1, column: 1)))
        if let node = top.value("reqplan") {
            if let value = integer(node, "`reqplan`", in: Int.min...Int.max) {
                version = value
                if !PlanParser.supportedVersions.contains(value.value) {
                    diagnostics.error(
                        .unsupportedVersion, "unsupported format version `reqplan: \(value.value)`",
                        at: value.range, hint: "this reqplan reads `reqplan: 1`")
                }
            }
        } else {
            diagnostics.error(
                .missingVersion, "missing `reqplan:` format version",
                at: SourceRange(at: top.entries.first?.key.range.start ?? SourceLocation(line: 1, column: 1)),
                hint: "add `reqplan: 1` at the top of the plan")
        }

        let inputs = top.value("inputs").map { readInputs($0) } ?? []
        let defaults = top.value("defaults").map { readDefaults($0) } ?? .none
        let concurrency = top.value("concurrency").flatMap {
            integer($0, "`concurrency`", in: PlanReader.concurrencyRange)
        }
        let onFailure = top.value("on_failure").flatMap { choice($0, "`on_failure`", FailurePolicy.self) }
        let timeout = top.value("timeout").flatMap { duration($0, "`timeout`") }
        let redact = top.value("redact_headers").map { names($0, "`redact_headers`") } ?? []
        for name in redact { _ = checkHeaderName(name) }

        var steps: [Step] = []
        if var blocks = stepBlocks {
            // Cut from the text (`PlanParser.parse(_:limits:cache:)`): the steps are read block by block.
            steps = readStepBlocks(&blocks)
            stepBlocks = blocks
        } else if let node = top.value("steps") {
            steps = readSteps(node, in: "`steps`", key: top.key("steps"))
        } else {
            diagnostics.error(
                .missingKey, "missing required key `steps`",
                at: SourceRange(at: top.entries.first?.key.range.start ?? SourceLocation(line: 1, column: 1)),
                hint: "a plan lists its steps under `steps:`")
        }
        let outputs = top.value("outputs").map { readOutputs($0) } ?? []
        let vars = top.value("vars").map { readVars($0) } ?? []
        for need in invalidNeeds where !invalidStepIDs.contains(need.value) {
            // `group.member`: ids are unique plan-wide, so the member's own id is meant.
            let last = need.value.split(separator: ".").last.map(String.init)
            let hint = last.flatMap { member in
                stepIDs[member] == nil ? nil : "step ids are unique in the whole plan: write `\(member)`"
            }
            diagnostics.error(
                .invalidName, "invalid step id `\(need.value)` in `needs`", at: need.range,
                hint: hint ?? "names start with a letter or `_` and contain letters, digits, `_` and `-`")
        }

        var plan = Plan(
            source: source, version: version,
            name: top.value("name").flatMap { text($0, "`name`") },
            description: top.value("description").flatMap { text($0, "`description`") },
            inputs: inputs, defaults: defaults, concurrency: concurrency, onFailure: onFailure, timeout: timeout,
            redactHeaders: redact, cookies: top.value("cookies").flatMap { bool($0, "`cookies`") }, steps: steps,
            outputs: outputs)
        plan.vars = vars
        plan.apis = top.value("openapi").map { readAPIBindings($0) } ?? []
        plan.slo = top.value("slo").map { readObjectives($0) } ?? []
        if let varsNode = top.value("vars"), case .mapping(let mapping) = varsNode {
            plan.unreadVarNames = Set(mapping.compactMap { $0.key.string }).subtracting(vars.map(\.name.value))
        }
        plan.unreadStepIDs = unreadStepIDs(of: plan)
        plan.hasMalformedExpressions = sawMalformedExpression
        plan.inputsReadWhereNotEvaluated = inputsReadWhereNotEvaluated
        if let inputsNode = top.value("inputs"), case .mapping(let mapping) = inputsNode {
            let declared = mapping.compactMap { $0.key.string }
            plan.unreadInputNames = Set(declared).subtracting(inputs.map(\.name.value))
        }
        return plan
    }

    /// The step ids declared whose step could not be read. Without errors no id is declared twice, so when as
    /// many steps were read at their id's first declaration (`stepIDs`) as ids were declared, there are none:
    /// the common case is told by looking each step up, without a set of every id.
    private func unreadStepIDs(of plan: Plan) -> Set<String> {
        let steps = plan.allSteps
        if !diagnostics.hasErrors {
            var readAtFirstDeclaration = 0
            for step in steps where stepIDs[step.id.value] == step.id.range { readAtFirstDeclaration += 1 }
            if readAtFirstDeclaration == stepIDs.count { return [] }
        }
        return Set(stepIDs.keys).subtracting(steps.map(\.id.value))
    }

    // MARK: Inputs

    static let inputKeys = ["type", "default", "env", "secret", "required", "description"]

    mutating func readInputs(_ node: YAMLNode) -> [InputDeclaration] {
        guard let entries = mapping(node, "`inputs`") else { return [] }
        var result: [InputDeclaration] = []
        for (name, value) in entries.entries {
            guard checkName(name, "input name") else { continue }
            let what = "input `\(name.value)`"
            guard case .mapping = value else {
                // Shorthand: `name: value` gives a default.
                if case .scalar = value, scalarValue(value) == .null {
                    result.append(
                        InputDeclaration(
                            name: name, type: nil, defaultValue: nil, env: nil, secret: false,
                            description: nil, range: name.range))
                    continue
                }
                if let literal = literal(value, "the default of \(what)") {
                    result.append(
                        InputDeclaration(
                            name: name, type: nil, defaultValue: literal, env: nil, secret: false,
                            description: nil, range: name.range))
                }
                continue
            }
            guard let fields = mapping(value, what) else { continue }
            checkKeys(fields, allowed: PlanReader.inputKeys, in: what)
            let type = fields.value("type").flatMap { choice($0, "`type` of \(what)", ValueType.self) }
            let defaultValue = fields.value("default").flatMap { literal($0, "the default of \(what)") }
            if let type, let defaultValue, defaultValue.value != .null, defaultValue.value.type != type.value {
                diagnostics.error(
                    .wrongType,
                    "the default of \(what) is \(defaultValue.value.type.withArticle), but its type is `\(type.value)`",
                    at: defaultValue.range, notes: [.init("the type is declared here", at: type.range)])
            }
            let env = fields.value("env").flatMap { string($0, "`env` of \(what)") }
            if let env,
                env.value.isEmpty
                    || !env.value.unicodeScalars.allSatisfy({
                        ExpressionLexer.isNameStart($0) || ("0"..."9").contains($0)
                    })
                    || env.value.unicodeScalars.first.map({ ("0"..."9").contains($0) }) == true
            {
                diagnostics.error(
                    .invalidName,
                    env.value.isEmpty
                        ? "empty environment variable name in \(what)"
                        : "invalid environment variable name `\(env.value)`",
                    at: env.range,
                    hint: "names contain letters, digits and `_`, and do not start with a digit")
            }
            let secret = fields.value("secret").flatMap { bool($0, "`secret` of \(what)") }?.value ?? false
            let description = fields.value("description").flatMap { text($0, "`description` of \(what)") }?.value
            let required = fields.value("required").flatMap { bool($0, "`required` of \(what)") }
            if let required, required.value, let defaultKey = fields.key("default") {
                diagnostics.error(
                    .conflictingKeys, "\(what) is `required` but has a `default`", at: defaultKey.range,
                    notes: [.init("`required: true` is given here", at: required.range)],
                    hint: "a required input must be given a value when the plan runs; remove `default` or `required`")
            }
            result.append(
                InputDeclaration(
                    name: name, type: type, defaultValue: defaultValue, env: env, secret: secret,
                    description: description, range: name.range, required: required))
        }
        return result
    }

    // MARK: Defaults

    static let defaultsKeys = [
        "base_url", "headers", "query", "timeout", "retry", "expect", "auth", "follow_redirects",
    ]

    mutating func readDefaults(_ node: YAMLNode) -> RequestDefaults {
        guard let fields = mapping(node, "`defaults`") else { return .none }
        checkKeys(fields, allowed: PlanReader.defaultsKeys, in: "`defaults`")
        let baseURL = fields.value("base_url").flatMap { template($0, "`base_url`") }
        hasBaseURL = baseURL != nil
        let headers = fields.value("headers").map { readHeaders($0, "`headers` in `defaults`") } ?? []
        let authKey = fields.key("auth")
        let auth = fields.value("auth").flatMap { node in
            authKey.flatMap { readAuth(node, "`auth` in `defaults`", key: $0) }
        }
        checkAuthConflict(auth: auth, key: authKey, headers: headers, in: "`defaults`")
        return RequestDefaults(
            baseURL: baseURL, headers: headers,
            query: fields.value("query").map { readParameters($0, "`query` in `defaults`") } ?? [],
            timeout: fields.value("timeout").flatMap { duration($0, "`timeout`") },
            retry: fields.value("retry").flatMap { readRetry($0, "`retry` in `defaults`") },
            expect: fields.value("expect").flatMap { readExpect($0, "`expect` in `defaults`") },
            auth: auth,
            followRedirects: fields.value("follow_redirects").flatMap { bool($0, "`follow_redirects` in `defaults`") })
    }

    // MARK: Outputs

    static let outputKeys = ["value", "secret", "description"]

    /// `outputs:`: name → value, or name → `{ value, secret, description }` — a mapping with a `value` key is
    /// that declaration (to output an object that has a `value` key, write `{ value: { value: … } }`).
    mutating func readOutputs(_ node: YAMLNode) -> [Output] {
        guard let entries = mapping(node, "`outputs`") else { return [] }
        var result: [Output] = []
        for (name, value) in entries.entries {
            guard checkName(name, "output name") else { continue }
            let what = "output `\(name.value)`"
            if case .mapping(let raw) = value, raw.keys.contains(where: { $0.string == "value" }),
                let fields = mapping(value, what), let valueNode = fields.value("value")
            {
                for entry in fields.entries where !PlanReader.outputKeys.contains(entry.key.value) {
                    let suggestion = Suggestion.replacement(for: entry.key.value, in: PlanReader.outputKeys)
                    let hint =
                        suggestion?.hint
                        ?? "an output written as a mapping with `value` takes `value`, `secret` and `description`; "
                        + "to output an object with a `value` key, write `value: { … }`"
                    diagnostics.error(
                        .unknownKey, "unknown key `\(entry.key.value)` in \(what)", at: entry.key.range,
                        hint: hint, fix: suggestion?.fix)
                }
                let secret = fields.value("secret").flatMap { bool($0, "`secret` of \(what)") }
                let description = fields.value("description").flatMap { text($0, "`description` of \(what)") }?.value
                if let template = valueTemplate(valueNode, what) {
                    result.append(Output(name: name, value: template, secret: secret, description: description))
                }
                continue
            }
            if let template = valueTemplate(value, what) {
                result.append(Output(name: name, value: template))
            }
        }
        return result
    }

    // MARK: Vars

    /// `vars:`: name → any YAML value whose strings may hold `${{ }}`.
    mutating func readVars(_ node: YAMLNode) -> [Variable] {
        guard let entries = mapping(node, "`vars`") else { return [] }
        var result: [Variable] = []
        for (name, value) in entries.entries {
            guard checkName(name, "var name") else { continue }
            if let template = valueTemplate(value, "var `\(name.value)`") {
                result.append(Variable(name: name, value: template))
            }
        }
        return result
    }
}
