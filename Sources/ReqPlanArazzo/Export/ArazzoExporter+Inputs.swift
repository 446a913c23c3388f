import ReqPlanSyntax

extension ArazzoExporter {
    /// The workflow's `inputs`: a JSON Schema object with a property per plan input the document reads (its `type`, `default`,
    /// `format: password` for a secret one, its description and environment variable), `required` those the
    /// plan requires.
    func inputsSchema() -> ExportNode? {
        let inputs = plan.inputs.filter { inputsRead.contains($0.name.value) }
        guard !inputs.isEmpty else { return nil }
        var properties: [(key: String, value: ExportNode)] = []
        var required: [ExportNode] = []
        for input in inputs {
            var schema: [(key: String, value: ExportNode)] = []
            if let type = input.knownType { schema.append(("type", .text(type.jsonSchemaType))) }
            if input.secret { schema.append(("format", .text("password"))) }
            var notes: [String] = []
            if let description = input.description { notes.append(description) }
            if let env = input.env {
                notes.append("reqplan reads it from the environment variable `\(env.value)` when not given.")
            }
            if !notes.isEmpty { schema.append(("description", .text(notes.joined(separator: " ")))) }
            if let value = input.defaultValue?.value { schema.append(("default", .value(value))) }
            properties.append((input.name.value, .map(schema)))
            if input.isRequired && input.env == nil { required.append(.text(input.name.value)) }
        }
        var schema: [(key: String, value: ExportNode)] = [("type", .text("object")), ("properties", .map(properties))]
        if !required.isEmpty { schema.append(("required", .list(required))) }
        return .map(schema)
    }

    /// The workflow's `outputs`: each of the plan's, one runtime expression.
    mutating func workflowOutputs() -> [(key: String, value: ExportNode)] {
        var outputs: [(key: String, value: ExportNode)] = []
        for output in plan.outputs {
            guard case .template(let template) = output.value, let expression = template.singleExpression else {
                refuse(
                    "output `\(output.name.value)`",
                    because: "a workflow output is one runtime expression, not a literal or text around expressions",
                    at: output.value.range)
                continue
            }
            if let runtime = runtime(expression) { outputs.append((output.name.value, .text(runtime))) }
        }
        return outputs
    }
}
