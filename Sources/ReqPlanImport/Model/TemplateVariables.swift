/// The `{{name}}` variables of a collection (Postman's `{{name}}`, Insomnia's `{{ _.name }}`) as references:
/// a variable a script or a capture set from an earlier response reads that step, any other is one input,
/// its known value the default unless it is a secret.
struct TemplateVariables {
    /// A variable's value and where it was set.
    struct Variable {
        var value: String
        /// Whether the source keeps it as a secret: the input gets no default.
        var secret: Bool
        /// Where it was set, for the input's description (`the environment \`staging\``).
        var origin: String
    }

    /// The values known, by name; a later layer (an environment) is written over an earlier one.
    var values: [String: Variable] = [:]
    /// Prefixes a reference may carry before the name (`_.` of Insomnia's `{{ _.host }}`).
    var prefixes: [String] = []
    /// The names starting with `$` (a Postman dynamic variable) read for the first time, for the reader to
    /// warn of; it empties the list.
    var dynamicRead: [String] = []
    private var dynamicSeen: Set<String> = []
    /// Variables set from a response: the step (by index) and the path of its result they read.
    private var captures: [String: (step: Int, path: String)] = [:]

    /// Later `{{name}}` reads `path` (`body.id`) of the step at `index`.
    mutating func capture(_ name: String, step index: Int, path: String) {
        captures[name] = (index, path)
    }

    /// `text` with each `{{name}}` a reference.
    /// - Parameters:
    ///   - secret: whether the text is a credential: the variables it reads are secret inputs.
    ///   - plan: the plan read so far: its inputs take the new ones, its steps name the captures.
    mutating func text(_ text: String, secret: Bool = false, plan: inout ImportedPlan) -> PlanText {
        guard text.contains("{{") else { return PlanText(text) }
        var pieces: [PlanText.Piece] = []
        var rest = text[...]
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            var name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            if let prefix = prefixes.first(where: { name.hasPrefix($0) }) {
                name = String(name.dropFirst(prefix.count))
            }
            guard !name.isEmpty, !name.contains("{"), !name.contains(" ") else {
                pieces.append(.literal(String(rest[..<close.upperBound])))
                rest = rest[close.upperBound...]
                continue
            }
            pieces.append(.literal(String(rest[..<open.lowerBound])))
            pieces.append(.reference(reference(to: name, secret: secret, plan: &plan)))
            rest = rest[close.upperBound...]
        }
        pieces.append(.literal(String(rest)))
        return PlanText(pieces: Self.joined(pieces))
    }

    private mutating func reference(to name: String, secret: Bool, plan: inout ImportedPlan) -> Reference {
        if let capture = captures[name], plan.steps.indices.contains(capture.step) {
            // Ids depend only on the steps before, so the prefix names the step as the whole plan will.
            var prefix = ImportedPlan(origin: "", steps: Array(plan.steps[...capture.step]))
            StepNaming.name(&prefix)
            return .step(prefix.steps[capture.step].id, capture.path)
        }
        if name.hasPrefix("$") {
            if dynamicSeen.insert(name).inserted { dynamicRead.append(name) }
            return .input(
                plan.inputs.input(
                    forSourceVariable: name, value: nil, secret: false, description: "the dynamic variable `\(name)`"))
        }
        let known = values[name]
        let isSecret = secret || known?.secret == true || Credentials.isSecretName(name)
        // A value that still reads a variable no one sets is no default: the run asks for it.
        let value = known.map { resolved($0.value) }.flatMap { $0.contains("{{") ? nil : $0 }
        let input = plan.inputs.input(
            forSourceVariable: name, value: value, secret: isSecret,
            description: known.map { "`\(name)` of \($0.origin)" } ?? "`\(name)`, which the source does not set")
        return .input(input)
    }

    /// A value with the variables it reads replaced by their values (`{{ scheme }}://{{ host }}`), a few
    /// levels deep; what is left unknown stays as written.
    private func resolved(_ value: String) -> String {
        var text = value
        for _ in 0..<8 where text.contains("{{") {
            var output = ""
            var rest = text[...]
            while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
                var name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
                if let prefix = prefixes.first(where: { name.hasPrefix($0) }) {
                    name = String(name.dropFirst(prefix.count))
                }
                output += rest[..<open.lowerBound]
                output += values[name].map(\.value) ?? String(rest[open.lowerBound..<close.upperBound])
                rest = rest[close.upperBound...]
            }
            output += rest
            guard output != text, output.utf8.count <= 65536 else { break }
            text = output
        }
        return text
    }

    private static func joined(_ pieces: [PlanText.Piece]) -> [PlanText.Piece] {
        var result: [PlanText.Piece] = []
        for piece in pieces {
            if case .literal(let next) = piece, case .literal(let last)? = result.last {
                result[result.count - 1] = .literal(last + next)
            } else {
                result.append(piece)
            }
        }
        return result.filter { $0 != .literal("") }
    }
}
