import ReqPlanSyntax

/// Writes an `ImportedPlan` as plan text (grammar.md §4–§6) a person reads and `reqplan validate --strict`
/// accepts: the most used origin as the input `base_url` (others as `base_url_2`, …), headers every request
/// sends as `defaults.headers`, the same credentials of every request as `defaults.auth`, the source's order
/// kept with a `needs` of the request before each one that does not read that request already, and comments above a step saying what was not
/// converted and where each reference's value was found.
public enum PlanWriter {
    /// The longest key written (in characters, as YAML counts them, quotes and escapes included): libyaml reads
    /// a key of a mapping written `key: value` only up to 1,024 characters. What would need a longer one is left
    /// out before the plan is written (`HeaderCheck`), or, in a JSON body, written as `body:`.
    static let maxKeyLength = 1_000

    /// Whether `name`, written as a key (quoted and escaped as YAML needs), is longer than `maxKeyLength`.
    static func isTooLongForAKey(_ name: String) -> Bool {
        name.unicodeScalars.count > maxKeyLength / 6 && YAMLText.scalar(name).unicodeScalars.count > maxKeyLength
    }

    /// The plan text of `plan`, whose steps have their ids (`StepNaming`).
    public static func text(of plan: ImportedPlan, format: String) -> String {
        var plan = plan
        let origins = OriginInputs(plan: &plan)
        var out = Lines()
        let count = plan.steps.count
        out.comment(
            "Written by `reqplan import \(format)` from \(plan.origin): \(count) request\(count == 1 ? "" : "s").")
        for note in plan.notes { out.comment(note) }
        out.line("reqplan: 1")
        let defaults = sharedDefaults(&plan)
        // Inputs a credential made that a header then replaced (`-u` and `-H 'Authorization: …'`) are read by nothing.
        var read = Set(plan.steps.flatMap(allReferences(of:)).map(\.expression))
        read.formUnion(defaults.headers.flatMap(\.value.references).map(\.expression))
        if let auth = defaults.auth { read.formUnion(references(of: auth).map(\.expression)) }
        if origins.primary != nil { read.insert("inputs.\(origins.primaryInput)") }
        read.formUnion((plan.baseURL?.references ?? []).map(\.expression))
        for api in plan.apis {
            for (_, credential) in api.credentials {
                switch credential {
                case .text(let text): read.formUnion(text.references.map(\.expression))
                case .fields(let fields): read.formUnion(fields.flatMap(\.value.references).map(\.expression))
                }
            }
        }
        let inputs = plan.inputs.inputs.filter { read.contains("inputs.\($0.name)") }
        if !inputs.isEmpty {
            out.line("inputs:")
            for input in inputs.filter({ $0.name.hasPrefix("base_url") })
                + inputs.filter({ !$0.name.hasPrefix("base_url") })
            {
                out.line("  \(input.name):")
                if let value = input.defaultValue { out.line("    default: \(YAMLText.quoted(value))") }
                if let variable = input.environment { out.line("    env: \(variable)") }
                if input.secret { out.line("    secret: true") }
                if input.defaultValue == nil && (input.environment != nil || !input.secret) {
                    out.line("    required: true")
                }
                if let description = input.description {
                    out.line("    description: \(YAMLText.quoted(description))")
                }
            }
        }
        write(plan.apis, to: &out)
        let baseURL = origins.primary != nil ? .reference(.input(origins.primaryInput)) : plan.baseURL
        if baseURL != nil || !defaults.headers.isEmpty || defaults.auth != nil {
            out.line("defaults:")
            if let baseURL { out.line("  base_url: \(text(baseURL))") }
            if !defaults.headers.isEmpty {
                out.line("  headers:")
                for header in defaults.headers {
                    out.line("    \(YAMLText.scalar(header.name)): \(text(header.value))")
                }
            }
            if let auth = defaults.auth { write(auth, indent: 2, to: &out) }
        }
        out.line("steps:")
        for (index, step) in plan.steps.enumerated() {
            for comment in step.comments { out.comment(comment, indent: 2) }
            out.line("  \(step.id):")
            let reads = Set(allReferences(of: step).compactMap(\.step))
            // The source's order: after the request before it, unless it reads that request already.
            if plan.ranInOrder, index > 0, !reads.contains(plan.steps[index - 1].id) {
                out.line("    needs: \(plan.steps[index - 1].id)")
            } else if !step.needs.isEmpty {
                out.line("    needs: [\(step.needs.joined(separator: ", "))]")
            }
            write(step, to: &out)
        }
        return out.text
    }

    // MARK: - Steps

    private static func write(_ step: ImportedStep, to out: inout Lines) {
        out.line("    request:")
        if let operation = step.operation {
            out.line("      operation: \(YAMLText.scalar(operation))")
            if !step.pathParameters.isEmpty {
                out.line("      path:")
                for parameter in step.pathParameters {
                    out.line("        \(YAMLText.scalar(parameter.key)): \(inline(parameter.value) ?? "null")")
                }
            }
        } else {
            if step.method != "GET" { out.line("      method: \(step.method)") }
            out.line("      url: \(text(step.url))")
        }
        if !step.query.isEmpty {
            out.line("      query:")
            write(grouped(step.query), indent: 8, to: &out)
        }
        let headers = merged(step.headers)
        if !headers.isEmpty {
            out.line("      headers:")
            for header in headers { out.line("        \(YAMLText.scalar(header.name)): \(text(header.value))") }
        }
        switch step.body {
        case nil: break
        case .json(let value)?:
            if value.hasExpressionKey {
                out.line("      body: \(YAMLText.quoted(value.jsonTemplate))")
            } else {
                if let inline = inline(value) {
                    out.line("      json: " + inline)
                } else {
                    out.line("      json:")
                    writeBlock(value, indent: 8, to: &out)
                }
            }
        case .form(let fields)?:
            out.line("      form:")
            write(grouped(fields), indent: 8, to: &out)
        case .multipart(let parts)?:
            out.line("      multipart:")
            for part in parts { write(part, to: &out) }
        case .raw(let body)?:
            out.line("      body: \(text(body))")
        case .file(let path)?:
            out.line("      body_file: \(text(path))")
        }
        if let auth = step.auth { write(auth, indent: 6, to: &out) }
        if let follow = step.followRedirects { out.line("      follow_redirects: \(follow)") }
        if let timeout = step.timeout { out.line("    timeout: \(timeout)") }
        write(step.expect, to: &out)
    }

    /// `openapi:`: each description bound, with its credentials.
    private static func write(_ apis: [ImportedAPI], to out: inout Lines) {
        guard !apis.isEmpty else { return }
        out.line("openapi:")
        for api in apis {
            guard !api.credentials.isEmpty else {
                out.line("  \(api.name): \(YAMLText.scalar(api.file))")
                continue
            }
            out.line("  \(api.name):")
            out.line("    file: \(YAMLText.scalar(api.file))")
            out.line("    credentials:")
            for (scheme, credential) in api.credentials {
                switch credential {
                case .text(let value): out.line("      \(YAMLText.scalar(scheme)): \(text(value))")
                case .fields(let fields):
                    out.line("      \(YAMLText.scalar(scheme)):")
                    for field in fields { out.line("        \(YAMLText.scalar(field.name)): \(text(field.value))") }
                }
            }
        }
    }

    private static func write(_ expect: ImportedExpect, to out: inout Lines) {
        guard !expect.isEmpty else { return }
        out.line("    expect:")
        if expect.status.count == 1, let status = expect.status.first {
            out.line("      status: \(status)")
        } else if !expect.status.isEmpty {
            out.line("      status: [" + expect.status.map(String.init).joined(separator: ", ") + "]")
        }
        let groups: [(String, [(String, ImportedMatcher)])] = [
            ("headers", expect.headers.map { ($0.name, $0.matcher) }),
            ("body", expect.body.map { ($0.path, $0.matcher) }),
        ]
        for (key, checks) in groups where !checks.isEmpty {
            out.line("      \(key):")
            for (name, matcher) in checks {
                let value: PlanValue
                switch matcher {
                case .equals(let equal):
                    // A mapping would read as checks: `equals:` says it is a value.
                    if case .object = equal {
                        value = .object([PlanValue.Member("equals", equal)])
                    } else {
                        value = equal
                    }
                case .checks(let members): value = .object(members)
                }
                if let inline = inline(value) {
                    out.line("        \(YAMLText.scalar(name)): " + inline)
                } else {
                    out.line("        \(YAMLText.scalar(name)):")
                    writeBlock(value, indent: 10, to: &out)
                }
            }
        }
    }

    private static func write(_ part: MultipartPart, to out: inout Lines) {
        let name = YAMLText.scalar(part.name)
        if let value = part.value, part.contentType == nil {
            out.line("        \(name): \(text(value))")
            return
        }
        out.line("        \(name):")
        if let value = part.value { out.line("          value: \(text(value))") }
        if let file = part.file { out.line("          file: \(text(file))") }
        if let type = part.contentType { out.line("          content_type: \(text(PlanText(type)))") }
        if let filename = part.filename { out.line("          filename: \(text(PlanText(filename)))") }
    }

    private static func write(_ auth: ImportedAuth, indent: Int, to out: inout Lines) {
        let pad = String(repeating: " ", count: indent)
        out.line(pad + "auth:")
        switch auth {
        case .basic(let username, let password):
            out.line(pad + "  basic:")
            out.line(pad + "    username: \(text(username))")
            out.line(pad + "    password: \(text(password))")
        case .bearer(let token):
            out.line(pad + "  bearer: \(text(token))")
        case .digest(let username, let password):
            out.line(pad + "  digest:")
            out.line(pad + "    username: \(text(username))")
            out.line(pad + "    password: \(text(password))")
        case .scheme(let scheme, let fields):
            out.line(pad + "  \(scheme):")
            for field in fields { out.line(pad + "    \(YAMLText.scalar(field.name)): \(text(field.value))") }
        }
    }

    /// Query or form fields: a name given several times is one list (`tag: [a, b]`).
    private static func grouped(_ pairs: [Pair]) -> [(name: String, values: [PlanText])] {
        var result: [(name: String, values: [PlanText])] = []
        for pair in pairs {
            if let index = result.firstIndex(where: { $0.name == pair.name }) {
                result[index].values.append(pair.value)
            } else {
                result.append((pair.name, [pair.value]))
            }
        }
        return result
    }

    private static func write(_ fields: [(name: String, values: [PlanText])], indent: Int, to out: inout Lines) {
        let pad = String(repeating: " ", count: indent)
        for field in fields {
            let key = YAMLText.scalar(field.name)
            if field.values.count == 1, let value = field.values.first {
                out.line("\(pad)\(key): \(text(value))")
            } else {
                out.line("\(pad)\(key):")
                for value in field.values { out.line("\(pad)  - \(text(value))") }
            }
        }
    }

    /// Headers of one request, a name given twice (ignoring case) once: `Cookie` values joined by `; `, others
    /// by `, ` (RFC 9110 §5.3), as a plan cannot write a header twice.
    private static func merged(_ headers: [Pair]) -> [Pair] {
        var result: [Pair] = []
        for header in headers {
            if let index = result.firstIndex(where: { $0.name.lowercased() == header.name.lowercased() }) {
                let separator = header.name.lowercased() == "cookie" ? "; " : ", "
                result[index].value = result[index].value + PlanText(separator) + header.value
            } else {
                result.append(header)
            }
        }
        return result
    }

    // MARK: - Values

    /// A text value as a YAML scalar of the language: a template, quoted as YAML needs.
    static func text(_ value: PlanText) -> String {
        YAMLText.scalar(value.templateText)
    }

    /// A scalar or an empty container as it is written on its key's line; `nil` for a list or object to write
    /// as a block below.
    private static func inline(_ value: PlanValue) -> String? {
        switch value {
        case .list(let items) where !items.isEmpty: nil
        case .object(let members) where !members.isEmpty: nil
        default: scalarText(value)
        }
    }

    /// A list or object as YAML block lines, without recursion (a JSON body may nest 512 levels).
    private static func writeBlock(_ value: PlanValue, indent: Int, to out: inout Lines) {
        enum Work {
            /// A list or object at `indent`; its first line starts with `lead` (`- ` of the list it is in) when
            /// there is one.
            case container(PlanValue, indent: Int, lead: String?)
            case line(String)
        }
        var work: [Work] = [.container(value, indent: indent, lead: nil)]
        while let next = work.popLast() {
            switch next {
            case .line(let line): out.line(line)
            case .container(let container, let indent, let lead):
                let pad = String(repeating: " ", count: indent)
                var items: [Work] = []
                let entries: [(String, PlanValue)]
                switch container {
                case .list(let elements): entries = elements.map { ("- ", $0) }
                case .object(let members): entries = members.map { (YAMLText.scalar($0.key) + ":", $0.value) }
                default: entries = []
                }
                for (key, element) in entries {
                    let start = items.isEmpty ? (lead ?? pad) : pad
                    switch element {
                    case .object(let inner) where !inner.isEmpty && key == "- ":
                        // `- name: value`: the object's first key on the list item's line.
                        items.append(.container(element, indent: indent + 2, lead: start + "- "))
                    case .list(let inner) where !inner.isEmpty:
                        items.append(.line(start + key.trimmingSuffixSpace()))
                        items.append(.container(element, indent: indent + 2, lead: nil))
                    case .object(let inner) where !inner.isEmpty:
                        items.append(.line(start + key.trimmingSuffixSpace()))
                        items.append(.container(element, indent: indent + 2, lead: nil))
                    default:
                        let separator = key.hasSuffix(" ") ? "" : " "
                        items.append(.line(start + key + separator + scalarText(element)))
                    }
                }
                work.append(contentsOf: items.reversed())
            }
        }
    }

    private static func scalarText(_ value: PlanValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .number(let digits): digits
        case .text(let text): Self.text(text)
        case .list: "[]"
        case .object: "{}"
        }
    }

    // MARK: - Shared settings

    private static func sharedDefaults(_ plan: inout ImportedPlan) -> (headers: [Pair], auth: ImportedAuth?) {
        guard plan.steps.count >= 2, let first = plan.steps.first else { return ([], nil) }
        var shared: [Pair] = []
        for header in merged(first.headers) where header.value.references.allSatisfy({ $0.step == nil }) {
            let name = header.name.lowercased()
            let everywhere = plan.steps.allSatisfy { step in
                merged(step.headers).contains { $0.name.lowercased() == name && $0.value == header.value }
            }
            if everywhere { shared.append(header) }
        }
        let names = Set(shared.map { $0.name.lowercased() })
        for index in plan.steps.indices {
            plan.steps[index].headers.removeAll { names.contains($0.name.lowercased()) }
        }
        var auth: ImportedAuth?
        if let candidate = first.auth, !names.contains("authorization"),
            plan.steps.allSatisfy({ $0.auth == candidate }),
            references(of: candidate).allSatisfy({ $0.step == nil })
        {
            auth = candidate
            for index in plan.steps.indices { plan.steps[index].auth = nil }
        }
        return (shared, auth)
    }

    private static func references(of auth: ImportedAuth) -> [Reference] {
        switch auth {
        case .basic(let username, let password), .digest(let username, let password):
            username.references + password.references
        case .bearer(let token): token.references
        case .scheme(_, let fields): fields.flatMap(\.value.references)
        }
    }

    /// Every reference a step writes, in its URL, query, headers, body and credentials.
    static func allReferences(of step: ImportedStep) -> [Reference] {
        var found =
            step.url.references + PlanValue.object(step.pathParameters).references
            + step.query.flatMap(\.value.references) + step.headers.flatMap(\.value.references)
        if let auth = step.auth { found += references(of: auth) }
        switch step.body {
        case nil: break
        case .json(let value)?: found += value.references
        case .form(let fields)?: found += fields.flatMap(\.value.references)
        case .multipart(let parts)?:
            found += parts.flatMap { ($0.value?.references ?? []) + ($0.file?.references ?? []) }
        case .raw(let text)?, .file(let text)?: found += text.references
        }
        for matcher in step.expect.headers.map(\.matcher) + step.expect.body.map(\.matcher) {
            switch matcher {
            case .equals(let value): found += value.references
            case .checks(let members): found += PlanValue.object(members).references
            }
        }
        return found
    }
}

/// The lines of the plan being written.
struct Lines {
    private(set) var text = ""

    mutating func line(_ line: String) {
        text += line + "\n"
    }

    mutating func comment(_ comment: String, indent: Int = 0) {
        text +=
            String(repeating: " ", count: indent) + (comment.isEmpty ? "#" : "# " + YAMLText.comment(comment)) + "\n"
    }
}

extension String {
    fileprivate func trimmingSuffixSpace() -> String {
        hasSuffix(" ") ? String(dropLast()) : self
    }
}

extension PlanValue {
    /// Every reference in the value's strings.
    var references: [Reference] {
        var found: [Reference] = []
        var pending = [self]
        while let value = pending.popLast() {
            switch value {
            case .text(let text): found += text.references
            case .list(let items): pending += items
            case .object(let members): pending += members.map(\.value)
            default: break
            }
        }
        return found
    }

    /// Whether a key holds `${{`, which `json:` cannot write (RP0210), or is longer than a YAML key may be
    /// (`PlanWriter.maxKeyLength`): such a body is written as `body:`.
    var hasExpressionKey: Bool {
        var pending = [self]
        while let value = pending.popLast() {
            switch value {
            case .list(let items): pending += items
            case .object(let members):
                if members.contains(where: {
                    $0.key.contains("${{") || PlanWriter.isTooLongForAKey($0.key)
                }) {
                    return true
                }
                pending += members.map(\.value)
            default: break
            }
        }
        return false
    }

    /// The value as JSON text in a `body:` template: literal `${{` escaped, a string that is one reference
    /// written `${{ json(…) }}`, references inside strings interpolated.
    var jsonTemplate: String {
        switch self {
        case .null: return "null"
        case .bool(let flag): return "\(flag)"
        case .number(let digits): return digits
        case .text(let text):
            if text.pieces.count == 1, case .reference(let reference)? = text.pieces.first {
                return "${{ json(\(reference.expression)) }}"
            }
            var pieces: [PlanText.Piece] = []
            for piece in text.pieces {
                switch piece {
                case .literal(let part):
                    pieces.append(.literal(String(Value.string(part).jsonText().dropFirst().dropLast())))
                case .reference: pieces.append(piece)
                }
            }
            return "\"" + PlanText(pieces: pieces).templateText + "\""
        case .list(let items): return "[" + items.map(\.jsonTemplate).joined(separator: ",") + "]"
        case .object(let members):
            let fields = members.map { member in
                PlanText(Value.string(member.key).jsonText()).templateText + ":" + member.value.jsonTemplate
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
    }
}
