/// A stable diagnostic code such as `RP0101`.
///
/// Codes never change meaning once published; grammar.md lists them all.
/// Ranges: `RP00xx` files and YAML, `RP01xx` plan structure, `RP02xx` expressions,
/// `RP03xx` dependencies, `RP05xx` run errors, `RP06xx` sub-plans, files named in a plan and vars,
/// `RP07xx` polling and suites, `RP08xx` API descriptions, `RP09xx` warnings, `RP10xx` Arazzo workflows,
/// `RP14xx` `reqplan import`.
public struct DiagnosticCode: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The code as printed, such as `RP0101`.
    public let rawValue: String
    /// A short title, used in documentation.
    public let title: String

    private init(_ rawValue: String, _ title: String) {
        self.rawValue = rawValue
        self.title = title
    }

    public var description: String { rawValue }

    public static func == (lhs: DiagnosticCode, rhs: DiagnosticCode) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    public static func < (lhs: DiagnosticCode, rhs: DiagnosticCode) -> Bool { lhs.rawValue < rhs.rawValue }

    // MARK: Files and YAML

    /// The file could not be read.
    public static let unreadableFile = DiagnosticCode("RP0001", "file cannot be read")
    /// libyaml rejected the text.
    public static let yamlSyntax = DiagnosticCode("RP0002", "YAML syntax error")
    /// A mapping has the same key twice.
    public static let duplicateKey = DiagnosticCode("RP0003", "duplicate YAML key")
    /// The file is larger than the size limit.
    public static let fileTooLarge = DiagnosticCode("RP0004", "plan file too large")
    /// Aliases expand the document past the node limit (billion laughs).
    public static let aliasExpansion = DiagnosticCode("RP0005", "alias expansion too large")
    /// A YAML feature plans do not use (complex keys, tags, several documents).
    public static let unsupportedYAML = DiagnosticCode("RP0006", "unsupported YAML construct")
    /// The document is empty or its root is not a mapping.
    public static let notAPlan = DiagnosticCode("RP0007", "document is not a plan")
    /// A YAML or JSON value, or the steps of a plan, nested deeper than the limit (`ParseLimits`).
    public static let nestedTooDeep = DiagnosticCode("RP0008", "nested too deep")
    /// A data file (`DataFile`: CSV or JSON Lines, one row per iteration of `reqplan load`) that cannot be read as
    /// rows: a name that says no format, a CSV quote left open or text after one, a row with more or fewer fields
    /// than the header, an empty or repeated column name, a line that is not a JSON object, no rows at all.
    public static let invalidDataFile = DiagnosticCode("RP0009", "invalid data file")

    // MARK: Structure

    /// A key that is not part of the language at this place.
    public static let unknownKey = DiagnosticCode("RP0101", "unknown key")
    /// A value of the wrong YAML type.
    public static let wrongType = DiagnosticCode("RP0102", "wrong type")
    /// A required key is absent.
    public static let missingKey = DiagnosticCode("RP0103", "missing required key")
    /// Keys that exclude each other (two bodies, two step kinds).
    public static let conflictingKeys = DiagnosticCode("RP0104", "conflicting keys")
    /// A value outside its allowed set or range.
    public static let invalidValue = DiagnosticCode("RP0105", "invalid value")
    /// A step or input name that does not match `[A-Za-z_][A-Za-z0-9_-]*`.
    public static let invalidName = DiagnosticCode("RP0106", "invalid name")
    /// Two steps with one id.
    public static let duplicateStep = DiagnosticCode("RP0107", "duplicate step id")
    /// A duration that is not like `250ms`, `5s`, `2m`.
    public static let invalidDuration = DiagnosticCode("RP0108", "invalid duration")
    /// A status that is not 100–599 or a class `1xx`–`5xx`.
    public static let invalidStatus = DiagnosticCode("RP0109", "invalid status")
    /// An unknown HTTP method.
    public static let invalidMethod = DiagnosticCode("RP0110", "invalid method")
    /// `reqplan:` is missing.
    public static let missingVersion = DiagnosticCode("RP0111", "missing format version")
    /// `reqplan:` names a version this build does not know.
    public static let unsupportedVersion = DiagnosticCode("RP0112", "unsupported format version")
    /// A regular expression that does not compile.
    public static let invalidRegex = DiagnosticCode("RP0113", "invalid regular expression")
    /// A key allowed only on some kinds of step.
    public static let keyNotAllowed = DiagnosticCode("RP0114", "key not allowed on this kind of step")
    /// An empty group, sequence or plan.
    public static let emptyCollection = DiagnosticCode("RP0115", "nothing to run")
    /// An XPath expression given to `xpath()` that does not compile.
    public static let invalidXPath = DiagnosticCode("RP0116", "invalid XPath expression")
    /// A JSONPath query given to `jsonpath()` that does not compile or is not well-typed.
    public static let invalidJSONPath = DiagnosticCode("RP0117", "invalid JSONPath query")
    /// A token endpoint (`oauth2.token_url`) reached over plain `http` on a host other than this machine's: the
    /// client's secret and the tokens would cross the network in the clear (RFC 6749 §3.2 requires TLS).
    public static let insecureTokenEndpoint = DiagnosticCode("RP0118", "token endpoint not over https")
    /// A percentile key of an `slo` item (`pN`) whose N is not a decimal number above 0 and below 100 with at
    /// most 4 decimals (`p100`, `p0`, `pnan`, `p1e3`).
    public static let invalidPercentile = DiagnosticCode("RP0119", "invalid percentile")

    // MARK: Expressions

    /// An expression that does not parse.
    public static let malformedExpression = DiagnosticCode("RP0201", "malformed expression")
    /// A root other than `inputs`, `steps`, `env` or a for_each name.
    public static let unknownRoot = DiagnosticCode("RP0202", "unknown name in expression")
    /// `steps.X` names no step.
    public static let unknownStep = DiagnosticCode("RP0203", "unknown step")
    /// `inputs.X` names no input.
    public static let unknownInput = DiagnosticCode("RP0204", "unknown input")
    /// A function the language does not have.
    public static let unknownFunction = DiagnosticCode("RP0205", "unknown function")
    /// A function called with the wrong number of arguments, or where it means nothing.
    public static let invalidCall = DiagnosticCode("RP0206", "invalid function call")
    /// `env.X` names a variable no input declares.
    public static let undeclaredEnv = DiagnosticCode("RP0207", "undeclared environment variable")
    /// A for_each item name used outside its for_each.
    public static let itemOutOfScope = DiagnosticCode("RP0208", "for_each item used outside its for_each")
    /// `steps.X.field` with a field results do not have.
    public static let unknownField = DiagnosticCode("RP0209", "unknown result field")
    /// An expression where none may appear, or of a type that cannot work there.
    public static let invalidExpression = DiagnosticCode("RP0210", "expression not allowed here")
    /// A reference into a step that cannot be addressed from here (inside another for_each).
    public static let unreachableStep = DiagnosticCode("RP0211", "step not addressable from here")
    /// `item.F` where the item is a row of a data file (`for_each: { file: … }`) whose rows have no field `F`.
    public static let unknownItemField = DiagnosticCode("RP0212", "unknown field of a data file's rows")
    /// `--scenario ID` (of `run` and `load`) names no step of the plan.
    public static let unknownScenario = DiagnosticCode("RP0213", "unknown scenario")

    // MARK: Dependencies

    /// `needs` names no step.
    public static let unknownNeed = DiagnosticCode("RP0301", "needs names a missing step")
    /// Dependencies that form a cycle.
    public static let cycle = DiagnosticCode("RP0302", "dependency cycle")
    /// Plan files that include each other as sub-plans.
    public static let fileCycle = DiagnosticCode("RP0303", "cycle between plan files")
    /// Sub-plans that run sub-plans in a chain longer than the limit (`ParseLimits.maxNesting` files).
    public static let subPlansTooDeep = DiagnosticCode("RP0304", "sub-plans nested too deep")
    /// A plan that takes in more steps from its sub-plans than the limit (`ParseLimits.maxIncludedSteps`).
    public static let subPlansTooLarge = DiagnosticCode("RP0305", "sub-plans too large")

    // MARK: Run errors

    /// An input given on the command line that the plan does not declare, or a bad value.
    public static let invalidInput = DiagnosticCode("RP0501", "invalid input")
    /// A required input without a value.
    public static let missingInput = DiagnosticCode("RP0502", "missing input")
    /// A `run` option or environment variable for cookies, proxies or TLS that cannot be used
    /// (a malformed cookie file, a proxy URL that is not `http://`, a missing or invalid PEM file).
    public static let invalidRunSetting = DiagnosticCode("RP0503", "invalid run setting")
    /// A request could not be sent or its connection failed (refused, reset, TLS).
    public static let requestFailed = DiagnosticCode("RP0510", "request failed")
    /// A request, group, for_each or the plan ran out of time.
    public static let timedOut = DiagnosticCode("RP0511", "timed out")
    /// A response did not meet `expect:`.
    public static let expectationFailed = DiagnosticCode("RP0512", "expectation not met")
    /// An expression failed at run time, or a request could not be built.
    public static let runtimeEvaluation = DiagnosticCode("RP0513", "expression failed at run time")
    /// A response body was larger than the limit.
    public static let responseTooLarge = DiagnosticCode("RP0514", "response too large")
    /// Members or items of a group, sequence or for_each failed.
    public static let membersFailed = DiagnosticCode("RP0515", "members failed")
    /// The run was interrupted, or a scope cancelled the step.
    public static let cancelled = DiagnosticCode("RP0516", "cancelled")
    /// A value that becomes part of a header line (a header, credentials, a multipart part's headers, a
    /// cookie) holds a control character: written literally (`validate`) or computed (`run`).
    public static let controlCharacterInHeader = DiagnosticCode("RP0517", "control character in a header line")
    /// No credentials could be had for a request: its OAuth 2.0 token endpoint failed or refused the grant.
    public static let authorizationFailed = DiagnosticCode("RP0518", "credentials could not be had")
    /// **Load:** a limit of the plan's `slo:` that the figures a load measured miss (or a step it names never
    /// ran): `reqplan load` exits 1.
    public static let objectiveMissed = DiagnosticCode("RP0519", "load objective missed")

    // MARK: Sub-plans, files and vars

    /// A file named literally in a plan (a sub-plan, `body_file`, a multipart `file`) does not exist or
    /// cannot be read.
    public static let fileNotFound = DiagnosticCode("RP0601", "file not found")
    /// A file named literally in a plan is outside the plan's project, or its folder in no project (without
    /// `--allow-files-outside`).
    public static let fileOutsideFolder = DiagnosticCode("RP0602", "file outside the plan's project")
    /// An input given to a sub-plan that it does not declare.
    public static let unknownSubPlanInput = DiagnosticCode("RP0603", "unknown sub-plan input")
    /// An input given to a sub-plan whose value is not of the declared type.
    public static let subPlanInputType = DiagnosticCode("RP0604", "sub-plan input of the wrong type")
    /// A required input of a sub-plan that the step does not give.
    public static let missingSubPlanInput = DiagnosticCode("RP0605", "missing sub-plan input")
    /// `steps.X.outputs.NAME` where the sub-plan declares no output `NAME`.
    public static let unknownSubPlanOutput = DiagnosticCode("RP0606", "unknown sub-plan output")
    /// `vars.X` where the plan declares no var `X`.
    public static let unknownVar = DiagnosticCode("RP0607", "unknown var")

    // MARK: Polling and suites

    /// `response` read outside the `until` of a `poll`.
    public static let responseOutsidePoll = DiagnosticCode("RP0701", "response read outside poll")
    /// `poll` on a method that is not idempotent without `unsafe: true`.
    public static let unsafePoll = DiagnosticCode("RP0702", "polling a method that is not idempotent")
    /// A folder given to `run` or `validate` that holds no plan file.
    public static let noPlans = DiagnosticCode("RP0710", "no plans found")
    /// Reports given to `reqplan report merge` that cannot be merged (not reports, shards missing or repeated).
    public static let unmergeableReports = DiagnosticCode("RP0711", "reports cannot be merged")

    // MARK: API descriptions (`openapi:`)

    /// An OpenAPI document named by `openapi:` that cannot be read as one.
    public static let apiDescriptionUnreadable = DiagnosticCode("RP0801", "API description cannot be loaded")
    /// `operation:` naming no operation of a bound description, or no bound description.
    public static let unknownOperation = DiagnosticCode("RP0802", "unknown operation")
    /// A `method` + `url` under a bound description that matches none of its operations.
    public static let requestNotInAPI = DiagnosticCode("RP0803", "request not in the API description")
    /// A path parameter of the operation not given, or one given that it does not have.
    public static let pathParameter = DiagnosticCode("RP0804", "path parameter missing or unknown")
    /// A required query or header parameter not given.
    public static let missingParameter = DiagnosticCode("RP0805", "missing required parameter")
    /// A literal parameter value that does not fit the parameter's schema (type, enum, pattern).
    public static let parameterValue = DiagnosticCode("RP0806", "parameter value does not fit its schema")
    /// A request body that does not fit the operation's request schema, or a body it does not accept.
    public static let requestBodySchema = DiagnosticCode("RP0807", "request body does not fit its schema")
    /// `steps.X.body…` naming a property the response schema of `X` does not have.
    public static let unknownResponseField = DiagnosticCode("RP0808", "unknown response field")
    /// A value read from a response whose schema type cannot fit where it is used.
    public static let dataFlowType = DiagnosticCode("RP0809", "value of the wrong type for its use")
    /// **Run:** a response that does not fit the schema of its status and content type.
    public static let responseSchema = DiagnosticCode("RP0810", "response does not fit the API description")
    /// Credentials (`credentials:` of an `openapi:` entry) for a security scheme the description does not have,
    /// or in a form its kind does not take.
    public static let unknownSecurityScheme = DiagnosticCode("RP0811", "credentials for no scheme of the description")
    /// **Warning:** a query or header parameter the operation does not declare.
    public static let undeclaredParameter = DiagnosticCode("RP0851", "parameter not in the API description")
    /// **Warning:** a response field not declared by a schema that allows other properties.
    public static let undeclaredResponseField = DiagnosticCode("RP0852", "response field not declared")
    /// **Warning:** a possibly absent or nullable response value used where a value is required.
    public static let possiblyAbsent = DiagnosticCode("RP0853", "value may be absent where one is required")
    /// **Warning:** an `expect.status` the operation does not declare.
    public static let undeclaredStatus = DiagnosticCode("RP0854", "status not in the API description")
    /// **Warning:** an operation whose `security` no credentials of the binding satisfy, sent by a request with
    /// no credentials of its own.
    public static let missingCredentials = DiagnosticCode("RP0855", "operation's security not satisfied")
    /// **Warning:** credentials on a request whose operation says it takes none (`security: []`).
    public static let unaskedCredentials = DiagnosticCode("RP0856", "credentials the operation does not take")
    /// **Warning:** an `oauth2` scope the description's flows do not list, or one the operation needs that the
    /// grant does not ask for.
    public static let unlistedScope = DiagnosticCode("RP0857", "scope not as the description says")

    // MARK: Warnings

    /// An input no expression reads.
    public static let unusedInput = DiagnosticCode("RP0901", "input never referenced")
    /// An `if` whose value is always false.
    public static let neverTrue = DiagnosticCode("RP0902", "condition is never true")
    /// The same step listed twice in `needs`, or a need implied already.
    public static let redundantNeed = DiagnosticCode("RP0903", "redundant need")
    /// An inputs file (or environment) sets a name no plan declares: reported by `validate` with an inputs
    /// file, so only `--strict` fails on it; a run uses the values plans declare and ignores the rest.
    public static let undeclaredInputsFileKey = DiagnosticCode("RP0904", "inputs file sets an undeclared input")
    /// An optional input read from an environment variable that is not set is used in a URL, a header or
    /// `auth`: the request would go with an empty value.
    public static let unsetEnvironmentInput = DiagnosticCode("RP0905", "optional input from an unset variable")
    /// A sub-plan with `slo:`: only the plan given to `reqplan load` has its objectives checked.
    public static let subPlanObjectives = DiagnosticCode("RP0906", "objectives of a sub-plan not checked")
    /// The same limit (a subject and a measure) in two items of `slo:`: both are checked.
    public static let repeatedObjective = DiagnosticCode("RP0907", "objective given twice")
    /// A value given for an input (`--input`) that every row of the data file gives too: each row's value is
    /// used, and the value given never is.
    public static let replacedByDataFile = DiagnosticCode("RP0908", "value replaced by every row of the data file")

    // MARK: Arazzo workflows (arazzo.md)

    /// An `arazzo:` version this build does not read, or a document without `workflows`.
    public static let arazzoVersion = DiagnosticCode("RP1001", "unsupported Arazzo document")
    /// A part of Arazzo reqplan does not run (AsyncAPI sources, message steps, a `goto` back to an earlier
    /// step, …): refused, never skipped.
    public static let arazzoUnsupported = DiagnosticCode("RP1002", "Arazzo feature not supported")
    /// A source description that is not there: an unknown name, a remote URL with no local copy given.
    public static let unknownSourceDescription = DiagnosticCode("RP1003", "unknown source description")
    /// A runtime expression that does not parse, or names a root Arazzo does not have.
    public static let invalidRuntimeExpression = DiagnosticCode("RP1004", "invalid runtime expression")
    /// A runtime expression read where its value does not exist (`$response` in a parameter, `$outputs`
    /// outside a workflow step's outputs).
    public static let expressionOutOfPlace = DiagnosticCode("RP1005", "runtime expression not available here")
    /// `$steps.X`, a `goto` `stepId` or a `dependsOn` entry naming no step of the workflow.
    public static let unknownArazzoStep = DiagnosticCode("RP1006", "unknown step")
    /// `$steps.X.outputs.Y`, `$outputs.Y` or `$workflows.X.outputs.Y` naming no output.
    public static let unknownArazzoOutput = DiagnosticCode("RP1007", "unknown output")
    /// A `workflowId` (of a step, a `goto`, `dependsOn` or `--workflow`) naming no workflow.
    public static let unknownWorkflow = DiagnosticCode("RP1008", "unknown workflow")
    /// A step of a workflow without step `dependsOn` that reads a later step's outputs.
    public static let forwardReference = DiagnosticCode("RP1009", "forward reference in a sequential workflow")
    /// A step output that reads itself (steps and workflows that wait for each other are RP0302).
    public static let arazzoCycle = DiagnosticCode("RP1010", "output reads itself")
    /// A parameter without a valid `in`, or a `reference` to no component.
    public static let invalidArazzoParameter = DiagnosticCode("RP1011", "invalid parameter")
    /// A criterion that does not parse: a simple condition, or a `regex`/`jsonpath`/`xpath` one without
    /// `context`.
    public static let invalidCriterion = DiagnosticCode("RP1012", "invalid criterion")
    /// Two steps, workflows or source descriptions with the same id.
    public static let duplicateArazzoID = DiagnosticCode("RP1013", "duplicate id")
    /// **Warning:** another runner's shorthand (Redocly Respect's `operationId: SOURCE.opId`, Jentic's
    /// arazzo-runner's `operationPath: NAME#/paths/…`), read as the specification's form it stands for; the
    /// diagnostic's fix writes that form.
    public static let otherRunnersShorthand = DiagnosticCode("RP1014", "another runner's shorthand")

    // MARK: Import (`reqplan import`, docs/import.md)

    /// A source `reqplan import` cannot read as its format: a HAR file that is not JSON or not a HAR log, a
    /// curl command line whose quotes are not closed.
    public static let importSourceMalformed = DiagnosticCode("RP1401", "import source cannot be read")
    /// A shell construct whose value only a shell would know: `$(…)`, backticks.
    public static let importShellConstruct = DiagnosticCode("RP1402", "shell construct not supported")
    /// **Warning:** a curl option the importer does not know or does not convert; the command is imported
    /// without it.
    public static let importOptionNotConverted = DiagnosticCode("RP1403", "option not converted")
    /// **Warning:** a setting with no form in a plan (`-k`, `--cacert`, a proxy, a cookie jar): said in a
    /// comment of the plan and here, never dropped silently.
    public static let importSettingNotConverted = DiagnosticCode("RP1404", "setting not converted")
    /// No request to import: no curl command in the file, no entry left in the HAR log.
    public static let importNothing = DiagnosticCode("RP1405", "nothing to import")
    /// A URL that curl would expand into several (`{a,b}`, `[1-3]`) without `-g`/`--globoff`.
    public static let importURLGlob = DiagnosticCode("RP1406", "URL globbing not supported")

    // MARK: Export (`reqplan export arazzo`, docs/import.md)

    /// A construct of the plan with no Arazzo form (a request not bound to an operation, `for_each`, `poll`,
    /// a sub-plan, `if:`, credentials, `retry`, a matcher Arazzo's criteria cannot say): nothing is written.
    public static let exportNoArazzoForm = DiagnosticCode("RP1450", "no Arazzo form")
    /// An expression Arazzo's runtime expressions cannot say (an operator, a function, `vars`, `env`, a
    /// wildcard), or a literal Arazzo would read as one (`$inputs.x` as text).
    public static let exportExpressionNoArazzoForm = DiagnosticCode("RP1451", "no Arazzo runtime expression")

    /// Every code, in order, for documentation.
    public static let all: [DiagnosticCode] = [
        unreadableFile, yamlSyntax, duplicateKey, fileTooLarge, aliasExpansion, unsupportedYAML, notAPlan,
        nestedTooDeep, invalidDataFile,
        unknownKey, wrongType, missingKey, conflictingKeys, invalidValue, invalidName, duplicateStep,
        invalidDuration, invalidStatus, invalidMethod, missingVersion, unsupportedVersion, invalidRegex,
        keyNotAllowed, emptyCollection, invalidXPath, invalidJSONPath, insecureTokenEndpoint, invalidPercentile,
        malformedExpression, unknownRoot, unknownStep, unknownInput, unknownFunction, invalidCall,
        undeclaredEnv, itemOutOfScope, unknownField, invalidExpression, unreachableStep, unknownItemField,
        unknownScenario,
        unknownNeed, cycle, fileCycle, subPlansTooDeep, subPlansTooLarge,
        invalidInput, missingInput, invalidRunSetting, requestFailed, timedOut, expectationFailed, runtimeEvaluation,
        responseTooLarge, membersFailed, cancelled, controlCharacterInHeader, authorizationFailed, objectiveMissed,
        fileNotFound, fileOutsideFolder, unknownSubPlanInput, subPlanInputType, missingSubPlanInput,
        unknownSubPlanOutput, unknownVar,
        responseOutsidePoll, unsafePoll, noPlans, unmergeableReports,
        apiDescriptionUnreadable, unknownOperation, requestNotInAPI, pathParameter, missingParameter,
        parameterValue, requestBodySchema, unknownResponseField, dataFlowType, responseSchema, unknownSecurityScheme,
        undeclaredParameter, undeclaredResponseField, possiblyAbsent, undeclaredStatus, missingCredentials,
        unaskedCredentials, unlistedScope,
        unusedInput, neverTrue, redundantNeed, undeclaredInputsFileKey, unsetEnvironmentInput, subPlanObjectives,
        repeatedObjective, replacedByDataFile,
        arazzoVersion, arazzoUnsupported, unknownSourceDescription, invalidRuntimeExpression, expressionOutOfPlace,
        unknownArazzoStep, unknownArazzoOutput, unknownWorkflow, forwardReference, arazzoCycle,
        invalidArazzoParameter, invalidCriterion, duplicateArazzoID, otherRunnersShorthand,
        importSourceMalformed, importShellConstruct, importOptionNotConverted, importSettingNotConverted,
        importNothing, importURLGlob,
        exportNoArazzoForm, exportExpressionNoArazzoForm,
    ]
}
