import ReqPlanSyntax

/// Where a plan's steps are: the definition of the step id under the cursor (`textDocument/definition`), and
/// the steps as a tree of groups and their members (`textDocument/documentSymbol`).
public struct StepNavigation {
    /// The plan, as its text reads now.
    public let plan: Plan

    /// Navigation over `plan`.
    public init(plan: Plan) {
        self.plan = plan
    }

    /// The range of the id of the step named at `position` of the plan's text: in `needs:` or after `steps.`
    /// in an expression; `nil` elsewhere, or for an id no step has.
    public func definition(at position: TextPosition) -> TextRange? {
        let text = plan.source.text
        let lines = CompletionContext.lines(text)
        guard position.line < lines.count else { return nil }
        // The end of the word under the cursor: completion's reading of what comes before it says what the
        // word is.
        let line = lines[position.line]
        let before = CompletionContext.prefix(of: line, units: position.character)
        let after = line[before.endIndex...].prefix { CompletionContext.isNameCharacter($0) }
        let word =
            String(
                String.UnicodeScalarView(before.reversed().prefix { CompletionContext.isNameCharacter($0) }.reversed()))
            + String(String.UnicodeScalarView(after))
        guard !word.isEmpty else { return nil }
        let end = TextPosition(
            line: position.line, character: position.character + after.reduce(0) { $0 + $1.utf16.count })
        guard CompletionContext.at(end, in: text)?.0 == .stepID,
            let step = plan.allSteps.first(where: { $0.id.value == word })
        else { return nil }
        return TextRange(step.id.range, in: plan.source)
    }

    /// The steps as LSP `DocumentSymbol`s: each a symbol at its id, its members (of a group, a sequence or a
    /// for_each over a group) nested under it.
    public func symbols() -> [Value] {
        plan.steps.map(symbol)
    }

    private func symbol(_ step: Step) -> Value {
        let range = TextRange(step.id.range, in: plan.source).value
        var fields: [Value.Field] = [
            .init("name", .string(step.id.value)),
            .init("detail", .string(step.kindName)),
            // Function for a request, Module for what holds steps, File for a sub-plan.
            .init("kind", .int(step.kindName == "plan" ? 1 : step.isCollection ? 2 : 12)),
            .init("range", range),
            .init("selectionRange", range),
        ]
        let members = step.members
        if !members.isEmpty { fields.append(.init("children", .list(members.map(symbol)))) }
        return .object(fields)
    }
}
