extension PlanReader {
    static let subPlanKeys = ["file", "inputs"]

    /// `plan: { file: PATH, inputs: { NAME: VALUE… } }`. The path is literal, so the planner can read the file
    /// and check the call before anything runs; the values are value templates of the calling plan.
    mutating func readSubPlanCall(_ node: YAMLNode, _ what: String, key: Located<String>) -> SubPlanCall? {
        guard let fields = mapping(node, what) else { return nil }
        checkKeys(fields, allowed: PlanReader.subPlanKeys, in: what)
        var file: Located<String>?
        if let fileNode = fields.value("file") {
            if let path = string(fileNode, "`file` of \(what)") {
                if Template.opensExpression(path.value) {
                    // What it would read is unknown: inputs are not reported unused because of it.
                    sawMalformedExpression = true
                    diagnostics.error(
                        .invalidExpression, "the file of a sub-plan is a literal path; `${{ }}` is not evaluated here",
                        at: path.range, hint: "name the file itself, relative to this plan's file")
                } else if path.value.isEmpty {
                    diagnostics.error(
                        .invalidValue, "the file of a sub-plan is empty", at: path.range,
                        hint: "name a plan file, relative to this plan's file")
                } else {
                    file = path
                }
            }
        } else {
            diagnostics.error(
                .missingKey, "\(what) has no `file`", at: key.range,
                hint: "name the plan file to run: `plan: { file: auth/login.yaml }`")
        }
        var inputs: [SubPlanInput] = []
        if let inputsNode = fields.value("inputs"), let entries = mapping(inputsNode, "`inputs` of \(what)") {
            for (name, value) in entries.entries {
                guard checkName(name, "input name") else { continue }
                if let template = valueTemplate(value, "input `\(name.value)` of \(what)") {
                    inputs.append(SubPlanInput(name: name, value: template))
                }
            }
        }
        guard let file else { return nil }
        return SubPlanCall(file: file, inputs: inputs, key: key, inputsKey: fields.key("inputs"))
    }
}
