import ReqPlanSyntax

/// A workflow's `inputs` is a JSON Schema, open unless it says `additionalProperties: false`: an input it does
/// not list may still be given (the spec's own examples read `$inputs.productDetails.productId`, a property of
/// an object input, and pass a sub-workflow inputs its schema leaves out). reqplan takes such an input as
/// optional and of no known type, with a warning (RP0204); an error only where the schema is closed, or where
/// the name is a likely misspelling of one it lists. The open/closed rule issue 19 set for responses.
extension WorkflowTranslator {
    /// Whether the workflow's input schema closes its properties (`additionalProperties: false`).
    static func closesInputs(_ workflow: Workflow, resolve: (YAMLNode) -> YAMLNode?) -> Bool {
        guard let schema = workflow.inputs.flatMap(resolve) else { return false }
        if case .bool(false)? = schema.value("additionalProperties")?.coreSchemaValue { return true }
        return false
    }

    /// The inputs (first names) `workflow`'s text reads as `$inputs.NAME`, found in its text: what a
    /// sub-workflow may be given although its schema does not list it.
    static func inputsRead(by workflow: Workflow, in source: SourceFile) -> Set<String> {
        var names: Set<String> = []
        for number in workflow.range.start.line...max(workflow.range.start.line, workflow.range.end.line) {
            guard let line = source.line(number) else { continue }
            var rest = Substring(line)
            while let found = rest.range(of: "$inputs.") {
                let after = rest[found.upperBound...]
                let name = after.unicodeScalars.prefix { RuntimeExpression.continues($0) && $0 != "." && $0 != "#" }
                if !name.isEmpty { names.insert(String(String.UnicodeScalarView(name))) }
                rest = after
            }
        }
        return names
    }

    /// `$inputs.NAME` (NAME may go on into an object input: `productDetails.productId`), as an expression; an
    /// input the schema does not list is taken as an optional one, with a warning, unless the schema is closed
    /// or NAME is a likely misspelling of one it lists (RP0204).
    mutating func inputExpression(_ name: String, at range: SourceRange) -> Expression? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        // No `inputs` at all is the openest schema: every input read is one of any type.
        let declared = declaredInputs ?? []
        if declared.contains(name) { return path("inputs", [.member(name)], at: range) }
        let head = parts[0]
        let inputsRange = workflow.inputs.map { source.range(of: $0) } ?? workflow.id.range
        if declared.contains(head) { return path("inputs", parts.map { PathComponent.member($0) }, at: range) }
        let suggestion = Suggestion.didYouMean(head, in: declared.sorted())
        if inputsClosed || suggestion != nil {
            diagnostics.error(
                .unknownInput, "workflow `\(workflow.id.value)` has no input `\(head)`", at: range,
                notes: [.init("its input schema is here", at: inputsRange)],
                hint: suggestion
                    ?? "its input schema closes its properties (`additionalProperties: false`): declare it under "
                    + "`inputs.properties`")
            return nil
        }
        if implicitInputs[head] == nil {
            implicitInputs[head] = range
            diagnostics.warning(
                .unknownInput,
                declaredInputs == nil
                    ? "workflow `\(workflow.id.value)` reads input `\(head)` and declares no `inputs`; it is taken as an "
                        + "optional input of any type"
                    : "workflow `\(workflow.id.value)` reads input `\(head)`, which its input schema does not list; the "
                        + "schema is open, so it is taken as an optional input of any type", at: range,
                notes: [.init("its input schema is here", at: inputsRange)],
                hint: "declare it under `inputs.properties` to have it typed and checked")
        }
        return path("inputs", parts.map { PathComponent.member($0) }, at: range)
    }

    /// The inputs the workflow reads that its schema does not list, as optional plan inputs.
    func implicitInputDeclarations() -> [InputDeclaration] {
        implicitInputs.sorted { $0.key < $1.key }.map { name, range in
            var declaration = InputDeclaration(
                name: Located(name, at: range), type: nil, defaultValue: nil, env: nil, secret: false,
                description: "read by the workflow; its input schema does not list it", range: range,
                required: Located(false, at: range))
            declaration.acceptsAnyType = true
            return declaration
        }
    }
}
