import ReqPlanSyntax
import Yams

/// A request body's `replacements` (Arazzo's Payload Replacement Objects): each `value` set at its
/// `target`, a JSON pointer into the payload, before the body is checked against the operation's schema
/// and sent. A member that is not there is added to its object, `-` appends to a list (RFC 6901); a target
/// whose parent is not in the payload is an error at the target. XPath targets, into a payload written as
/// text, are refused.
extension WorkflowTranslator {
    mutating func replaced(
        _ payload: ValueTemplate, _ replacements: [(target: Located<String>, value: Node)], of step: ArazzoStep
    ) -> ValueTemplate {
        var result = payload
        for replacement in replacements {
            let target = replacement.target
            switch result {
            case .object, .list:
                break
            case .literal, .template:
                diagnostics.error(
                    .arazzoUnsupported, "`replacements` in a payload written as text are not supported yet",
                    at: target.range, hint: "write the payload as YAML or JSON, or the values into the text itself")
                return result
            }
            guard let tokens = try? RuntimeExpression.pointer(target.value, offset: 0) else {
                diagnostics.error(
                    .invalidValue, "`\(target.value)` is not a JSON pointer", at: target.range,
                    hint: "a pointer starts with `/`: `/customer/id`")
                continue
            }
            let value = givenValue(replacement.value, in: .request(step))
            guard let set = Self.setting(value, at: tokens[...], in: result, range: target.range) else {
                diagnostics.error(
                    .invalidValue, "the payload has no place `\(target.value)`", at: target.range,
                    hint: "a replacement sets a member of an object the payload has, or an item of its lists")
                continue
            }
            result = set
        }
        return result
    }

    /// `node` with `value` at `tokens`; nil when the place's parent is not in it.
    private static func setting(
        _ value: ValueTemplate, at tokens: ArraySlice<String>, in node: ValueTemplate, range: SourceRange
    ) -> ValueTemplate? {
        guard let first = tokens.first else { return value }
        let rest = tokens.dropFirst()
        switch node {
        case .object(var entries, let objectRange):
            if let index = entries.firstIndex(where: { $0.key.value == first }) {
                guard let changed = setting(value, at: rest, in: entries[index].value, range: range) else { return nil }
                entries[index].value = changed
            } else {
                guard rest.isEmpty else { return nil }
                entries.append(ValueTemplate.Entry(key: Located(first, at: range), value: value))
            }
            return .object(entries, objectRange)
        case .list(var items, let listRange):
            if first == "-", rest.isEmpty {
                items.append(value)
                return .list(items, listRange)
            }
            guard let index = Int(first), items.indices.contains(index),
                let changed = setting(value, at: rest, in: items[index], range: range)
            else { return nil }
            items[index] = changed
            return .list(items, listRange)
        case .literal, .template:
            return nil
        }
    }
}
