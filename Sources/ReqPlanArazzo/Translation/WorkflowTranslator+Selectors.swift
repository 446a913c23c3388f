import ReqPlanSyntax
import ReqPlanXPath

/// Selector objects (Arazzo 1.1): a value picked out of structured data by a JSON pointer, a JSONPath query
/// or an XPath expression, wherever a value may be written (outputs, parameters, payloads, replacements).
extension WorkflowTranslator {
    /// Whether `node` is a selector object: a mapping of `context`, `selector` and `type`.
    static func isSelector(_ node: YAMLNode) -> Bool {
        guard case .mapping(let mapping) = node else { return false }
        let keys = Set(mapping.entries.compactMap(\.key.string))
        return keys == ["context", "selector", "type"]
    }

    /// The expression a selector object reads, in `place`: for `jsonpointer` the value at the pointer (typed
    /// as a path is), for `jsonpath` the first node the query selects (null when none), for `xpath` the
    /// text of the first node the expression selects (its value as text when it is not a node-set); `nil`
    /// (reported) when it reads nothing there.
    mutating func selector(_ node: YAMLNode, in place: ExpressionPlace) -> Expression? {
        guard let contextNode = node.value("context"), let selectorNode = node.value("selector"),
            let typeNode = node.value("type")
        else { return nil }
        let range = source.range(of: selectorNode)
        guard let contextText = contextNode.string, let text = selectorNode.string else {
            diagnostics.error(
                .invalidValue, "a selector's `context` and `selector` are strings", at: source.range(of: node),
                hint: "`context: $response.body`, `selector: $.items[0].id`, `type: jsonpath`")
            return nil
        }
        let typeName = typeNode.string ?? typeNode.value("type")?.string
        guard let context = expression(contextText, at: source.range(of: contextNode), in: place) else { return nil }
        let selector = Expression.literal(.string(text), range)
        switch typeName {
        case "jsonpointer":
            let tokens: [String]
            do {
                tokens = try RuntimeExpression.pointer(text, offset: 0)
            } catch {
                diagnostics.error(
                    .invalidRuntimeExpression, "invalid JSON pointer `\(text)`: \(error.message)", at: range,
                    hint: "a JSON pointer is `/name/0/name`")
                return nil
            }
            return tokens.reduce(context) { .access($0, Located(Self.component($1), at: range), range) }
        case "jsonpath":
            return .access(
                .call(Located("jsonpath", at: range), [context, selector], range), Located(.index(0), at: range),
                range)
        case "xpath":
            guard compiles(xpath: Located(text, at: range)) else { return nil }
            return .call(
                Located("xpath", at: range), [context, .literal(.string("string(\(text))"), range)], range)
        default:
            diagnostics.error(
                .invalidValue, "unknown selector type `\(typeName ?? "")`", at: source.range(of: typeNode),
                hint: "`jsonpointer`, `jsonpath` or `xpath`")
            return nil
        }
    }

    /// Whether an XPath expression as written compiles; reported (RP0116) in the text the document has when
    /// not, before reqplan wraps it in a call of its own.
    mutating func compiles(xpath: Located<String>) -> Bool {
        do {
            _ = try XPath.compile(xpath.value)
            return true
        } catch {
            diagnostics.error(
                .invalidXPath, "invalid XPath `\(xpath.value)`: \(error)", at: xpath.range,
                hint: "XPath 1.0, as in `count(/pets/pet) > 0` or `/order[status = 'placed']`")
            return false
        }
    }
}
