import ReqPlanSyntax

/// A value of the Arazzo document `ArazzoExporter` writes, in the order it is written: scalars already in
/// their YAML form (`YAMLText`: every string quoted where YAML would read it as something else, control
/// characters and bidi controls escaped), lists and mappings written in block style.
indirect enum ExportNode: Sendable {
    /// A scalar as YAML text.
    case scalar(String)
    /// A sequence.
    case list([ExportNode])
    /// A mapping, its keys in the order given.
    case map([(key: String, value: ExportNode)])

    /// A string.
    static func text(_ text: String) -> ExportNode { .scalar(YAMLText.scalar(text)) }

    /// A plan value (a literal of the plan: an input's default, a payload's field), as the same JSON value.
    static func value(_ value: Value) -> ExportNode {
        switch value {
        case .null: .scalar("null")
        case .bool(let flag): .scalar(flag ? "true" : "false")
        case .int(let number): .scalar(String(number))
        case .largeInt(let digits): .scalar(digits)
        case .double(let number):
            number.isNaN
                ? .scalar(".nan") : number.isInfinite ? .scalar(number < 0 ? "-.inf" : ".inf") : .scalar("\(number)")
        case .string(let text): .text(text)
        case .list(let items): .list(items.map(ExportNode.value))
        case .object(let fields): .map(fields.map { (key: $0.key, value: .value($0.value)) })
        }
    }

    /// The node as a YAML document, in block style.
    /// - Complexity: O(*n*) in the nodes, with an explicit stack: a payload nested 10,000 levels deep is
    ///   written without recursion.
    func yaml() -> String {
        var out = ""
        // A node, the indentation of its lines after the first, and the text before its first line (its
        // indentation and `key: ` or `- `).
        var stack: [(node: ExportNode, indent: Int, prefix: String)] = [(self, 0, "")]
        while let (node, indent, prefix) = stack.popLast() {
            switch node {
            case .scalar(let text): out += prefix + text + "\n"
            case .list(let items) where items.isEmpty: out += prefix + "[]\n"
            case .map(let entries) where entries.isEmpty: out += prefix + "{}\n"
            case .list(let items):
                let pad = String(repeating: " ", count: indent)
                for (position, item) in items.enumerated().reversed() {
                    stack.append((item, indent + 2, (position == 0 ? prefix : pad) + "- "))
                }
            case .map(let entries):
                let pad = String(repeating: " ", count: indent)
                for (position, entry) in entries.enumerated().reversed() {
                    let key = (position == 0 ? prefix : pad) + YAMLText.scalar(entry.key) + ":"
                    if entry.value.isInline {
                        stack.append((entry.value, indent, key + " "))
                    } else {
                        // `key:` on a line of its own, the value below it, indented.
                        stack.append((entry.value, indent + 2, String(repeating: " ", count: indent + 2)))
                        stack.append((.scalar(""), indent, String(key)))
                    }
                }
            }
        }
        return out
    }

    /// Whether it is written on the line of its key: a scalar, an empty list or mapping.
    private var isInline: Bool {
        switch self {
        case .scalar: true
        case .list(let items): items.isEmpty
        case .map(let entries): entries.isEmpty
        }
    }
}
