/// A mapping's entries with their keys located, as the plan reader sees them.
struct MappingEntries {
    var entries: [(key: Located<String>, value: YAMLNode)]
    /// Where the mapping starts.
    var range: SourceRange

    // These run several times for every step: they look entries up by index so that no entry (a key's
    // text and range, and a node) is copied only to be compared.

    func value(_ key: String) -> YAMLNode? {
        index(of: key).map { entries[$0].value }
    }

    func key(_ key: String) -> Located<String>? {
        index(of: key).map { entries[$0].key }
    }

    func has(_ key: String) -> Bool {
        index(of: key) != nil
    }

    private func index(of key: String) -> Int? {
        let length = key.utf8.count
        for index in entries.indices {
            let name = entries[index].key.value
            if name.utf8.count == length && name == key { return index }
        }
        return nil
    }
}

/// Reads the plan's node tree (`YAMLNode`) into the AST, collecting every problem it finds.
///
/// The reader never stops at the first error: a bad value is reported and
/// skipped, and reading goes on, so `validate` lists all problems in one pass.
struct PlanReader {
    let source: SourceFile
    let templates: TemplateParser
    var diagnostics: DiagnosticCollector
    /// What may still be read: nodes (aliases expanded) and depth.
    private var budget: NodeBudget
    /// Whether the alias-expansion limit was reached (nothing more is read).
    var budgetExceeded: Bool { budget.exceeded }
    /// Whether a value nested deeper than the limit was met (reported once).
    private(set) var depthExceeded = false
    /// Whether RP0005 was reported.
    private(set) var reportedExpansion = false
    /// How many steps (groups, sequences, for_each bodies) enclose the steps being read.
    var stepDepth = 0
    /// Step ids declared, including those whose step could not be read.
    var stepIDs: [String: SourceRange] = [:]
    /// Step ids that are not valid names (reported where they are declared).
    var invalidStepIDs: Set<String> = []
    /// `needs` entries that are not valid names, reported at the end of the plan.
    var invalidNeeds: [Located<String>] = []
    /// Whether `defaults.base_url` is set, so relative URLs can be checked.
    var hasBaseURL = false
    /// Whether some `${{ }}` did not parse (so what it reads is unknown).
    var sawMalformedExpression = false
    /// Inputs read by a `${{ }}` where none is evaluated (an input's default, RP0210).
    var inputsReadWhereNotEvaluated: Set<String> = []
    /// The step ids this reader declared, in order, when it reads a part of the steps for another reader
    /// (`readStepsInParallel`); `nil` otherwise.
    var declaredStepIDs: [Located<String>]?
    /// The top-level steps cut from the text, to read block by block instead of the `steps:` node
    /// (`PlanParser.parse(_:limits:cache:)`); `nil`: read from the node.
    var stepBlocks: StepBlocksRead?
    /// How many lines of `source` come before the text the nodes being read were composed from: a run of
    /// steps is composed from its own text (`readAlone`), and its nodes' lines count from its first.
    var lineOffset = 0

    init(source: SourceFile, limits: ParseLimits) {
        self.source = source
        self.templates = TemplateParser(source: source)
        self.diagnostics = DiagnosticCollector(file: source.path)
        self.budget = NodeBudget(limits: limits)
    }

    // MARK: Locations

    func location(_ node: YAMLNode) -> SourceLocation { source.location(of: node, lineOffset: lineOffset) }

    /// The range of a node's first token (the whole scalar for scalars).
    func range(_ node: YAMLNode) -> SourceRange { source.range(of: node, lineOffset: lineOffset) }

    // MARK: Budget

    /// Charges one visited node against the alias-expansion budget.
    /// - Returns: `false` once the budget is spent (the error is reported once).
    mutating func charge(_ node: YAMLNode) -> Bool {
        if budget.charge() { return true }
        if budget.exceeded && !reportedExpansion {
            reportedExpansion = true
            diagnostics.emit(budget.expansionDiagnostic("the plan", at: range(node)))
        }
        return false
    }

    /// Charges to this reader `nodes` a fork of it read (`join`), which reported RP0005 itself if `reported`;
    /// reports RP0005 at `range` if together they read more than the budget. Past the budget, nothing more is
    /// read and the plan is dropped (`PlanParser.parse`), so where the error is reported (a fork's node, or
    /// the steps) is all that differs from reading in one go.
    mutating func joinBudget(nodes: Int, reported: Bool, depthExceeded forkDepthExceeded: Bool, at range: SourceRange) {
        let counted = charge(nodesReadBy: nodes)
        if reported {
            reportedExpansion = true
        } else if !counted && !reportedExpansion {
            reportedExpansion = true
            diagnostics.emit(budget.expansionDiagnostic("the plan", at: range))
        }
        depthExceeded = depthExceeded || forkDepthExceeded
    }

    /// The nodes this reader charged since it was `start`.
    func budgetSpent(since start: PlanReader) -> Int { budget.spent(since: start.budget) }

    private mutating func charge(nodesReadBy count: Int) -> Bool { budget.charge(nodes: count) }

    /// The limits the plan is read under.
    var limits: ParseLimits { budget.limits }

    // MARK: Types

    /// How a node reads in messages: "a mapping", "a list", "a string", "a number".
    func describe(_ node: YAMLNode) -> String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar:
            switch scalarValue(node) {
            case .string: return "a string"
            case .null: return "null"
            case .bool: return "a boolean"
            case .int, .largeInt, .double: return "a number"
            default: return "a value"
            }
        }
    }

    /// A scalar's value by the YAML 1.2 core schema; quoted and block scalars are strings.
    func scalarValue(_ node: YAMLNode) -> Value? { node.coreSchemaValue }

    // MARK: Primitive readers

    /// The entries of a mapping, with `<<` merge keys applied; reports a wrong type.
    mutating func mapping(_ node: YAMLNode, _ what: String) -> MappingEntries? {
        guard charge(node) else { return nil }
        guard case .mapping(let mapping) = node else {
            if case .scalar = node, scalarValue(node) == .null {
                return MappingEntries(entries: [], range: range(node))
            }
            diagnostics.error(.wrongType, "\(what) must be a mapping, found \(describe(node))", at: range(node))
            return nil
        }
        var entries: [(key: Located<String>, value: YAMLNode)] = []
        entries.reserveCapacity(mapping.count)
        var merged: [(key: Located<String>, value: YAMLNode)] = []
        for (key, value) in mapping {
            guard case .scalar(let scalar) = key else {
                diagnostics.error(
                    .unsupportedYAML, "keys in \(what) must be plain names, found \(describe(key))",
                    at: range(key))
                continue
            }
            if scalar.string == "<<" && (scalar.style == .plain || scalar.style == .any) {
                merged += mergeEntries(value, what)
                if budgetExceeded { return nil }
                continue
            }
            entries.append((Located(scalar.string, at: range(key)), value))
        }
        if merged.isEmpty { return MappingEntries(entries: entries, range: SourceRange(at: location(node))) }
        // Merged keys come first and lose to keys written in the mapping itself.
        let own = Set(entries.map(\.key.value))
        var seen: Set<String> = []
        let fromMerge = merged.filter { !own.contains($0.key.value) && seen.insert($0.key.value).inserted }
        return MappingEntries(entries: fromMerge + entries, range: SourceRange(at: location(node)))
    }

    private mutating func mergeEntries(_ node: YAMLNode, _ what: String) -> [(key: Located<String>, value: YAMLNode)] {
        switch node {
        case .mapping:
            let entries = mapping(node, "a `<<` merge")?.entries ?? []
            // Entries copied by a merge cost like nodes, so merges of merges cannot run away.
            for _ in entries {
                guard charge(node) else { return [] }
            }
            return entries
        case .sequence(let sequence):
            // Earlier mappings in the list win over later ones.
            var result: [(key: Located<String>, value: YAMLNode)] = []
            var seen: Set<String> = []
            for item in sequence {
                for entry in mergeEntries(item, what) where seen.insert(entry.key.value).inserted {
                    result.append(entry)
                }
            }
            return result
        default:
            diagnostics.error(
                .wrongType,
                "a `<<` merge key in \(what) takes a mapping or a list of mappings, found \(describe(node))",
                at: range(node))
            return []
        }
    }

    /// Reports every key of `entries` not in `allowed`, with a "did you mean" hint.
    mutating func checkKeys(_ entries: MappingEntries, allowed: [String], in what: String) {
        for entry in entries.entries where !allowed.contains(entry.key.value) {
            reportUnknownKey(entry.key, allowed: allowed, in: what)
        }
    }

    mutating func reportUnknownKey(_ key: Located<String>, allowed: [String], in what: String) {
        let suggestion = Suggestion.replacement(for: key.value, in: allowed)
        let hint = suggestion?.hint ?? "allowed keys: " + allowed.map { "`\($0)`" }.joined(separator: ", ")
        diagnostics.error(
            .unknownKey, "unknown key `\(key.value)` in \(what)", at: key.range, hint: hint, fix: suggestion?.fix)
    }

    /// The elements of a list; reports a wrong type.
    mutating func sequence(_ node: YAMLNode, _ what: String) -> [YAMLNode]? {
        guard charge(node) else { return nil }
        guard case .sequence(let sequence) = node else {
            diagnostics.error(.wrongType, "\(what) must be a list, found \(describe(node))", at: range(node))
            return nil
        }
        return sequence.nodes
    }

    /// A string scalar (numbers and booleans are not accepted as strings).
    mutating func string(_ node: YAMLNode, _ what: String) -> Located<String>? {
        guard charge(node) else { return nil }
        guard case .string(let text) = scalarValue(node) else {
            diagnostics.error(.wrongType, "\(what) must be a string, found \(describe(node))", at: range(node))
            return nil
        }
        return Located(text, at: range(node))
    }

    /// A scalar as text: strings, numbers and booleans (as written).
    mutating func text(_ node: YAMLNode, _ what: String) -> Located<String>? {
        guard charge(node) else { return nil }
        guard case .scalar(let scalar) = node, scalarValue(node) != .null else {
            diagnostics.error(.wrongType, "\(what) must be a string, found \(describe(node))", at: range(node))
            return nil
        }
        return Located(scalar.string, at: range(node))
    }

    mutating func bool(_ node: YAMLNode, _ what: String) -> Located<Bool>? {
        guard charge(node) else { return nil }
        guard case .bool(let value) = scalarValue(node) else {
            var hint: String?
            if case .string(let text) = scalarValue(node),
                ["yes", "no", "on", "off", "y", "n"].contains(text.lowercased())
            {
                hint = "write `true` or `false`"
            }
            diagnostics.error(
                .wrongType, "\(what) must be `true` or `false`, found \(describe(node))", at: range(node),
                hint: hint)
            return nil
        }
        return Located(value, at: range(node))
    }

    mutating func integer(_ node: YAMLNode, _ what: String, in bounds: ClosedRange<Int>) -> Located<Int>? {
        guard charge(node) else { return nil }
        let read = scalarValue(node)
        if case .largeInt(let digits) = read {
            diagnostics.error(
                .invalidValue, "\(what) must be between \(bounds.lowerBound) and \(bounds.upperBound), found \(digits)",
                at: range(node))
            return nil
        }
        guard case .int(let value) = read else {
            diagnostics.error(.wrongType, "\(what) must be a whole number, found \(describe(node))", at: range(node))
            return nil
        }
        guard bounds.contains(value) else {
            diagnostics.error(
                .invalidValue, "\(what) must be between \(bounds.lowerBound) and \(bounds.upperBound), found \(value)",
                at: range(node))
            return nil
        }
        return Located(value, at: range(node))
    }

    mutating func duration(_ node: YAMLNode, _ what: String) -> Located<PlanDuration>? {
        guard charge(node) else { return nil }
        let text: String
        switch scalarValue(node) {
        case .string(let value): text = value
        case .int(let value):
            diagnostics.error(
                .invalidDuration, "duration `\(value)` for \(what) has no unit", at: range(node),
                hint: "write `\(value)s` or `\(value)ms`")
            return nil
        default:
            diagnostics.error(
                .invalidDuration, "\(what) must be a duration such as `250ms`, `5s` or `2m`, found \(describe(node))",
                at: range(node))
            return nil
        }
        guard let duration = parsedDuration(text, what, at: range(node)) else { return nil }
        if duration.milliseconds == 0 {
            diagnostics.error(.invalidDuration, "\(what) must be longer than zero", at: range(node))
            return nil
        }
        return Located(duration, at: range(node))
    }

    /// `text` read as a duration (§9.1 of grammar.md), zero included; RP0108 at `range` when it is not one.
    mutating func parsedDuration(_ text: String, _ what: String, at range: SourceRange) -> PlanDuration? {
        do {
            return try PlanDuration.parse(text)
        } catch {
            let hint: String
            switch error {
            case .unknownUnit(let unit): hint = "unknown unit `\(unit)`; units are `ms`, `s`, `m` and `h`"
            case .missingUnit: hint = "add a unit: `ms`, `s`, `m` or `h`"
            case .tooLong: hint = "durations are at most 7 days"
            case .empty, .malformed:
                hint = "write a whole number and a unit with no space between, such as `250ms`, `5s`, `2m` or `1m30s`"
            }
            diagnostics.error(.invalidDuration, "invalid duration `\(text)` for \(what)", at: range, hint: hint)
            return nil
        }
    }

    /// One of a fixed set of words.
    mutating func choice<T: RawRepresentable>(_ node: YAMLNode, _ what: String, _ type: T.Type) -> Located<T>?
    where T: CaseIterable, T.RawValue == String {
        guard let text = self.text(node, what) else { return nil }
        if let value = T(rawValue: text.value) { return Located(value, at: text.range) }
        let options = T.allCases.map(\.rawValue)
        let suggestion = Suggestion.replacement(for: text.value, in: options)
        let hint = suggestion?.hint ?? "expected one of " + options.map { "`\($0)`" }.joined(separator: ", ")
        diagnostics.error(
            .invalidValue, "invalid value `\(text.value)` for \(what)", at: text.range, hint: hint,
            fix: suggestion?.fix)
        return nil
    }

    /// A step, input or item name matching `[A-Za-z_][A-Za-z0-9_-]*`.
    mutating func checkName(_ name: Located<String>, _ what: String) -> Bool {
        if PlanReader.isValidName(name.value) { return true }
        diagnostics.error(
            .invalidName, "invalid \(what) `\(name.value)`", at: name.range,
            hint: "names start with a letter or `_` and contain letters, digits, `_` and `-`")
        return false
    }

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ExpressionLexer.isNameStart(first) else { return false }
        return name.unicodeScalars.allSatisfy(ExpressionLexer.isNameContinue)
    }

    // MARK: Templates

    /// A scalar as a template (numbers and booleans become their text).
    mutating func template(_ node: YAMLNode, _ what: String) -> Template? {
        guard let text = text(node, what) else { return nil }
        return parseTemplate(text.value, at: text.range)
    }

    mutating func parseTemplate(_ text: String, at range: SourceRange) -> Template? {
        switch templates.template(text, at: range) {
        case .success(let template): return template
        case .failure(let diagnostic):
            // Keep the text so the step survives and later stages do not cascade errors.
            diagnostics.emit(diagnostic)
            sawMalformedExpression = true
            return Template(parts: [.text(text)], range: range)
        }
    }

    /// Any YAML value, with templates in its strings.
    mutating func valueTemplate(_ node: YAMLNode, _ what: String, depth: Int = 0) -> ValueTemplate? {
        guard charge(node) else { return nil }
        if depth >= limits.maxDepth, node.isCollection {
            if !depthExceeded { diagnostics.emit(budget.depthDiagnostic(what, at: range(node))) }
            depthExceeded = true
            return nil
        }
        switch node {
        case .scalar:
            let value = scalarValue(node) ?? .null
            if case .string(let text) = value, Template.opensExpression(text) {
                return parseTemplate(text, at: range(node)).map(ValueTemplate.template)
            }
            return .literal(value, range(node))
        case .sequence(let sequence):
            var items: [ValueTemplate] = []
            for item in sequence {
                guard let value = valueTemplate(item, what, depth: depth + 1) else {
                    if budgetExceeded { return nil }
                    continue
                }
                items.append(value)
            }
            return .list(items, SourceRange(at: location(node)))
        case .mapping:
            guard let entries = mapping(node, what) else { return nil }
            var result: [ValueTemplate.Entry] = []
            for entry in entries.entries {
                if Template.opensExpression(entry.key.value) {
                    diagnostics.error(
                        .invalidExpression, "expressions are not evaluated in keys", at: entry.key.range,
                        hint: "only values may hold `${{ }}`")
                    continue
                }
                guard let value = valueTemplate(entry.value, what, depth: depth + 1) else {
                    if budgetExceeded { return nil }
                    continue
                }
                result.append(.init(key: entry.key, value: value))
            }
            return .object(result, SourceRange(at: location(node)))
        }
    }

    /// A YAML value with no expressions (input defaults).
    mutating func literal(_ node: YAMLNode, _ what: String) -> Located<Value>? {
        guard let template = valueTemplate(node, what) else { return nil }
        guard let value = template.literalValue else {
            let first = template.expressions.first?.range ?? template.range
            diagnostics.error(
                .invalidExpression, "\(what) is a literal value; `${{ }}` is not evaluated here",
                at: first, hint: "give the value itself, or give the input its value when the plan runs")
            // The input it meant to read is not unused (RP0901 would contradict this error).
            for expression in template.expressions {
                expression.forEachNode { node in
                    if let reference = node.reference, reference.root.value == "inputs",
                        case .member(let name)? = reference.components.first?.value
                    {
                        inputsReadWhereNotEvaluated.insert(name)
                    }
                }
            }
            return nil
        }
        return Located(value, at: template.range)
    }

    /// A condition: `true`, `false`, a bare expression or one `${{ }}`.
    mutating func condition(_ node: YAMLNode, _ what: String) -> Expression? {
        guard charge(node) else { return nil }
        switch scalarValue(node) {
        case .bool(let value):
            return .literal(.bool(value), range(node))
        case .string(let text):
            switch templates.condition(text, at: range(node)) {
            case .success(let expression): return expression
            case .failure(let diagnostic):
                diagnostics.emit(diagnostic)
                sawMalformedExpression = true
                return nil
            }
        default:
            diagnostics.error(
                .wrongType, "\(what) must be an expression or a boolean, found \(describe(node))",
                at: range(node))
            return nil
        }
    }

    /// One name or a list of names (`needs: a` or `needs: [a, b]`).
    mutating func names(_ node: YAMLNode, _ what: String) -> [Located<String>] {
        if case .sequence = node {
            return (sequence(node, what) ?? []).compactMap { string($0, "each entry of \(what)") }
        }
        guard case .string = scalarValue(node) else {
            guard charge(node) else { return [] }
            diagnostics.error(
                .wrongType, "\(what) must be a name or a list of names, found \(describe(node))",
                at: range(node), hint: "write `[a, b]` or a single name")
            return []
        }
        return string(node, what).map { [$0] } ?? []
    }
}
