import ReqPlanPlanner
import ReqPlanSyntax

/// Reads Arazzo documents (1.0.x, 1.1.x) into plans, for `PlanLibrary`: a document is recognised by its
/// `arazzo:` key, read under the limits of every file reqplan reads, and each workflow becomes a plan
/// (`WorkflowTranslator`). The plan of the whole document runs its workflows, each as a sub-plan, ordered
/// by their `dependsOn`; `workflow` narrows it to one workflow and those it depends on.
public struct ArazzoReader: PlanDocumentReader {
    /// A plan of an Arazzo document is one of its workflows.
    public var entryNoun: String { "workflow" }

    /// Where each source description is served, by name (`--server NAME=URL`); the others are served at
    /// their description's first server.
    public var servers: [String: String]
    /// The workflow to run (`--workflow ID`); `nil`: all of them.
    public var workflow: String?
    /// `--parallel`: a sequential workflow runs by its data flow, writes kept in order (arazzo.md, "Order").
    public var parallel: Bool
    /// Reads the source descriptions (in outline) for `parallel`, which orders steps by method and path, and
    /// for a document that may call an operation by Redocly Respect's `SOURCE.opId`, which is read so only
    /// where no description has an operation of that id (without a loader, wherever SOURCE is a source
    /// description).
    public var apiLoader: (any APIDescriptionLoader)?
    /// Whether a source description may be read from outside the document's project (`--allow-files-outside`).
    public var allowFilesOutside: Bool

    /// Creates a reader.
    /// - Parameters:
    ///   - servers: source description name → base URL.
    ///   - workflow: the one workflow a document's plan runs (with those it depends on); `nil` for all.
    ///   - parallel: run sequential workflows by their data flow.
    ///   - apiLoader: what reads the source descriptions for `parallel` and for Respect's `SOURCE.opId`;
    ///     without one, every step of a sequential workflow stays in order, and `SOURCE.opId` is read as
    ///     Respect's wherever SOURCE is an OpenAPI source description.
    ///   - allowFilesOutside: whether they may be read from outside the document's project, as plans' files.
    public init(
        servers: [String: String] = [:], workflow: String? = nil, parallel: Bool = false,
        apiLoader: (any APIDescriptionLoader)? = nil, allowFilesOutside: Bool = false
    ) {
        self.allowFilesOutside = allowFilesOutside
        self.servers = servers
        self.workflow = workflow
        self.parallel = parallel
        self.apiLoader = apiLoader
    }

    /// Whether `source` is an Arazzo document: a top-level `arazzo:` key (YAML) or `"arazzo":` (JSON) in
    /// its first lines.
    public func recognises(_ source: SourceFile) -> Bool {
        var lines = 0
        for line in source.text.split(separator: "\n", maxSplits: 64, omittingEmptySubsequences: true) {
            lines += 1
            if lines > 64 { break }
            if line.hasPrefix("arazzo:") || line.hasPrefix("\"arazzo\"") || line.hasPrefix("{\"arazzo\"") {
                return true
            }
            let trimmed = line.drop { $0 == " " || $0 == "\t" || $0 == "{" }
            if trimmed.hasPrefix("\"arazzo\"") { return true }
        }
        return false
    }

    /// Reads the plan `entry` (a workflow id) of the document, or the whole document's plan.
    public func parse(_ source: SourceFile, file: String?, entry: String?, limits: ParseLimits) -> ParseResult {
        let root: YAMLNode
        switch DataDocument.tree(source, what: "Arazzo document", limits: limits) {
        case .failure(let failure):
            return ParseResult(plan: nil, diagnostics: [failure.diagnostic], source: source)
        case .success(nil):
            var diagnostic = Diagnostic.error(
                .notAPlan, "the document is empty", at: SourceRange(at: .init(line: 1, column: 1)))
            diagnostic.file = source.path
            return ParseResult(plan: nil, diagnostics: [diagnostic], source: source)
        case .success(let node?):
            root = node
        }
        var parser = ArazzoParser(source: source)
        guard let document = parser.read(root) else {
            return ParseResult(plan: nil, diagnostics: parser.diagnostics.diagnostics, source: source)
        }
        // A document's structural problems are reported with its whole plan only, not again with each
        // workflow that another runs as a sub-plan.
        var diagnostics = entry == nil ? parser.diagnostics.diagnostics : []
        // In outline: `--parallel` orders steps by method and path, `$method` reads a step's method, and
        // Respect's `operationId: SOURCE.opId` is told from an operation of that id, and Respect's `x-security`
        // finds the schemes it names (`schemeName`).
        let descriptions =
            parallel || source.text.contains("$method") || WorkflowTranslator.mayReadRespectOperationIDs(in: document)
                || WorkflowTranslator.namesSecuritySchemes(in: document)
            ? self.descriptions(of: document, at: file ?? source.path) : [:]
        let (workflowSources, unread) = self.workflowSources(of: document, at: file ?? source.path, limits: limits)
        if entry == nil { diagnostics += unread }
        // A server may be given for a description of a document whose workflows this one runs.
        let names = document.sources.map(\.name.value)
        let known = Set(names + workflowSources.values.flatMap { $0.document.sources.map(\.name.value) })
        for name in servers.keys.sorted() where entry == nil && !known.contains(name) {
            var diagnostic = Diagnostic.error(
                .unknownSourceDescription, "a server is given for `\(name)`, which is no source description", at: nil,
                hint: Suggestion.didYouMean(name, in: names)
                    ?? "its source descriptions: " + names.map { "`\($0)`" }.joined(separator: ", "))
            diagnostic.file = source.path
            diagnostics.append(diagnostic)
        }
        let fileName = String((file ?? source.path).split(separator: "/").last ?? "")
        var translated: [String: (plan: Plan, reads: Set<String>)] = [:]
        func translate(_ workflow: Workflow, reporting: Bool) -> Plan {
            if let done = translated[workflow.id.value] { return done.plan }
            var translator = WorkflowTranslator(
                document: document, workflow: workflow, servers: servers, fileName: fileName)
            translator.parallel = parallel
            translator.descriptions = descriptions
            translator.workflowSources = workflowSources
            let plan = translator.plan()
            if reporting { diagnostics += translator.diagnostics.diagnostics }
            translated[workflow.id.value] = (plan, translator.readsWorkflows)
            return plan
        }
        if let entry {
            guard let workflow = document.workflow(entry) else {
                return ParseResult(plan: nil, diagnostics: [], source: source)
            }
            return ParseResult(plan: translate(workflow, reporting: false), diagnostics: [], source: source)
        }
        var selected = document.workflows
        var chosen: Workflow?
        if let wanted = workflow {
            guard let found = document.workflow(wanted) else {
                var diagnostic = Diagnostic.error(
                    .unknownWorkflow, "the document has no workflow `\(wanted)`", at: nil,
                    hint: Suggestion.didYouMean(wanted, in: document.workflows.map(\.id.value))
                        ?? "its workflows: " + document.workflows.map { "`\($0.id.value)`" }.joined(separator: ", "))
                diagnostic.file = source.path
                return ParseResult(plan: nil, diagnostics: diagnostics + [diagnostic], source: source)
            }
            chosen = found
        }
        // Every workflow is checked, whichever runs.
        for workflow in document.workflows { _ = translate(workflow, reporting: true) }
        let reads = translated.mapValues(\.reads)
        if let chosen { selected = Self.closure(of: chosen, in: document, reads: reads) }
        let (external, problems) = Self.externalDependencies(of: document, sources: workflowSources)
        diagnostics += problems
        // The workflows of other documents that these depend on, each translated for the inputs it takes.
        var others: [String: ExternalWorkflow] = [:]
        for workflow in selected {
            for dependency in workflow.dependsOn {
                guard others[dependency.value] == nil, let (other, called) = external[dependency.value] else {
                    continue
                }
                var translator = WorkflowTranslator(
                    document: other.document, workflow: called, servers: servers, fileName: other.path)
                translator.workflowSources = [:]
                others[dependency.value] = ExternalWorkflow(
                    stepID: String(dependency.value.dropFirst("$sourceDescriptions.".count)), path: other.path,
                    workflow: called, inputs: translator.plan().inputs)
            }
        }
        if selected.count == 1, let only = selected.first, workflow != nil || document.workflows.count == 1,
            others.isEmpty
        {
            return ParseResult(plan: translate(only, reporting: false), diagnostics: diagnostics, source: source)
        }
        let plan = documentPlan(
            document, running: selected, translated: translated.mapValues(\.plan), reads: reads, fileName: fileName,
            others: others)
        return ParseResult(plan: plan, diagnostics: diagnostics, source: source)
    }

    /// A workflow of another Arazzo document that a workflow `dependsOn`: run first, as a step of the
    /// document's plan named by what follows `$sourceDescriptions.` (`orders.place-order`).
    struct ExternalWorkflow {
        var stepID: String
        /// The other document, relative to this one.
        var path: String
        var workflow: Workflow
        /// The inputs it declares, given from the document plan's inputs of the same names.
        var inputs: [InputDeclaration]
    }

    /// The workflows' `dependsOn` entries that name a workflow of another Arazzo document
    /// (`$sourceDescriptions.NAME.ID`), resolved by the text written; and the entries that name no workflow
    /// of the document or of the one they say, located.
    static func externalDependencies(of document: ArazzoDocument, sources: [String: ArazzoSource])
        -> (resolved: [String: (ArazzoSource, Workflow)], problems: [Diagnostic])
    {
        var resolved: [String: (ArazzoSource, Workflow)] = [:]
        var problems: [Diagnostic] = []
        let names = document.workflows.map(\.id.value)
        func problem(
            _ code: DiagnosticCode, _ message: String, at range: SourceRange, hint: String?,
            fix: Diagnostic.Fix? = nil
        ) {
            var diagnostic = Diagnostic.error(code, message, at: range, hint: hint, fix: fix)
            diagnostic.file = document.source.path
            problems.append(diagnostic)
        }
        for workflow in document.workflows {
            for dependency in workflow.dependsOn where document.workflow(dependency.value) == nil {
                guard dependency.value.hasPrefix("$sourceDescriptions.") else {
                    let suggestion = Suggestion.replacement(for: dependency.value, in: names)
                    problem(
                        .unknownWorkflow,
                        "workflow `\(workflow.id.value)` depends on `\(dependency.value)`, which is no workflow of "
                            + "the document", at: dependency.range,
                        hint: suggestion?.hint ?? "its workflows: " + names.map { "`\($0)`" }.joined(separator: ", "),
                        fix: suggestion?.fix)
                    continue
                }
                guard let parsed = WorkflowTranslator.sourceAndOperationID(dependency.value),
                    let name = parsed.source,
                    let declared = document.sources.first(where: { $0.name.value == name })
                else {
                    problem(
                        .unknownSourceDescription, "`\(dependency.value)` names no source description of the document",
                        at: dependency.range,
                        hint: "a workflow of another document is named `$sourceDescriptions.NAME.WORKFLOW`")
                    continue
                }
                guard declared.isArazzo else {
                    problem(
                        .unknownWorkflow,
                        "source description `\(name)` is an OpenAPI description, which has no workflows",
                        at: dependency.range, hint: "name it with `type: arazzo` if it is an Arazzo document")
                    continue
                }
                // One that could not be read is reported where it is declared.
                guard let other = sources[name] else {
                    if declared.url.value.urlScheme != nil {
                        problem(
                            .unknownSourceDescription,
                            "`\(dependency.value)` is a workflow of `\(name)`, which is at a remote URL that reqplan "
                                + "does not fetch", at: dependency.range,
                            hint: "save the document beside this one and name it by a relative path")
                    }
                    continue
                }
                guard let called = other.document.workflow(parsed.id) else {
                    problem(
                        .unknownWorkflow, "`\(other.path)` has no workflow `\(parsed.id)`", at: dependency.range,
                        hint: Suggestion.didYouMean(parsed.id, in: other.document.workflows.map(\.id.value)))
                    continue
                }
                resolved[dependency.value] = (other, called)
            }
        }
        return (resolved, problems)
    }

    /// The workflows `workflow` runs after: those of its `dependsOn`, then those whose outputs it reads
    /// (`$workflows.X.outputs.Y`; the specification sets no `dependsOn` for that, so the order is inferred from
    /// the expression, as a step's is). `reads` holds what each workflow reads, by id.
    static func dependencies(of workflow: Workflow, reads: [String: Set<String>]) -> [Located<String>] {
        let declared = Set(workflow.dependsOn.map(\.value))
        return workflow.dependsOn
            + (reads[workflow.id.value] ?? []).subtracting(declared).sorted().map { Located($0, at: workflow.id.range) }
    }

    /// A workflow and those it depends on, transitively, in document order.
    static func closure(of workflow: Workflow, in document: ArazzoDocument, reads: [String: Set<String>]) -> [Workflow]
    {
        var wanted: Set<String> = [workflow.id.value]
        var pending = [workflow]
        while let next = pending.popLast() {
            for dependency in dependencies(of: next, reads: reads) where wanted.insert(dependency.value).inserted {
                if let found = document.workflow(dependency.value) { pending.append(found) }
            }
        }
        return document.workflows.filter { wanted.contains($0.id.value) }
    }

    /// The plan that runs `workflows`, each as a sub-plan step named by its id, ordered by `dependsOn`; its
    /// inputs are those of the workflows (one value for each name), its outputs theirs (`WORKFLOW.NAME`).
    func documentPlan(
        _ document: ArazzoDocument, running workflows: [Workflow], translated: [String: Plan],
        reads: [String: Set<String>], fileName: String, others: [String: ExternalWorkflow]
    ) -> Plan {
        var inputs: [InputDeclaration] = []
        var steps: [Step] = []
        var outputs: [Output] = []
        /// An input of a workflow, given from the plan's input of the same name (one for each name).
        func given(_ input: InputDeclaration) -> SubPlanInput {
            let range = input.range
            if !inputs.contains(where: { $0.name.value == input.name.value }) {
                var shared = input
                shared.required = Located(false, at: range)
                inputs.append(shared)
            }
            return SubPlanInput(
                name: input.name,
                value: .template(
                    Template(parts: [.expression(Self.path("inputs", [input.name.value], at: range))], range: range)))
        }
        var added: Set<String> = []
        for workflow in workflows {
            // The workflows of other documents it depends on run first, each once.
            var external: [Located<String>] = []
            for dependency in workflow.dependsOn {
                guard let other = others[dependency.value] else { continue }
                external.append(Located(other.stepID, at: dependency.range))
                guard added.insert(other.stepID).inserted else { continue }
                let call = SubPlanCall(
                    file: Located(other.path, at: dependency.range), inputs: other.inputs.map(given), key: dependency,
                    inputsKey: nil, entry: other.workflow.id.value)
                steps.append(
                    Step(
                        id: Located(other.stepID, at: dependency.range), kind: .plan(call), needs: [], condition: nil,
                        description: other.workflow.summary, timeout: nil, retry: nil, expect: nil, concurrency: nil,
                        onFailure: nil, range: dependency.range))
            }
            guard let plan = translated[workflow.id.value] else { continue }
            let dependencies = Self.dependencies(of: workflow, reads: reads)
            var passed: [SubPlanInput] = []
            for input in plan.inputs {
                let range = input.range
                if input.name.value == WorkflowTranslator.workflowsInput {
                    let entries = dependencies.map { dependency in
                        ValueTemplate.Entry(
                            key: Located(dependency.value, at: dependency.range),
                            value: .object(
                                [
                                    .init(
                                        key: Located("outputs", at: dependency.range),
                                        value: .template(
                                            Template(
                                                parts: [
                                                    .expression(
                                                        Self.path(
                                                            "steps", [dependency.value, "outputs"], at: dependency.range
                                                        ))
                                                ], range: dependency.range)))
                                ], dependency.range))
                    }
                    passed.append(SubPlanInput(name: input.name, value: .object(entries, range)))
                    continue
                }
                passed.append(given(input))
            }
            let call = SubPlanCall(
                file: Located(fileName, at: workflow.id.range), inputs: passed, key: workflow.id, inputsKey: nil,
                entry: workflow.id.value)
            steps.append(
                Step(
                    id: workflow.id, kind: .plan(call),
                    needs: dependencies.filter { dependency in
                        workflows.contains { $0.id.value == dependency.value }
                    } + external,
                    condition: nil, description: workflow.summary, timeout: nil, retry: nil, expect: nil,
                    concurrency: nil, onFailure: nil, range: workflow.id.range))
            for output in plan.outputs {
                let range = output.name.range
                outputs.append(
                    Output(
                        name: Located("\(workflow.id.value).\(output.name.value)", at: range),
                        value: .template(
                            Template(
                                parts: [
                                    .expression(
                                        Self.path(
                                            "steps", [workflow.id.value, "outputs", output.name.value], at: range))
                                ], range: range))))
            }
        }
        var whole = Plan(
            source: document.source, version: Located(1, at: document.version.range),
            name: document.title.map { Located($0, at: document.version.range) }, description: nil, inputs: inputs,
            defaults: .none, concurrency: nil, onFailure: Located(.continue, at: document.version.range), timeout: nil,
            redactHeaders: [], cookies: nil, steps: steps, outputs: outputs)
        whole.notation = ArazzoNotation()
        return whole
    }

    /// `root.a.b…` with every part at `range`.
    static func path(_ root: String, _ members: [String], at range: SourceRange) -> Expression {
        members.reduce(Expression.variable(Located(root, at: range))) {
            .access($0, Located(.member($1), at: range), range)
        }
    }
}

extension WorkflowTranslator {
    /// The method of a step's operation: from its `operationPath`, or from its description (read in outline
    /// when the document reads `$method`).
    func method(of step: ArazzoStep) -> String? {
        if let method = resource(of: step)?.method { return method }
        guard case .operationPath(let written)? = step.target, let slash = written.value.lastIndex(of: "/") else {
            return nil
        }
        return written.value[written.value.index(after: slash)...].uppercased()
    }
}
