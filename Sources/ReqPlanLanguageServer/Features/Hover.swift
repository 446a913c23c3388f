import ReqPlanSyntax

/// What `textDocument/hover` shows: for a key, its description from the plan schema (the text `reqplan
/// schema` gives editors); for a step id (where the step is defined, in `needs:` or after `steps.`), the
/// step's kind, what it needs and its description.
public struct Hover {
    /// The plan as its text reads now, if it does (step ids need it; keys do not).
    public var plan: Plan?
    /// The schema's keys.
    public var outline: SchemaOutline

    /// Hover over `plan`.
    public init(plan: Plan?, outline: SchemaOutline = .plan) {
        self.plan = plan
        self.outline = outline
    }

    /// The LSP `Hover` for `position` of `text`, or `nil` when there is nothing to say there.
    public func hover(at position: TextPosition, in text: String) -> Value? {
        let lines = CompletionContext.lines(text)
        guard position.line < lines.count else { return nil }
        let line = lines[position.line]
        let before = CompletionContext.prefix(of: line, units: position.character)
        let head = before.reversed().prefix { CompletionContext.isNameCharacter($0) }
        let tail = line[before.endIndex...].prefix { CompletionContext.isNameCharacter($0) }
        let word = String(String.UnicodeScalarView(head.reversed())) + String(String.UnicodeScalarView(tail))
        guard !word.isEmpty else { return nil }
        let startUnits = position.character - head.reduce(0) { $0 + $1.utf16.count }
        let endUnits = position.character + tail.reduce(0) { $0 + $1.utf16.count }
        let range = TextRange(
            start: TextPosition(line: position.line, character: startUnits),
            end: TextPosition(line: position.line, character: endUnits))

        // A step id where steps are named.
        if CompletionContext.at(range.end, in: text)?.0 == .stepID, let markdown = stepText(word) {
            return Self.value(markdown, range)
        }
        // A key at the start of its line: `word:` where the key is.
        guard let layout = CompletionContext.layout(line), layout.key == word,
            startUnits == Self.units(line, columns: layout.keyColumn)
        else { return nil }
        let path =
            CompletionContext.parents(of: position.line, column: layout.dashes.first ?? layout.keyColumn, in: lines)
            + layout.dashes.map { _ in .item }
        if path == [.key("steps")] || path.last == .key("group") || path.last == .key("sequence") {
            if let markdown = stepText(word) { return Self.value(markdown, range) }
        }
        guard let key = outline.keys(at: path).first(where: { $0.name == word }) else { return nil }
        return Self.value("**`\(word)`**" + (key.description.map { "\n\n" + $0 } ?? ""), range)
    }

    /// What a step is, for the hover of its id.
    private func stepText(_ id: String) -> String? {
        guard let step = plan?.allSteps.first(where: { $0.id.value == id }) else { return nil }
        var text = "**`\(id)`**: \(step.kindName) step"
        if !step.needs.isEmpty { text += ", needs " + step.needs.map { "`\($0.value)`" }.joined(separator: ", ") }
        if !step.members.isEmpty {
            text += "; members " + step.members.map { "`\($0.id.value)`" }.joined(separator: ", ")
        }
        if let description = step.description { text += "\n\n" + description }
        return text
    }

    /// The UTF-16 units of the first `columns` scalars of `line`.
    private static func units(_ line: Substring.UnicodeScalarView, columns: Int) -> Int {
        line.prefix(columns).reduce(0) { $0 + $1.utf16.count }
    }

    private static func value(_ markdown: String, _ range: TextRange) -> Value {
        .object([
            .init("contents", .object([.init("kind", .string("markdown")), .init("value", .string(markdown))])),
            .init("range", range.value),
        ])
    }
}
