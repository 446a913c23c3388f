import ReqPlanJSONPath
import ReqPlanSyntax

/// A request body's `replacements` (Arazzo's Payload Replacement Objects): each `value` set at its `target`
/// before the body is checked against the operation's schema and sent. The target is a JSON pointer, or
/// (`targetSelectorType: jsonpath`, 1.1) a JSONPath query that names one place (`$.order.items[0]`). A
/// member that is not there is added to its object, `-` appends to a list (RFC 6901).
///
/// A payload written out (YAML, JSON text, or form text `a=1&b=2`) is changed before the run, and a target
/// whose parent is not in it is an error at the target. A payload that is a runtime expression (another
/// step's output) is known only when the step runs: its replacements are applied then (`set(…)`), and a
/// target not in it fails the step.
extension WorkflowTranslator {
    mutating func replaced(
        _ payload: ValueTemplate, _ replacements: [PayloadReplacement], of step: ArazzoStep
    ) -> ValueTemplate {
        var result = payload
        for replacement in replacements {
            let target = replacement.target
            guard let tokens = pointerTokens(of: replacement) else { continue }
            let value = givenValue(replacement.value, in: .request(step))
            switch result {
            case .object, .list:
                guard let set = Self.setting(value, at: tokens[...], in: result, range: target.range) else {
                    diagnostics.error(
                        .invalidValue, "the payload has no place `\(target.value)`", at: target.range,
                        hint: "a replacement sets a member of an object the payload has, or an item of its lists")
                    continue
                }
                result = set
            case .literal(let literal, let range) where literal.type == .list || literal.type == .object:
                result =
                    Self.setting(value, at: tokens[...], in: Self.template(of: literal, at: range), range: range)
                    ?? result
            case .template(let template) where template.singleExpression != nil:
                // Known only when the step runs: `set(payload, '/pointer', value)`.
                guard let expression = template.singleExpression, let new = singleExpression(value, at: target.range)
                else { continue }
                let range = target.range
                let pointer = "/" + tokens.map { Self.escaped($0) }.joined(separator: "/")
                let call = Expression.call(
                    Located("set", at: range), [expression, .literal(.string(pointer), range), new], range)
                result = .template(Template(parts: [.expression(call)], range: template.range))
            case .literal, .template:
                diagnostics.error(
                    .arazzoUnsupported, "`replacements` in a payload written as text are not supported",
                    at: target.range,
                    hint: "write the payload as YAML or JSON (or form text `a=1&b=2`), or the values into the text "
                        + "itself")
                return result
            }
        }
        return result
    }

    /// A replacement's target as the tokens of a JSON pointer; nil (reported) when it is not one, or a JSONPath
    /// query that may name several places.
    private mutating func pointerTokens(of replacement: PayloadReplacement) -> [String]? {
        let target = replacement.target
        switch replacement.selectorType?.value {
        case "jsonpath"?:
            let query: JSONPath
            do {
                query = try JSONPath.compile(target.value)
            } catch {
                diagnostics.error(
                    .invalidJSONPath, "invalid JSONPath `\(target.value)`: \(error)", at: target.range,
                    hint: "RFC 9535 JSONPath, as in `$.customer.name`")
                return nil
            }
            guard let place = query.singularPlace else {
                diagnostics.error(
                    .arazzoUnsupported, "a replacement target that may select several places is not supported",
                    at: target.range, hint: "name one place, with names and indexes: `$.items[0].id`")
                return nil
            }
            return place.map {
                switch $0 {
                case .index(let index): String(index)
                case .member(let name): name
                case .wildcard: "*"
                }
            }
        case "xpath"?:
            diagnostics.error(
                .arazzoUnsupported, "XPath replacement targets are not supported", at: target.range,
                hint: "reqplan sends XML bodies as the text written")
            return nil
        default:
            do {
                return try JSONPointer.tokens(target.value)
            } catch {
                diagnostics.error(
                    .invalidValue, "`\(target.value)` is not a JSON pointer", at: target.range,
                    hint: target.value.hasPrefix("$")
                        ? "a JSONPath target says so: `targetSelectorType: jsonpath`"
                        : "a pointer starts with `/`: `/customer/id`")
                return nil
            }
        }
    }

    /// A pointer token written back: `~` as `~0`, `/` as `~1`.
    private static func escaped(_ token: String) -> String {
        token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// A literal list or object as the template of its parts, so that a replacement can go inside it.
    private static func template(of value: Value, at range: SourceRange) -> ValueTemplate {
        switch value {
        case .list(let items): .list(items.map { template(of: $0, at: range) }, range)
        case .object(let fields):
            .object(
                fields.map {
                    ValueTemplate.Entry(key: Located($0.key, at: range), value: template(of: $0.value, at: range))
                },
                range)
        default: .literal(value, range)
        }
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
            guard let index = JSONPointer.index(first), items.indices.contains(index),
                let changed = setting(value, at: rest, in: items[index], range: range)
            else { return nil }
            items[index] = changed
            return .list(items, listRange)
        case .literal(let literal, let literalRange) where literal.type == .list || literal.type == .object:
            return setting(value, at: tokens, in: template(of: literal, at: literalRange), range: range)
        case .literal, .template:
            return nil
        }
    }
}
