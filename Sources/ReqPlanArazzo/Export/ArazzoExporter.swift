import ReqPlanPlanner
import ReqPlanSyntax

/// A checked plan bound to OpenAPI descriptions, written as an Arazzo 1.1 document (`reqplan export
/// arazzo`): its `openapi:` entries become `sourceDescriptions`, the plan one workflow, each request step
/// bound to an operation a step, in a topological order of the plan's DAG (Arazzo runs a workflow's steps
/// in the order written), what later steps read of a step its `outputs`.
///
/// What has no Arazzo form is refused, each at its place in the plan with the reason (RP1450, RP1451), and
/// then nothing is written: a request not bound to an operation, `for_each`, `poll`, a sub-plan, `if:`,
/// credentials, a `retry`, a matcher or an expression Arazzo's runtime expressions cannot say. Groups and
/// sequences are flattened into the workflow's order, which their steps' `description` says.
public struct ArazzoExporter {
    /// What an export produced: the document, or the reasons it was refused.
    public struct Result: Sendable {
        /// The document's text; `nil` when something was refused.
        public var text: String?
        /// Every construct refused, located in the plan.
        public var diagnostics: [Diagnostic]
    }

    let graph: PlanGraph
    let operations: [String: BoundOperation]
    /// Each binding's description as the document names it (relative to where the document is written).
    let descriptionURLs: [String: String]
    var diagnostics: DiagnosticCollector
    /// The outputs later steps read, by step id, in the order first read.
    var stepOutputs: [String: [(name: String, value: String)]] = [:]
    /// The inputs the document reads (`$inputs.NAME`).
    var inputsRead: Set<String> = []

    /// Writes the plan of `graph` as an Arazzo document.
    /// - Parameters:
    ///   - graph: the plan's DAG (a plan with no errors).
    ///   - operations: the operation each request step is bound to, by step id (`ValidationReport.operations`).
    ///   - descriptionURLs: the `url` of each `openapi:` entry's description, by entry name, relative to the
    ///     document written.
    /// - Returns: the document's text, or the diagnostics that refuse it.
    /// - Complexity: O(*n*) in the plan's steps and expressions.
    public static func export(
        _ graph: PlanGraph, operations: [String: BoundOperation], descriptionURLs: [String: String]
    ) -> Result {
        var exporter = ArazzoExporter(
            graph: graph, operations: operations, descriptionURLs: descriptionURLs,
            diagnostics: DiagnosticCollector(file: graph.plan.source.path))
        let document = exporter.document()
        let diagnostics = exporter.diagnostics.sorted
        guard !exporter.diagnostics.hasErrors else { return Result(text: nil, diagnostics: diagnostics) }
        return Result(text: Self.header + document.yaml(), diagnostics: diagnostics)
    }

    static let header = "# Written by `reqplan export arazzo`: the plan's steps in a topological order of its DAG.\n"

    var plan: Plan { graph.plan }

    mutating func document() -> ExportNode {
        if plan.apis.isEmpty {
            diagnostics.error(
                .exportNoArazzoForm, "the plan binds no API description (`openapi:`), which Arazzo steps call",
                at: plan.name?.range ?? plan.version.range,
                hint:
                    "bind the plan to its OpenAPI description and write its requests with `operation:` (grammar.md §6.9)"
            )
        }
        checkPlanSettings()
        let steps = orderedRequestSteps().compactMap { step($0) }
        var workflow: [(key: String, value: ExportNode)] = [
            ("workflowId", .text(workflowID)),
            ("summary", .text(plan.name?.value ?? workflowID)),
        ]
        var notes = ["Exported from the reqplan plan `\(Self.fileName(plan.source.path))`."]
        if let description = plan.description?.value { notes.insert(description, at: 0) }
        if graph.waves.contains(where: { $0.count > 1 }) {
            notes.append(
                "Its steps run one after another here, in an order that keeps every dependency; the plan runs some of them concurrently."
            )
        }
        // The workflow's outputs before the steps' are written: they may read what no step reads, which
        // makes outputs of steps too; the inputs once every expression has been read.
        let outputs = workflowOutputs()
        let unread = plan.inputs.map(\.name.value).filter { !inputsRead.contains($0) }
        if !unread.isEmpty {
            notes.append(
                "Not inputs here, as no step reads them: "
                    + unread.map { "`\($0)`" }.joined(separator: ", ")
                    + " (where the API is served is the runner's to say: the description's `servers`, `reqplan run --server`)."
            )
        }
        workflow.append(("description", .text(notes.joined(separator: " "))))
        if let inputs = inputsSchema() { workflow.append(("inputs", inputs)) }
        let rendered = steps.map { entry -> ExportNode in
            var fields = entry.fields
            if let outputs = stepOutputs[entry.id], !outputs.isEmpty {
                fields.append(("outputs", .map(outputs.map { (key: $0.name, value: .text($0.value)) })))
            }
            return .map(fields)
        }
        workflow.append(("steps", .list(rendered)))
        if !outputs.isEmpty { workflow.append(("outputs", .map(outputs))) }
        return .map([
            ("arazzo", .text("1.1.0")),
            (
                "info",
                .map([
                    ("title", .text(plan.name?.value ?? workflowID)),
                    ("version", .text("1.0.0")),
                ])
            ),
            ("sourceDescriptions", .list(plan.apis.map(sourceDescription))),
            ("workflows", .list([.map(workflow)])),
        ])
    }

    /// The workflow's id: the plan file's name without its extension, in the characters Arazzo's ids take.
    var workflowID: String {
        var name = Self.fileName(plan.source.path)
        for suffix in [".yaml", ".yml"] where name.hasSuffix(suffix) { name.removeLast(suffix.count) }
        let kept = String(name.unicodeScalars.map { Self.isIDCharacter($0) ? Character($0) : "-" })
        return kept.isEmpty ? "plan" : kept
    }

    static func isIDCharacter(_ scalar: Unicode.Scalar) -> Bool {
        (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9")
            || scalar == "_" || scalar == "-"
    }

    static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    func sourceDescription(_ binding: APIBinding) -> ExportNode {
        .map([
            ("name", .text(binding.name.value)),
            ("url", .text(descriptionURLs[binding.name.value] ?? binding.file.value)),
            ("type", .text("openapi")),
        ])
    }

    /// The plan's own settings that Arazzo has no form for.
    mutating func checkPlanSettings() {
        if let policy = plan.onFailure, policy.value == .continue {
            refuse("`on_failure: continue`", because: "a failed Arazzo step ends its workflow", at: policy.range)
        }
        if let auth = plan.defaults.auth {
            refuse("`defaults.auth`", because: Self.credentialsReason, at: auth.range)
        }
        for binding in plan.apis {
            if let credentials = binding.credentials.first {
                refuse(
                    "`credentials` of `openapi.\(binding.name.value)`", because: Self.credentialsReason,
                    at: credentials.scheme.range)
            }
        }
        for variable in plan.vars {
            refuse("`vars`", because: "Arazzo has no named values but inputs and outputs", at: variable.name.range)
        }
    }

    static let credentialsReason =
        "Arazzo steps carry no credentials: the description's security schemes say what a runner sends, and each runner is given its credentials its own way"

    /// Reports a construct with no Arazzo form.
    mutating func refuse(_ what: String, because reason: String, at range: SourceRange, hint: String? = nil) {
        diagnostics.error(.exportNoArazzoForm, "\(what) has no Arazzo form: \(reason)", at: range, hint: hint)
    }

    /// The plan's request steps in a topological order of its DAG (document order among steps that do not
    /// depend on each other); the steps that are not requests refused where they have no form.
    /// - Complexity: O(*V* + *E*) (`ScheduleGraph.topologicalOrder()`).
    mutating func orderedRequestSteps() -> [StepNode] {
        for node in graph.nodes {
            switch node.kind {
            case .forEachRequest, .forEachGroup:
                refuse(
                    "`for_each`", because: "an Arazzo step sends one request; a workflow has no loop over items",
                    at: node.step.id.range)
            case .plan:
                refuse(
                    "a `plan` step (sub-plan)",
                    because: "it would be a workflow of its own; export the sub-plan and call it with `workflowId`",
                    at: node.step.id.range)
            case .group, .sequence:
                if let policy = node.step.onFailure, policy.value == .continue {
                    refuse(
                        "`on_failure: continue`", because: "a failed Arazzo step ends its workflow", at: policy.range)
                }
            case .request:
                break
            }
        }
        let order = graph.schedule.topologicalOrder() ?? Array(0..<(graph.nodes.count * 2))
        return order.compactMap { vertex in
            guard vertex % 2 == 0, vertex / 2 < graph.nodes.count else { return nil }
            let node = graph.nodes[vertex / 2]
            guard node.kind == .request, node.instance == 0, node.loop == nil else { return nil }
            return node
        }
    }

    /// The enclosing groups and sequences of a step, innermost first.
    func enclosing(_ node: StepNode) -> [StepNode] {
        var result: [StepNode] = []
        var parent = node.parent
        while let id = parent {
            result.append(graph.nodes[id])
            parent = graph.nodes[id].parent
        }
        return result
    }
}
