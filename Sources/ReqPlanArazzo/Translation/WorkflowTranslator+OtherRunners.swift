import ReqPlanPlanner
import ReqPlanSyntax

/// Arazzo as two other runners write it (arazzo.md, "Documents written for other runners"). Redocly Respect
/// reads `operationId: SOURCE.opId`, `operationPath: $sourceDescriptions.NAME#/paths/…` and
/// `workflowId: $sourceDescriptions.NAME.workflows.ID`; Jentic's arazzo-runner `operationPath: NAME#/paths/…`.
///
/// Each is read as the specification's form it stands for, and only where that is the one reading: SOURCE and
/// NAME name a source description of the document, no description has an operation whose id is
/// `SOURCE.opId` as written, and the operation or workflow is there. It is then a warning (RP1014, an error
/// with `--strict`) at the written value that names the runner, gives the specification's form in its hint,
/// and carries it as the diagnostic's fix (a code action in the editor, `fix` in `validate --format json`).
extension WorkflowTranslator {
    /// A runner whose shorthands are read.
    enum OtherRunner {
        case respect
        case arazzoRunner

        /// Its name, as a warning says it.
        var name: String {
            switch self {
            case .respect: "Redocly Respect"
            case .arazzoRunner: "Jentic's arazzo-runner"
            }
        }
    }

    /// Respect's `operationId: SOURCE.opId`, as the source description and the id it names.
    ///
    /// SOURCE is an OpenAPI source description of the document and its description has `opId` (or was not
    /// read: binding it reports why). `literal` lists the descriptions that have an operation of the id as
    /// written, which the specification's reading names: then the shorthand is not read where there is one
    /// description (the specification's reading is that one's operation), and is ambiguous where there are
    /// several.
    /// - Returns: `nil` when `written` is not the shorthand.
    func respectOperationID(_ written: String, among openAPI: [SourceDescription])
        -> (source: String, id: String, literal: [String])?
    {
        guard !written.hasPrefix("$"), let dot = written.firstIndex(of: ".") else { return nil }
        let name = String(written[..<dot])
        let id = String(written[written.index(after: dot)...])
        guard !id.isEmpty, openAPI.contains(where: { $0.name.value == name }) else { return nil }
        if let description = descriptions[name], description.operation(id: id) == nil { return nil }
        let literal = openAPI.map(\.name.value).filter { descriptions[$0]?.operation(id: written) != nil }
        if !literal.isEmpty, openAPI.count == 1 { return nil }
        return (name, id, literal)
    }

    /// The operation Respect's `SOURCE.opId` names (`respectOperationID`), with its warning; `nil` (reported)
    /// where it is also the id of an operation of another description, or SOURCE's cannot be bound.
    mutating func respectOperation(
        _ written: Located<String>, _ shorthand: (source: String, id: String, literal: [String]),
        among openAPI: [SourceDescription]
    ) -> OperationReference? {
        let specForm = "$sourceDescriptions.\(shorthand.source).\(shorthand.id)"
        if let other = shorthand.literal.first {
            diagnostics.error(
                .invalidValue,
                "`operationId: \(written.value)` is ambiguous: operation `\(written.value)` of `\(other)`, or "
                    + "\(OtherRunner.respect.name)'s shorthand for operation `\(shorthand.id)` of `\(shorthand.source)`",
                at: written.range,
                hint: "write `$sourceDescriptions.\(other).\(written.value)` for the first, `\(specForm)` for the other"
            )
            return nil
        }
        warnShorthand(.respect, key: "operationId", written: written, specForm: specForm)
        guard let description = sourceDescription(named: shorthand.source, from: openAPI, at: written.range) else {
            return nil
        }
        return OperationReference(written: written, api: description.name.value, operation: .id(shorthand.id))
    }

    /// Whether a step of `document` may call an operation by Respect's `SOURCE.opId`: telling it from an
    /// operation of that id needs the descriptions read.
    static func mayReadRespectOperationIDs(in document: ArazzoDocument) -> Bool {
        let names = Set(document.sources.filter { !$0.isArazzo }.map(\.name.value))
        return document.workflows.contains { workflow in
            workflow.steps.contains { step in
                guard case .operationID(let written)? = step.target, !written.value.hasPrefix("$"),
                    let dot = written.value.firstIndex(of: ".")
                else { return false }
                return names.contains(String(written.value[..<dot]))
            }
        }
    }

    /// An `operationPath` written `$sourceDescriptions.NAME#/paths/…` (Respect; also with `.url`, without
    /// the braces) or `NAME#/paths/…` (arazzo-runner), NAME an OpenAPI source description of the document:
    /// the runner, and the specification's `{$sourceDescriptions.NAME.url}#/paths/…`. `nil` otherwise.
    func shorthandOperationPath(_ written: String, among openAPI: [SourceDescription])
        -> (runner: OtherRunner, specForm: String)?
    {
        guard let hash = written.firstIndex(of: "#"), written[hash...].hasPrefix("#/paths/") else { return nil }
        let base = written[..<hash]
        let names = Set(openAPI.map(\.name.value))
        let runner: OtherRunner
        var name: Substring
        let prefix = "$sourceDescriptions."
        if base.hasPrefix(prefix) {
            runner = .respect
            name = base.dropFirst(prefix.count)
            if !names.contains(String(name)), name.hasSuffix(".url") { name = name.dropLast(".url".count) }
        } else {
            runner = .arazzoRunner
            name = base
        }
        guard names.contains(String(name)) else { return nil }
        return (runner, "{$sourceDescriptions.\(name).url}" + written[hash...])
    }

    /// Respect's `workflowId: $sourceDescriptions.NAME.workflows.ID` for workflow `ID` of the Arazzo document
    /// NAME is: the id, when `id` (what follows NAME) is `workflows.ID`, the document has workflow `ID`, and
    /// none whose id is `workflows.ID`.
    static func respectWorkflowID(_ id: String, in other: ArazzoDocument) -> String? {
        let prefix = "workflows."
        guard id.hasPrefix(prefix), other.workflow(id) == nil else { return nil }
        let named = String(id.dropFirst(prefix.count))
        return other.workflow(named) == nil ? nil : named
    }

    /// Warns that `written`, the value of `key`, is `runner`'s shorthand for `specForm` (RP1014), with the fix
    /// that writes the specification's form in its place; once for each place (a step's `workflowId` is
    /// resolved again for each `$outputs` its outputs read).
    mutating func warnShorthand(_ runner: OtherRunner, key: String, written: Located<String>, specForm: String) {
        let known = diagnostics.diagnostics.contains {
            $0.code == .otherRunnersShorthand && $0.range == written.range
        }
        guard !known else { return }
        let fix = writtenText(at: written.range).flatMap {
            Diagnostic.Fix.scalar(specForm, replacing: $0, title: "Write the specification's form `\(specForm)`")
        }
        let shown = fix?.replacement ?? specForm
        diagnostics.warning(
            .otherRunnersShorthand,
            "`\(key): \(written.value)` is \(runner.name)'s shorthand for `\(specForm)`", at: written.range,
            hint: "the specification writes `\(key): \(shown)`, which every runner reads", fix: fix)
    }

    /// The text at `range` as the document writes it (quotes included); `nil` when it is not on one line.
    func writtenText(at range: SourceRange) -> String? {
        guard range.start.line == range.end.line, let line = source.line(range.start.line) else { return nil }
        let scalars = line.unicodeScalars.dropFirst(range.start.column - 1)
            .prefix(range.end.column - range.start.column)
        return String(String.UnicodeScalarView(scalars))
    }
}
