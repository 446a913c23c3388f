import ReqPlanPlanner
import ReqPlanSyntax

/// An Arazzo document as written (1.0.x or 1.1.0), every part located: what `ArazzoParser` reads and
/// `WorkflowTranslator` turns into plans. Values (parameter values, payloads, inputs schemas) stay YAML
/// nodes until they are translated, so that they keep their places.
struct ArazzoDocument {
    /// The document's text.
    var source: SourceFile
    /// `arazzo:`.
    var version: Located<String>
    /// `info.title`.
    var title: String?
    /// `sourceDescriptions`.
    var sources: [SourceDescription]
    /// `workflows`.
    var workflows: [Workflow]
    /// `components`.
    var components: Components
    /// The names of source descriptions refused where they are declared (AsyncAPI), so that a step naming one
    /// is not told again that no source has the name.
    var refusedSources: Set<String> = []
    /// Whether `sourceDescriptions` is missing or empty, reported where it is (RP0103), and not again at
    /// each step that names an operation.
    var sourcesMissing = false

    /// The workflow with this id.
    func workflow(_ id: String) -> Workflow? { workflows.first { $0.id.value == id } }
}

/// One entry of `sourceDescriptions`.
struct SourceDescription {
    /// `name`.
    var name: Located<String>
    /// `url`.
    var url: Located<String>
    /// `type`: `openapi` (the default) or `arazzo`; `asyncapi` is refused.
    var type: Located<String>?
    /// The whole entry.
    var range: SourceRange

    /// Whether it is another Arazzo document.
    var isArazzo: Bool { type?.value == "arazzo" }
}

/// `components`.
struct Components {
    /// `inputs`: name → JSON Schema.
    var inputs: [String: YAMLNode] = [:]
    /// `parameters`: name → parameter.
    var parameters: [String: Parameter] = [:]
    /// `successActions`.
    var successActions: [String: Action] = [:]
    /// `failureActions`.
    var failureActions: [String: Action] = [:]
}

/// One workflow.
struct Workflow {
    /// `workflowId`.
    var id: Located<String>
    /// `summary`, else `description`.
    var summary: String?
    /// `inputs` (a JSON Schema), when given.
    var inputs: YAMLNode?
    /// `dependsOn`: workflow ids (local, or `$sourceDescriptions.NAME.ID`).
    var dependsOn: [Located<String>]
    /// `steps`.
    var steps: [ArazzoStep] {
        didSet { indexSteps() }
    }
    /// Each step id's first position in `steps`, and whether some step declares `dependsOn`: kept with the
    /// steps, so a workflow of 10,000 steps looks a step up in constant time (each lookup walked the list,
    /// copying steps, and a 10,000-step workflow took 14 s to validate).
    private(set) var positions: [String: Int] = [:]
    private(set) var declaresStepDependencies = false
    /// `successActions`, `failureActions`: the defaults of its steps.
    var successActions: [ActionEntry]
    var failureActions: [ActionEntry]
    /// `outputs`, in the order written.
    var outputs: [(name: Located<String>, value: YAMLNode)]
    /// `parameters`: applied to every operation step (a step's own of the same name and place win).
    var parameters: [ParameterEntry]
    /// The `workflowId` entry's range, and the whole workflow's.
    var range: SourceRange
    /// Redocly Respect's `x-security`, when written: the credentials of its operation steps that write none.
    var security: [SecurityItem]?

    init(
        id: Located<String>, summary: String?, inputs: YAMLNode?, dependsOn: [Located<String>], steps: [ArazzoStep],
        successActions: [ActionEntry], failureActions: [ActionEntry],
        outputs: [(name: Located<String>, value: YAMLNode)],
        parameters: [ParameterEntry], range: SourceRange
    ) {
        self.id = id
        self.summary = summary
        self.inputs = inputs
        self.dependsOn = dependsOn
        self.steps = steps
        self.successActions = successActions
        self.failureActions = failureActions
        self.outputs = outputs
        self.parameters = parameters
        self.range = range
        indexSteps()
    }

    private mutating func indexSteps() {
        positions = [:]
        positions.reserveCapacity(steps.count)
        for (index, step) in steps.enumerated() where positions[step.id.value] == nil {
            positions[step.id.value] = index
        }
        // Whether some step declares `dependsOn` (Arazzo 1.1): then steps run by their dependencies, else in
        // list order.
        declaresStepDependencies = steps.contains { $0.dependsOn != nil }
    }

    /// The step with this id (the first, when ids repeat).
    func step(_ id: String) -> ArazzoStep? { positions[id].map { steps[$0] } }

    /// The position of the step with this id.
    func position(of id: String) -> Int? { positions[id] }
}

/// One step.
struct ArazzoStep {
    /// What a step calls.
    enum Target {
        /// `operationId` (maybe `$sourceDescriptions.NAME.ID`).
        case operationID(Located<String>)
        /// `operationPath`: `{$sourceDescriptions.NAME.url}#/paths/~1pets/get`.
        case operationPath(Located<String>)
        /// `workflowId` (maybe `$sourceDescriptions.NAME.ID`).
        case workflow(Located<String>)
    }

    /// `stepId`.
    var id: Located<String>
    /// `description`.
    var description: String?
    /// What it calls; `nil` when none was written (reported).
    var target: Target?
    /// Whether it is an AsyncAPI message step (`channelPath`, `action`, `correlationId`), refused where it is
    /// read: its operation is not looked for.
    var isMessageStep = false
    /// `parameters`.
    var parameters: [ParameterEntry]
    /// `requestBody`.
    var requestBody: RequestBody?
    /// `successCriteria`.
    var successCriteria: [Criterion]
    /// `onSuccess`, `onFailure`.
    var onSuccess: [ActionEntry]
    var onFailure: [ActionEntry]
    /// `outputs`, in the order written.
    var outputs: [(name: Located<String>, value: YAMLNode)]
    /// `dependsOn` (1.1), when written.
    var dependsOn: [Located<String>]?
    /// `timeout` (1.1), milliseconds.
    var timeout: Located<Int>?
    /// The whole step.
    var range: SourceRange
    /// Redocly Respect's `x-security`, when written (it replaces the workflow's).
    var security: [SecurityItem]?

    /// The output with this name.
    func output(_ name: String) -> YAMLNode? { outputs.first { $0.name.value == name }?.value }
}

/// A parameter: `name`, `in`, `value`.
struct Parameter {
    var name: Located<String>
    /// `path`, `query`, `header` or `cookie`; `nil` for a workflow step's inputs.
    var location: Located<String>?
    var value: YAMLNode
    var range: SourceRange
}

/// A parameter as written in a list: itself, or a `reference` to one of `components.parameters` with an
/// optional `value` that overrides the component's.
enum ParameterEntry {
    case parameter(Parameter)
    case reference(Located<String>, value: YAMLNode?)
}

/// `requestBody`.
struct RequestBody {
    /// `contentType`.
    var contentType: Located<String>?
    /// `payload`.
    var payload: YAMLNode?
    /// `replacements`.
    var replacements: [PayloadReplacement]
    /// The `requestBody` key's value.
    var range: SourceRange
}

/// A payload replacement: `value` set at `target`.
struct PayloadReplacement {
    /// A JSON pointer, or (`targetSelectorType: jsonpath`) a JSONPath query.
    var target: Located<String>
    var value: YAMLNode
    /// `targetSelectorType` (1.1): `jsonpointer`, `jsonpath` or `xpath`; nil for the default (a JSON pointer).
    var selectorType: Located<String>?
}

/// A criterion of `successCriteria` or of an action.
struct Criterion {
    /// How `condition` is read.
    enum Kind: String {
        case simple, regex, jsonpath, xpath
    }

    /// `context`: a runtime expression.
    var context: Located<String>?
    /// `condition`.
    var condition: Located<String>
    /// `type` (a name, or an expression type object's `type`).
    var kind: Located<Kind>
    /// The whole criterion.
    var range: SourceRange
}

/// A success or failure action.
struct Action {
    /// `type`.
    enum Kind: String {
        case end, goto, retry
    }

    var name: Located<String>?
    var kind: Located<Kind>
    /// `stepId` of a `goto`.
    var stepID: Located<String>?
    /// `workflowId` of a `goto`.
    var workflowID: Located<String>?
    /// `retryAfter`, seconds.
    var retryAfter: Located<Double>?
    /// `retryLimit`.
    var retryLimit: Located<Int>?
    /// `criteria`.
    var criteria: [Criterion]
    var range: SourceRange
    /// `parameters` (1.1): the inputs of the workflow a `goto` or `retry` runs.
    var parameters: [ParameterEntry] = []
}

/// An action as written in a list: itself, or a `reference` to one of `components`.
enum ActionEntry {
    case action(Action)
    case reference(Located<String>)
}

/// One item of Redocly Respect's `x-security`: a security scheme and the values of its credentials.
struct SecurityItem {
    /// The scheme: one of the step's source description (`schemeName`), or written inline (`scheme`).
    enum Scheme {
        case named(Located<String>)
        /// Nil when it could not be read (reported).
        case inline(APISecurityScheme.Kind?)
    }

    var scheme: Scheme
    /// `values`, by name, in the order written.
    var values: [(name: Located<String>, value: YAMLNode)]
    /// The whole item.
    var range: SourceRange

    /// The value of this name.
    func value(_ name: String) -> YAMLNode? { values.first { $0.name.value == name }?.value }
}
