import ReqPlanSyntax

extension APIChecker {
    // MARK: Requests

    /// Checks one bound request: its path, query and header parameters, its body and `expect.status`. A step
    /// that succeeds only on a 4xx response is a negative test: what it sends that the description refuses is
    /// a warning, not an error (it is sent to be refused).
    mutating func checkRequest(_ request: RequestSpec, of step: Step, _ bound: BoundOperation) {
        let start = diagnostics.diagnostics.count
        checkRequestParts(request, of: step, bound)
        if let status = Self.clientErrorExpected(by: step) {
            diagnostics.soften(
                since: start, codes: [.missingParameter, .parameterValue, .requestBodySchema, .pathParameter],
                hint: "the step expects status \(status), so it is taken as a negative test: sent as written")
        }
    }

    /// The 4xx status a step succeeds on, when it succeeds only on one: every `expect.status` a 4xx, or a
    /// condition `response.status == 4NN` (an Arazzo criterion `$statusCode == 400`).
    static func clientErrorExpected(by step: Step) -> String? {
        guard let expect = step.expect else { return nil }
        if let statuses = expect.status, !statuses.isEmpty {
            let clientErrors = statuses.filter {
                switch $0.value {
                case .code(let code): (400..<500).contains(code)
                case .classOf(let digit): digit == 4
                }
            }
            return clientErrors.count == statuses.count
                ? clientErrors.map(\.value.description).joined(separator: ", ") : nil
        }
        for condition in expect.conditions {
            var conjuncts = [condition.expression]
            while let next = conjuncts.popLast() {
                if case .binary(.and, let left, let right, _) = next {
                    conjuncts += [left, right]
                    continue
                }
                guard case .binary(.equal, let left, let right, _) = next else { continue }
                for (subject, other) in [(left, right), (right, left)] {
                    if case .access(.variable(let root), let field, _) = subject, root.value == "response",
                        field.value == .member("status"), case .literal(.int(let code), _) = other,
                        (400..<500).contains(code)
                    {
                        return String(code)
                    }
                }
            }
        }
        return nil
    }

    private mutating func checkRequestParts(_ request: RequestSpec, of step: Step, _ bound: BoundOperation) {
        let operation = bound.operation
        let validator = APISchemaValidator(table: bound.schemas)
        let label = "`\(bound.label)`"

        // Path parameters.
        if let reference = request.operation {
            let names = operation.pathParameterNames
            for given in reference.pathParameters {
                guard names.contains(given.name.value) else {
                    var suggestion = Suggestion.replacement(for: given.name.value, in: names)
                    // A name given already is no fix: the path would have it twice.
                    if let candidate = suggestion?.fix?.replacement,
                        reference.pathParameters.contains(where: { $0.name.value == candidate })
                    {
                        suggestion?.fix = nil
                    }
                    diagnostics.error(
                        .pathParameter, "\(label) has no path parameter `\(given.name.value)`", at: given.name.range,
                        hint: suggestion?.hint
                            ?? (names.isEmpty
                                ? "its path `\(operation.path)` has no parameters"
                                : "its path `\(operation.path)` has " + names.map { "`\($0)`" }.joined(separator: ", ")),
                        fix: suggestion?.fix
                    )
                    continue
                }
                let parameter = operation.parameters.first { $0.location == .path && $0.name == given.name.value }
                checkValue(
                    given.value, against: parameter?.schema, required: true, validator,
                    what: "path parameter `\(given.name.value)` of \(label)", code: .parameterValue)
            }
            for name in names where !reference.pathParameters.contains(where: { $0.name.value == name }) {
                diagnostics.error(
                    .pathParameter, "\(label) needs path parameter `\(name)`, which is not given",
                    at: reference.pathKey?.range ?? reference.written.range,
                    hint: "its path is `\(operation.path)`; " + plan.notation.howToGivePathParameter(name))
            }
        }

        // Query parameters.
        let query =
            request.query
            + plan.defaults.query.filter { given in
                !request.query.contains { $0.name.value == given.name.value }
            }
        let declaredQuery = operation.parameters(in: .query)
        for given in request.query {
            guard let parameter = declaredQuery.first(where: { $0.name == given.name.value }) else {
                let suggestion = Suggestion.replacement(for: given.name.value, in: declaredQuery.map(\.name))
                diagnostics.warning(
                    .undeclaredParameter, "\(label) has no query parameter `\(given.name.value)`",
                    at: given.name.range,
                    hint: suggestion?.hint
                        ?? (declaredQuery.isEmpty
                            ? "it declares no query parameters"
                            : "its query parameters are " + declaredQuery.map { "`\($0.name)`" }.joined(separator: ", ")),
                    fix: suggestion?.fix
                )
                continue
            }
            checkParameterValue(
                given.value, parameter, validator, what: "query parameter `\(given.name.value)` of \(label)")
        }
        let at = request.operation?.written.range ?? request.url.range
        for parameter in declaredQuery
        where parameter.required && !query.contains(where: { $0.name.value == parameter.name }) {
            diagnostics.error(
                .missingParameter, "\(label) needs query parameter `\(parameter.name)`, which is not given", at: at,
                hint: "add `query: { \(parameter.name): … }`")
        }

        // Header parameters (RFC 9110 names; Accept, Content-Type and Authorization are described elsewhere).
        let headers = request.headers + plan.defaults.headers
        let ignored: Set<String> = ["accept", "content-type", "authorization"]
        for parameter in operation.parameters(in: .header) where !ignored.contains(parameter.name.lowercased()) {
            guard let given = headers.first(where: { $0.name.value.lowercased() == parameter.name.lowercased() }) else {
                if parameter.required {
                    diagnostics.error(
                        .missingParameter, "\(label) needs header `\(parameter.name)`, which is not given", at: at,
                        hint: "add `headers: { \(parameter.name): … }`")
                }
                continue
            }
            checkParameterValue(
                .template(given.value), parameter, validator, what: "header `\(parameter.name)` of \(label)")
        }

        checkBody(request, bound, validator)
        checkStatuses(step, bound)
    }

    private mutating func checkParameterValue(
        _ value: ValueTemplate, _ parameter: APIParameter, _ validator: APISchemaValidator, what: String
    ) {
        // Query and header values travel as text: a literal is read back as the type its schema wants.
        var value = value
        if case .template(let template) = value, let text = template.literalText {
            value = .literal(Self.typedText(text, for: parameter.schema, validator.table), template.range)
        } else if case .literal(let literal, let range) = value, case .string(let text) = literal {
            value = .literal(Self.typedText(text, for: parameter.schema, validator.table), range)
        }
        if case .list(let items, _) = value {
            let schema = parameter.schema.flatMap { validator.table.items(of: $0) }
            for item in items {
                checkValue(item, against: schema, required: false, validator, what: what, code: .parameterValue)
            }
            return
        }
        checkValue(
            value, against: parameter.schema, required: parameter.required, validator, what: what,
            code: .parameterValue, textual: true)
    }

    /// A parameter's text as the value its schema reads it as: `3` for an integer, `true` for a boolean.
    private static func typedText(_ text: String, for schema: APISchema?, _ table: APISchemaTable) -> Value {
        guard let schema, let types = table.types(of: schema), !types.contains(.string) else { return .string(text) }
        // A list parameter given one value is a list of one: `type=track` is what `["track"]` sends.
        if types == [.array] || types == [.array, .null] {
            return .list([typedText(text, for: table.items(of: schema), table)])
        }
        if types.contains(.integer) || types.contains(.number), let number = Int(text) { return .int(number) }
        if types.contains(.number), let number = Double(text) { return .double(number) }
        if types.contains(.boolean), text == "true" || text == "false" { return .bool(text == "true") }
        // An object or a list travels as its JSON text (a multipart part's default encoding, a parameter
        // with `content: application/json`).
        if types.contains(.object) || types.contains(.array), text.first == "{" || text.first == "[",
            let value = try? Value.parseJSON(bytes: Array(text.utf8))
        {
            return value
        }
        return .string(text)
    }

    // MARK: Bodies

    private mutating func checkBody(_ request: RequestSpec, _ bound: BoundOperation, _ validator: APISchemaValidator) {
        let label = "`\(bound.label)`"
        guard let accepted = bound.operation.requestBody else {
            if let body = request.body {
                diagnostics.error(
                    .requestBodySchema, "\(label) takes no request body, but the request has `\(body.keyName)`",
                    at: body.range ?? request.range, hint: "remove the body, or check the operation")
            }
            return
        }
        guard let body = request.body else {
            if accepted.required {
                diagnostics.error(
                    .requestBodySchema, "\(label) needs a request body, which is not given",
                    at: request.operation?.written.range ?? request.url.range,
                    hint: "it takes " + accepted.content.map { "`\($0.type)`" }.joined(separator: ", "))
            }
            return
        }
        switch body {
        case .json(let value):
            guard let media = accepted.content.first(where: \.isJSON) else {
                diagnostics.error(
                    .requestBodySchema, "\(label) takes no JSON body", at: body.range ?? request.range,
                    hint: "it takes " + accepted.content.map { "`\($0.type)`" }.joined(separator: ", "))
                return
            }
            checkValue(
                value, against: media.schema, required: true, validator, what: "the body of \(label)",
                code: .requestBodySchema)
        case .form(let fields):
            guard let media = accepted.content.first(where: { $0.type.hasPrefix("application/x-www-form-urlencoded") })
            else {
                diagnostics.error(
                    .requestBodySchema, "\(label) takes no form body", at: body.range ?? request.range,
                    hint: "it takes " + accepted.content.map { "`\($0.type)`" }.joined(separator: ", "))
                return
            }
            let object = ValueTemplate.object(
                fields.map { .init(key: $0.name, value: $0.value) }, body.range ?? request.range)
            checkValue(
                object, against: media.schema, required: true, validator, what: "the form of \(label)",
                code: .requestBodySchema, textual: true)
        case .multipart(let parts):
            guard let media = accepted.content.first(where: { $0.type.hasPrefix("multipart/form-data") }) else {
                diagnostics.error(
                    .requestBodySchema, "\(label) takes no multipart body", at: body.range ?? request.range,
                    hint: "it takes " + accepted.content.map { "`\($0.type)`" }.joined(separator: ", "))
                return
            }
            // Text parts are checked as form fields; a file part's bytes are not known before the run, so
            // only its name is (required parts, parts the schema does not have).
            var files: Set<String> = []
            let entries = parts.map { part -> ValueTemplate.Entry in
                switch part.content {
                case .value(let template):
                    let value: ValueTemplate =
                        template.literalText.map { .literal(.string($0), template.range) } ?? .template(template)
                    return .init(key: part.name, value: value)
                case .file(let template):
                    files.insert(part.name.value)
                    return .init(key: part.name, value: .template(template))
                }
            }
            checkValue(
                .object(entries, body.range ?? request.range), against: media.schema, required: true, validator,
                what: "the multipart body of \(label)", code: .requestBodySchema, textual: true, unchecked: files)
        case .text, .file:
            break
        }
    }

    // MARK: Values against schemas

    /// Checks a value the plan writes (a literal, a mapping or list of values, or `${{ }}`) against the
    /// schema of where it goes. A literal is checked whole; a `${{ }}` by the type of what it reads.
    /// - Parameters:
    ///   - textual: the value travels as text (form fields): literals are read as their schema wants.
    ///   - unchecked: keys of a mapping whose values are not known before the run (multipart files): only
    ///     whether the schema has them is checked.
    mutating func checkValue(
        _ value: ValueTemplate, against schema: APISchema?, required: Bool, _ validator: APISchemaValidator,
        what: String, code: DiagnosticCode, pointer: String = "", textual: Bool = false,
        unchecked: Set<String> = []
    ) {
        guard let schema else { return }
        let table = validator.table
        let place = pointer.isEmpty ? what : "`\(pointer)` of \(what)"
        switch value {
        case .literal(let literal, let range):
            var literal = literal
            if textual, case .string(let text) = literal { literal = Self.typedText(text, for: schema, table) }
            if let mismatch = validator.firstMismatch(literal, against: schema) {
                let inner = pointer + mismatch.pointer
                diagnostics.error(
                    code,
                    "\(inner.isEmpty ? what : "`\(inner)` of \(what)") must be \(mismatch.expected), found \(mismatch.found)",
                    at: range, hint: Self.hint(for: mismatch))
            }
        case .template(let template):
            guard let expression = template.singleExpression else {
                checkFlow(
                    FlowType(types: [.string]), into: schema, required: required, table, place: place,
                    at: template.range, code: code, textual: textual)
                return
            }
            guard let flow = flowType(of: expression) else { return }
            checkFlow(
                flow, into: schema, required: required, table, place: place, at: template.range, code: code,
                textual: textual)
        case .list(let items, let range):
            if let types = table.types(of: schema), !types.contains(.array) {
                diagnostics.error(
                    code, "\(place) must be \(APISchemaValidator.describe(types)), found a list", at: range)
                return
            }
            let itemSchema = table.items(of: schema)
            for (index, item) in items.enumerated() {
                checkValue(
                    item, against: itemSchema, required: true, validator, what: what, code: code,
                    pointer: pointer + "/\(index)", textual: textual)
            }
        case .object(let entries, let range):
            if let types = table.types(of: schema), !types.contains(.object) {
                diagnostics.error(
                    code, "\(place) must be \(APISchemaValidator.describe(types)), found a mapping", at: range)
                return
            }
            let alternatives = table.alternatives(of: schema)
            guard alternatives.count == 1, let only = alternatives.first else {
                // oneOf/anyOf of objects: decidable only for a value written whole.
                if let literal = value.literalValue, let mismatch = validator.firstMismatch(literal, against: schema) {
                    diagnostics.error(
                        code, "\(place) does not fit: \(mismatch)", at: range, hint: Self.hint(for: mismatch))
                }
                return
            }
            let parts = table.flattened(only)
            var required: Set<String> = []
            var declared: [String] = []
            var forbidsOthers = false
            for part in parts {
                required.formUnion(part.required)
                declared += part.properties.map(\.name).filter { !declared.contains($0) }
                if case .forbidden = part.additionalProperties { forbidsOthers = true }
            }
            for name in required.sorted() where !entries.contains(where: { $0.key.value == name }) {
                diagnostics.error(
                    code, "\(place) needs property `\(name)`, which is not given", at: range,
                    hint: "the schema requires " + required.sorted().map { "`\($0)`" }.joined(separator: ", "))
            }
            for entry in entries {
                let inner = pointer + "/" + APISchemaValidator.escape(entry.key.value)
                let propertySchema = parts.lazy.compactMap { $0.property(entry.key.value) }.first
                if unchecked.contains(entry.key.value), propertySchema != nil || !forbidsOthers {
                    continue
                } else if let propertySchema {
                    checkValue(
                        entry.value, against: propertySchema, required: required.contains(entry.key.value),
                        validator, what: what, code: code, pointer: inner, textual: textual)
                } else if forbidsOthers {
                    let suggestion = Suggestion.replacement(for: entry.key.value, in: declared)
                    diagnostics.error(
                        code, "\(place) has no property `\(entry.key.value)`", at: entry.key.range,
                        hint: suggestion?.hint
                            ?? "the schema allows only " + declared.map { "`\($0)`" }.joined(separator: ", "),
                        fix: suggestion?.fix)
                } else if let additional = parts.lazy.compactMap({ part -> APISchema? in
                    if case .schema(let schema) = part.additionalProperties { return schema }
                    return nil
                }).first {
                    checkValue(
                        entry.value, against: additional, required: false, validator, what: what, code: code,
                        pointer: inner, textual: textual)
                }
            }
            // Alternatives inside `allOf` parts (a 3.1 type list next to an `anyOf` becomes such a part):
            // decidable, as at the top, for a value written whole.
            if !textual, let literal = value.literalValue,
                let mismatch = parts.dropFirst().lazy.filter({ !$0.anyOf.isEmpty || !$0.oneOf.isEmpty })
                    .compactMap({ validator.firstMismatch(literal, against: $0) }).first
            {
                diagnostics.error(
                    code, "\(place) does not fit: \(mismatch)", at: range, hint: Self.hint(for: mismatch))
            }
        }
    }

    /// A value read from a response (or an input) used where `schema` is wanted.
    private mutating func checkFlow(
        _ flow: FlowType, into schema: APISchema, required: Bool, _ table: APISchemaTable, place: String,
        at range: SourceRange, code: DiagnosticCode, textual: Bool = false
    ) {
        guard let wanted = table.types(of: schema), let found = flow.types else { return }
        let fits = found.contains { type in wanted.contains { type.fits($0) || ($0 == .integer && type == .number) } }
        // A parameter travels as text: a string given as an input (text on the command line) may read as
        // the number or boolean wanted (`true`, `3`), or as a list of one (`tags=dog`). One a response
        // declares a string stays a mistake.
        if !fits, textual, flow.schema == nil, found == [.string],
            wanted.isSubset(of: [.integer, .number, .boolean, .null, .array])
        {
            diagnostics.warning(
                code,
                "\(place) must be \(APISchemaValidator.describe(wanted)), but this is a string, sent as its text",
                at: range,
                hint: "the text must read as \(APISchemaValidator.describe(wanted)); give a value of that type")
            return
        }
        if !fits {
            diagnostics.error(
                flow.schema == nil ? code : .dataFlowType,
                "\(place) must be \(APISchemaValidator.describe(wanted)), but this is \(APISchemaValidator.describe(found))",
                at: range,
                hint: found.contains(.object) || found.contains(.array)
                    ? "read a field of it (`…body.x.id`) rather than the whole value" : nil)
            return
        }
        if required, let reason = flow.mayBeAbsent, !wanted.contains(.null) {
            diagnostics.warning(
                .possiblyAbsent, "\(place) is required, but the value given may be absent: \(reason)", at: range,
                hint: plan.notation.possiblyAbsentHint,
                fix: plan.notation.writesFallbacks
                    ? plan.source.text(onOneLine: range).flatMap(Diagnostic.Fix.defaultFallback(replacing:)) : nil)
        }
    }

    private static func hint(for mismatch: APISchemaMismatch) -> String? {
        mismatch.expected.hasPrefix("required property") ? "add it to the value" : nil
    }

    // MARK: Statuses

    private mutating func checkStatuses(_ step: Step, _ bound: BoundOperation) {
        guard let statuses = step.expect?.status else { return }
        let declared = bound.operation.responses.compactMap(\.status)
        // A status placed where `poll:` is was not written: the poll accepts any status until its condition
        // holds (an Arazzo `retry`), so an undeclared one says nothing about the plan.
        let implied = { (status: Located<StatusPattern>) in step.poll?.range == status.range }
        for status in statuses where !implied(status) && !declared.contains(where: { status.value.overlaps($0) }) {
            diagnostics.warning(
                .undeclaredStatus, "`\(bound.label)` does not declare status \(status.value)", at: status.range,
                hint: declared.isEmpty
                    ? "it declares only a `default` response"
                    : "it declares " + declared.map { "`\($0)`" }.joined(separator: ", "))
        }
    }
}

extension RequestBody {
    /// Where the body was written, when it can be told.
    var range: SourceRange? {
        switch self {
        case .json(let value): value.range
        case .form(let fields): fields.first?.name.range
        case .multipart(let parts): parts.first?.name.range
        case .text(let template), .file(let template): template.range
        }
    }
}
