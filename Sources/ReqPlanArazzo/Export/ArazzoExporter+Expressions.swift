import ReqPlanSyntax

extension ArazzoExporter {
    /// A plan value as a value of the document: literals as they are, each `${{ }}` as the runtime expression
    /// it reads (`$inputs.id`, `$steps.create.outputs.id`), text around expressions with them embedded
    /// (`Bearer {$inputs.token}`); `nil` (and a diagnostic) for what runtime expressions cannot say.
    mutating func value(_ value: ValueTemplate) -> ExportNode? {
        switch value {
        case .literal(let literal, let range):
            guard literalIsText(literal, at: range) else { return nil }
            return .value(literal)
        case .template(let template):
            return templateNode(template)
        case .list(let items, _):
            // Every item is looked at, so that each one refused is reported.
            let nodes = items.map { self.value($0) }
            return nodes.contains { $0 == nil } ? nil : .list(nodes.compactMap { $0 })
        case .object(let entries, _):
            let nodes = entries.map { self.value($0.value) }
            guard !nodes.contains(where: { $0 == nil }) else { return nil }
            return .map(zip(entries, nodes).compactMap { entry, node in node.map { (entry.key.value, $0) } })
        }
    }

    /// A template as a value: one expression is that expression, text with expressions the text with each
    /// embedded as `{$…}`.
    mutating func templateNode(_ template: Template) -> ExportNode? {
        if let expression = template.singleExpression {
            if case .literal(let literal, let range) = expression {
                return literalIsText(literal, at: range) ? .value(literal) : nil
            }
            return runtime(expression).map(ExportNode.text)
        }
        var text = ""
        for part in template.parts {
            switch part {
            case .text(let piece), .expression(.literal(.string(let piece), _)):
                // A literal in `${{ }}` (`${{ '${{' }}`, the plan's way to write `${{`) is text.
                guard literalIsText(.string(piece), at: template.range) else { return nil }
                text += piece
            case .expression(let expression):
                guard let runtime = runtime(expression) else { return nil }
                text += "{\(runtime)}"
            }
        }
        return .text(text)
    }

    /// Whether a literal reads back as itself in Arazzo: a string that starts with `$` and a letter is a
    /// runtime expression there, and `{$` in one starts an embedded one; reported when it is not.
    private mutating func literalIsText(_ literal: Value, at range: SourceRange) -> Bool {
        var stack = [literal]
        while let value = stack.popLast() {
            switch value {
            case .string(let text):
                let scalars = Array(text.unicodeScalars.prefix(2))
                let startsExpression = scalars.count == 2 && scalars[0] == "$" && scalars[1].properties.isAlphabetic
                if startsExpression || text.contains("{$") {
                    diagnostics.error(
                        .exportExpressionNoArazzoForm,
                        "the text \(YAMLText.quoted(text)) would be read as a runtime expression in Arazzo, which has no way to write it as text",
                        at: range)
                    return false
                }
            case .list(let items): stack.append(contentsOf: items)
            case .object(let fields): stack.append(contentsOf: fields.map(\.value))
            case .null, .bool, .int, .largeInt, .double: break
            }
        }
        return true
    }

    /// A plan expression as an Arazzo runtime expression: `inputs.NAME` is `$inputs.NAME`, and what a step
    /// reads of another (`steps.X.body.a[0]`, `steps.X.status`, `steps.X.headers.NAME`) is an output of
    /// step X (`a: $response.body#/a/0`) read as `$steps.X.outputs.a`. Anything else (operators, calls,
    /// `vars`, `env`, other result fields, wildcards) is refused.
    mutating func runtime(_ expression: Expression) -> String? {
        guard let reference = expression.reference else {
            refuseExpression(
                expression, because: "Arazzo's runtime expressions read a value; they have no operators or functions")
            return nil
        }
        let names = reference.components.map(\.value)
        switch reference.root.value {
        case "inputs":
            guard let members = Self.members(names), let name = members.first else { break }
            inputsRead.insert(name)
            return "$inputs." + members.joined(separator: ".")
        case "steps":
            guard names.count >= 2, case .member(let step) = names[0], case .member(let field) = names[1] else { break }
            let rest = Array(names.dropFirst(2))
            let output: (name: String, value: String)?
            switch field {
            case "body":
                output = Self.pointer(rest).map { pointer in
                    (Self.outputName(rest), "$response.body" + (pointer.isEmpty ? "" : "#" + pointer))
                }
            case "status" where rest.isEmpty: output = ("status", "$statusCode")
            case "headers":
                if rest.count == 1, case .member(let header) = rest[0] {
                    output = (Self.outputName([.member(header)]), "$response.header." + header)
                } else {
                    output = nil
                }
            default: output = nil
            }
            guard let output else { break }
            return "$steps.\(step).outputs." + addOutput(output, to: step)
        default:
            break
        }
        refuseExpression(
            expression,
            because:
                "Arazzo's runtime expressions read inputs and what a step received (its status, headers and a place in its body); not `\(reference.root.value)` nor this path"
        )
        return nil
    }

    private mutating func refuseExpression(_ expression: Expression, because reason: String) {
        diagnostics.error(
            .exportExpressionNoArazzoForm, "`${{ \(expression) }}` has no Arazzo runtime expression: \(reason)",
            at: expression.range)
    }

    /// Names of an input's path, when all are names.
    private static func members(_ components: [PathComponent]) -> [String]? {
        var names: [String] = []
        for component in components {
            guard case .member(let name) = component else { return nil }
            names.append(name)
        }
        return names
    }

    /// A body path as a JSON pointer (RFC 6901); `nil` for a wildcard.
    static func pointer(_ components: [PathComponent]) -> String? {
        var pointer = ""
        for component in components {
            switch component {
            case .member(let name):
                pointer +=
                    "/" + name.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
            case .index(let index) where index >= 0: pointer += "/\(index)"
            case .index, .wildcard: return nil
            }
        }
        return pointer
    }

    /// An output's name from the path it reads: its last name (`[0].id` → `id`, `items[0]` → `items`), in
    /// the characters Arazzo's names take; `body` for the whole body.
    private static func outputName(_ components: [PathComponent]) -> String {
        let last = components.last { if case .member = $0 { true } else { false } }
        guard case .member(let joined)? = last else { return "body" }
        let kept = String(joined.unicodeScalars.map { isIDCharacter($0) || $0 == "." ? Character($0) : "_" })
        return kept.isEmpty ? "value" : kept
    }

    /// Adds an output to `step` (or finds the one that reads the same), and returns its name: a name another
    /// output of the step has already is made unique with `_2`, `_3`.
    private mutating func addOutput(_ output: (name: String, value: String), to step: String) -> String {
        var outputs = stepOutputs[step, default: []]
        if let same = outputs.first(where: { $0.value == output.value }) { return same.name }
        var name = output.name
        var suffix = 2
        // Another place of the body with the same last name: the output is named by its whole pointer.
        if outputs.contains(where: { $0.name == name }), output.value.hasPrefix("$response.body#/") {
            let pointer = output.value.dropFirst("$response.body#/".count)
            name = String(pointer.unicodeScalars.map { Self.isIDCharacter($0) ? Character($0) : "_" })
        }
        let base = name
        while outputs.contains(where: { $0.name == name }) {
            name = "\(base)_\(suffix)"
            suffix += 1
        }
        outputs.append((name, output.value))
        stepOutputs[step] = outputs
        return name
    }
}
