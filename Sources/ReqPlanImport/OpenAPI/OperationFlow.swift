import ReqPlanPlanner
import ReqPlanSyntax

/// The plan of some operations of a description: a step per operation, and the data that flows between
/// them. A path parameter is read from another step's response when
/// 1. a response's `links` give it (`petId: $response.body#/id`, `$response.header.Location`,
///    `$request.path.petId`), else
/// 2. a `POST` on the collection the parameter is an item of (`POST /pets` for `/pets/{petId}`) answers an
///    object with a field of the parameter's name, or `id` (for a name ending in `id`), else
/// 3. an earlier operation's response has a field of exactly that name (`userId` of a login), else
/// 4. a `GET` on the collection answers a list whose items have such a field (`body[0].id`),
/// and only when the field's type fits the parameter's (a field may be the id alone, `id` of `petId`, and in an
/// envelope: `data`, or the resource's name). A JSON body's top-level field that names a resource by id
/// (`petId`) is read from the `POST` that creates it, or an earlier response with a field of that name. A field the response may leave out is made sure
/// of with `expect: { body: { id: { exists: true } } }` on the step that answers it. A step never reads
/// itself or a step that reads it; a `DELETE` gives nothing, and runs after every other request on its path
/// (`needs`). Otherwise a value is the description's example, or one made from the schema.
struct OperationFlow {
    let description: APIDescription
    let operations: [APIOperation]
    let api: String
    let file: String
    let shownPath: String
    /// What was not converted.
    private(set) var diagnostics: [Diagnostic] = []

    private var plan: ImportedPlan
    private var samples: SampleValues
    /// Per step: path parameter → its value, once resolved.
    private var pathValues: [[String: PlanText]]
    /// Per step: query or header parameter → the value a link gives it.
    private var linkedValues: [[String: PlanText]]
    /// Per step: the steps it reads.
    private var reads: [Set<Int>]
    private var state: [Visit]
    private enum Visit { case new, resolving, done }
    /// The links of the responses each step succeeds with, by the step they target: `(giver, link)`.
    private var linksTo: [Int: [(giver: Int, link: APILink)]] = [:]
    /// The step of each method and path (`POST /pets`), a path's format suffix left out (`/issues.{format}`
    /// is `/issues`, as Redmine's paths are written).
    private var byLabel: [String: Int] = [:]
    /// The steps whose success response declares a top-level field of each name, in order.
    private var givers: [String: [Int]] = [:]
    /// The `POST` that creates each kind of resource, by its collection's last segment in lower case, with
    /// and without a plural `s` (`POST /pets`: `pets` and `pet`).
    private var creates: [String: Int] = [:]

    private var table: APISchemaTable { description.schemas }

    init(description: APIDescription, operations: [APIOperation], api: String, file: String, shownPath: String) {
        self.description = description
        self.operations = operations
        self.api = api
        self.file = file
        self.shownPath = shownPath
        plan = ImportedPlan(origin: shownPath, ranInOrder: false)
        samples = SampleValues(table: description.schemas, inputs: plan.inputs)
        pathValues = Array(repeating: [:], count: operations.count)
        linkedValues = Array(repeating: [:], count: operations.count)
        reads = Array(repeating: [], count: operations.count)
        state = Array(repeating: .new, count: operations.count)
    }

    /// The plan.
    mutating func build() -> ImportedPlan {
        bindBaseURL()
        var boundIDs: Set<String> = []
        for operation in operations {
            var step = ImportedStep(method: operation.method, url: Self.placeholderURL(operation.path))
            // An `operationId` the description gives twice binds its first operation only: the others are
            // plain requests, matched by method and path.
            if let id = operation.id, boundIDs.insert(id).inserted {
                step.name = id
                step.operation = "\(api).\(id)"
            }
            if let summary = operation.summary?.split(whereSeparator: \.isNewline).first {
                step.comments.append(String(summary))
            }
            plan.steps.append(step)
        }
        StepNaming.name(&plan)
        index()
        for index in operations.indices { resolve(index) }
        for index in operations.indices { fill(index) }
        orderDeletes()
        bindCredentials()
        plan.inputs = samples.inputs
        // The values are the description's examples, not a session's secrets: none is made an input
        // (`Credentials.protect`); the credentials are the security schemes'.
        for index in plan.steps.indices {
            HeaderCheck.check(&plan.steps[index], diagnostics: &diagnostics, file: shownPath)
        }
        return plan
    }

    // MARK: - Path parameters from other steps

    /// The indexes `resolve` looks steps up in, each built in one pass: a description of thousands of
    /// operations imports in time linear in them.
    private mutating func index() {
        var byID: [String: Int] = [:]
        for (position, operation) in operations.enumerated() {
            if let id = operation.id, byID[id] == nil { byID[id] = position }
            let label = operation.method + " " + Self.withoutFormat(operation.path)
            if byLabel[label] == nil { byLabel[label] = position }
        }
        for (giver, operation) in operations.enumerated() where operation.method != "DELETE" {
            let responses = operation.responses(matching: [.classOf(2)])
            for link in responses.flatMap(\.links) {
                let target: Int?
                if let id = link.operationID {
                    target = byID[id]
                } else {
                    target = operations.indices.first { link.targets(operations[$0]) }
                }
                if let target { linksTo[target, default: []].append((giver, link)) }
            }
            if operation.method == "POST", let last = operation.path.split(separator: "/").last, !last.contains("{") {
                let name = last.lowercased()
                for key in [name, name.hasSuffix("s") ? String(name.dropLast()) : name] where creates[key] == nil {
                    creates[key] = giver
                }
            }
            if let schema = responses.lazy.compactMap(\.jsonSchema).first {
                for property in samples.properties(of: schema).all where givers[property.name]?.last != giver {
                    givers[property.name, default: []].append(giver)
                }
            }
        }
    }

    private mutating func resolve(_ index: Int) {
        guard state[index] == .new else { return }
        state[index] = .resolving
        defer { state[index] = .done }
        let operation = operations[index]
        let pathNames = operation.pathParameterNames
        for (giver, link) in linksTo[index] ?? [] where giver != index {
            for (written, value) in link.parameters {
                let name = Self.parameterName(written)
                let parameter = operation.parameters.first { $0.name == name }
                let isPath = pathNames.contains(name)
                guard isPath ? pathValues[index][name] == nil : linkedValues[index][name] == nil,
                    isPath || parameter != nil,
                    let text = linkedText(value, from: giver, into: parameter?.schema, for: index)
                else { continue }
                if isPath { pathValues[index][name] = text } else { linkedValues[index][name] = text }
            }
        }
        for name in pathNames where pathValues[index][name] == nil {
            let schema = operation.parameters.first { $0.name == name && $0.location == .path }?.schema
            if let text = namedGiver(of: name, schema: schema, for: index) { pathValues[index][name] = text }
        }
    }

    /// `path.petId` → `petId`.
    private static func parameterName(_ written: String) -> String {
        for place in ["path.", "query.", "header.", "cookie."] where written.hasPrefix(place) {
            return String(written.dropFirst(place.count))
        }
        return written
    }

    /// What a link's value is in the plan, read from the step `giver`, when it can be read there.
    private mutating func linkedText(_ value: APILink.Value, from giver: Int, into schema: APISchema?, for index: Int)
        -> PlanText?
    {
        var expression: String
        switch value {
        case .constant(.string(let text)) where text.hasPrefix("{$") && text.hasSuffix("}"):
            expression = String(text.dropFirst().dropLast())
        case .constant(let constant):
            return SampleValues.text(of: PlanValue(constant))
        case .expression(let text):
            expression = text
        }
        if expression.hasPrefix("$response.body") {
            let pointer = expression.dropFirst("$response.body".count)
            guard pointer.hasPrefix("#/"), let path = Self.components(ofPointer: String(pointer.dropFirst(2)))
            else { return nil }
            return reference(to: path, of: giver, into: schema, for: index, requireDeclared: false)
        }
        if expression.hasPrefix("$response.header.") {
            let name = String(expression.dropFirst("$response.header.".count)).lowercased()
            guard !name.isEmpty, canRead(giver, from: index) else { return nil }
            reads[index].insert(giver)
            return .reference(.step(plan.steps[giver].id, "headers" + DataFlowFinder.component(name)))
        }
        if expression.hasPrefix("$request.path.") {
            let name = String(expression.dropFirst("$request.path.".count))
            guard canRead(giver, from: index), let text = pathValues[giver][name] else { return nil }
            reads[index].formUnion(
                text.references.compactMap { reference in
                    plan.steps.firstIndex { $0.id == reference.step }
                })
            return text
        }
        return nil
    }

    /// The value of `name` from another step's response, by the names rules 2–4 match.
    private mutating func namedGiver(of name: String, schema: APISchema?, for index: Int) -> PlanText? {
        let operation = operations[index]
        let segments = operation.path.split(separator: "/", omittingEmptySubsequences: false)
        guard let position = segments.firstIndex(where: { $0.contains("{\(name)}") }) else { return nil }
        let collection = segments[..<position].joined(separator: "/")
        let fields = Self.idFields(of: name)
        // A response may hold the resource in an envelope: `{ data: { gid } }` (Asana's), or named after it
        // (`{ issue: { id } }` for `/issues`, Redmine's).
        var envelopes: [[PathComponent]] = [[], [.member("data")]]
        if let last = collection.split(separator: "/").last, !last.contains("{") {
            let singular = last.hasSuffix("s") ? String(last.dropLast()) : String(last)
            envelopes.append([.member(singular)])
        }
        if let create = byLabel["POST " + collection] {
            for envelope in envelopes {
                for field in fields {
                    if let text = reference(to: envelope + [.member(field)], of: create, into: schema, for: index) {
                        return text
                    }
                }
            }
        }
        for giver in givers[name] ?? [] {
            guard giver < index else { break }
            guard !operations[giver].pathParameterNames.contains(name) else { continue }
            if let text = reference(to: [.member(name)], of: giver, into: schema, for: index) { return text }
        }
        if let list = byLabel["GET " + collection] {
            for envelope in envelopes {
                for field in fields {
                    let path = envelope + [.index(0), .member(field)]
                    if let text = reference(to: path, of: list, into: schema, for: index) { return text }
                }
            }
        }
        return nil
    }

    /// `path` without a format suffix on its last segment: `/issues.{format}` → `/issues`.
    static func withoutFormat(_ path: String) -> String {
        guard path.hasSuffix("}"), let dot = path.lastIndex(of: "."), let open = path.lastIndex(of: "{"),
            path.index(after: dot) == open, !path[..<dot].hasSuffix("}"), !path[dot...].contains("/")
        else { return path }
        return String(path[..<dot])
    }

    /// The fields that may give a parameter named `name`: itself, and for a name of an id the id alone
    /// (`petId`: `id`; `task_gid`: `gid`; `user-id`: `id`).
    static func idFields(of name: String) -> [String] {
        let lower = name.lowercased()
        guard lower != "id", lower.hasSuffix("id") else { return [name] }
        if let separator = name.lastIndex(where: { $0 == "_" || $0 == "-" }) {
            let last = String(name[name.index(after: separator)...])
            if !last.isEmpty, last.lowercased().hasSuffix("id") { return [name, last] }
        }
        return [name, "id"]
    }

    /// `steps.G.body…` of `path` when `giver` may be read from `index` and its response declares the path
    /// (any path, without `requireDeclared`, when it declares no schema) with a type the parameter takes.
    private mutating func reference(
        to path: [PathComponent], of giver: Int, into schema: APISchema?, for index: Int, requireDeclared: Bool = true
    ) -> PlanText? {
        guard giver != index, operations[giver].method != "DELETE", let flow = flow(of: path, in: giver),
            flow.declared || !requireDeclared, Self.fits(flow.types, into: schema.flatMap { table.types(of: $0) }),
            canRead(giver, from: index)
        else { return nil }
        let text = Self.pathText(path)
        if flow.mayBeAbsent {
            _ = plan.steps[giver].expect.add(
                .checks([PlanValue.Member("exists", .bool(true))]), at: path.first == .index(0) ? "$" + text : text)
        }
        reads[index].insert(giver)
        return .reference(.step(plan.steps[giver].id, "body" + (text.hasPrefix("[") ? text : "." + text)))
    }

    /// Whether `index` may read `giver`: `giver` resolved (not waiting on `index` itself) and not reading
    /// `index`, directly or through others.
    private mutating func canRead(_ giver: Int, from index: Int) -> Bool {
        resolve(giver)
        guard state[giver] == .done else { return false }
        var stack = [giver]
        var seen: Set<Int> = []
        while let next = stack.popLast() {
            if next == index { return false }
            guard seen.insert(next).inserted else { continue }
            stack += reads[next]
        }
        return true
    }

    /// What `path` is in the response `giver` succeeds with: its types, whether it may be absent, whether
    /// the schema declares it; `nil` when a schema there says it is not.
    private func flow(of path: [PathComponent], in giver: Int) -> (
        types: Set<APIType>?, mayBeAbsent: Bool, declared: Bool
    )? {
        let schemas = operations[giver].responses(matching: [.classOf(2)]).compactMap(\.jsonSchema)
        guard let first = schemas.first else { return (nil, true, false) }
        var current = first
        var absent = false
        for component in path {
            switch component {
            case .member(let name):
                guard case .declared(let property, let required) = table.member(name, of: current) else {
                    return nil
                }
                absent = absent || !required
                current = property
            case .index:
                guard let items = table.items(of: current) else { return nil }
                absent = true
                current = items
            case .wildcard:
                return nil
            }
        }
        // A value that may be null is no value to send: not taken (`exists: true` does not make it sure).
        guard !table.isNullable(current) else { return nil }
        return (table.types(of: current), absent, true)
    }

    /// Whether a value of `found` types may be sent where `wanted` ones are, as the checker's RP0809 reads it.
    private static func fits(_ found: Set<APIType>?, into wanted: Set<APIType>?) -> Bool {
        guard let found, let wanted else { return true }
        return found.contains { type in wanted.contains { type.fits($0) || ($0 == .integer && type == .number) } }
    }

    /// A JSON pointer's tokens (`data/0/id`) as path components, `nil` for an empty token.
    private static func components(ofPointer pointer: String) -> [PathComponent]? {
        var components: [PathComponent] = []
        for token in pointer.split(separator: "/", omittingEmptySubsequences: false) {
            let name = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            guard !name.isEmpty else { return nil }
            if let number = Int(name), number >= 0, String(number) == name {
                components.append(.index(number))
            } else {
                components.append(.member(name))
            }
        }
        return components.isEmpty ? nil : components
    }

    /// `data[0].id`, `[0].id`, `['a b']`.
    private static func pathText(_ path: [PathComponent]) -> String {
        var text = ""
        for component in path {
            switch component {
            case .member(let name):
                let part = DataFlowFinder.component(name)
                text += text.isEmpty && part.hasPrefix(".") ? String(part.dropFirst()) : part
            case .index(let number): text += "[\(number)]"
            case .wildcard: text += "[*]"
            }
        }
        return text
    }

    // MARK: - Requests

    /// The step's request: path, query, header and cookie parameters and body.
    private mutating func fill(_ index: Int) {
        let operation = operations[index]
        var step = plan.steps[index]
        var path: [PlanValue.Member] = []
        for name in operation.pathParameterNames {
            let parameter = operation.parameters.first { $0.name == name && $0.location == .path }
            let value =
                pathValues[index][name].map(PlanValue.text)
                ?? samples.value(parameter?.schema, named: name, example: parameter?.example)
            path.append(PlanValue.Member(name, value))
        }
        if step.operation != nil {
            step.pathParameters = path
            step.url = PlanText("")
        } else {
            step.url = Self.url(operation.path, values: path.map { Pair($0.key, SampleValues.text(of: $0.value)) })
        }
        var leftOut: [String] = []
        for parameter in operation.parameters where parameter.location != .path {
            let linked = linkedValues[index][parameter.name]
            guard parameter.required || linked != nil else {
                if parameter.location == .query { leftOut.append(parameter.name) }
                continue
            }
            switch parameter.location {
            case .query:
                for value in queryValues(parameter, linked: linked) { step.query.append(Pair(parameter.name, value)) }
            case .header:
                var value =
                    linked ?? samples.text(parameter.schema, named: parameter.name, example: parameter.example)
                // An example a header cannot carry (a control character) becomes an input to give: the header
                // is required, so leaving it out would not validate.
                if HeaderCheck.problem(name: parameter.name, value: PlanText("")) == nil,
                    HeaderCheck.problem(name: parameter.name, value: value) != nil
                {
                    value = .reference(
                        .input(
                            samples.inputs.input(
                                forSourceVariable: parameter.name, value: nil, secret: false,
                                description: "the header `\(parameter.name)`: the description's example cannot be sent")
                        ))
                }
                step.headers.append(Pair(parameter.name, value))
            case .cookie:
                step.comments.append("not converted: the cookie `\(parameter.name)` it requires")
            case .path:
                break
            }
        }
        if !leftOut.isEmpty {
            step.comments.append(
                "optional query parameters: " + leftOut.prefix(12).joined(separator: ", ")
                    + (leftOut.count > 12 ? ", …" : ""))
        }
        if let body = operation.requestBody { fillBody(body, of: &step, operation: operation, index: index) }
        plan.steps[index] = step
    }

    /// A JSON body's top-level fields that name another resource by id (`petId`, `owner_id`) read from the
    /// step that creates it (`POST /pets`, its response's `id`), or from an earlier response with a field of
    /// that name; the description's example otherwise.
    private mutating func linkedFields(of value: PlanValue, schema: APISchema?, for index: Int) -> PlanValue {
        guard case .object(let members) = value, let schema else { return value }
        let properties = samples.properties(of: schema).all
        var linked = members
        for (position, member) in members.enumerated() {
            let name = member.key
            let lower = name.lowercased()
            guard lower != "id", lower.hasSuffix("id"),
                let property = properties.first(where: { $0.name == name })?.schema
            else { continue }
            var resource = lower.dropLast(2)
            while resource.last == "_" || resource.last == "-" { resource = resource.dropLast() }
            var text: PlanText?
            if let create = creates[String(resource)] {
                text =
                    reference(to: [.member(name)], of: create, into: property, for: index)
                    ?? reference(to: [.member("id")], of: create, into: property, for: index)
            }
            if text == nil {
                for giver in givers[name] ?? [] {
                    guard giver < index else { break }
                    if let found = reference(to: [.member(name)], of: giver, into: property, for: index) {
                        text = found
                        break
                    }
                }
            }
            if let text { linked[position].value = .text(text) }
        }
        return .object(linked)
    }

    /// A query parameter's values: a list's items as repeated parameters.
    private mutating func queryValues(_ parameter: APIParameter, linked: PlanText?) -> [PlanText] {
        if let linked { return [linked] }
        let value = samples.value(parameter.schema, named: parameter.name, example: parameter.example)
        if case .list(let items) = value { return items.map(SampleValues.text(of:)) }
        return [SampleValues.text(of: value)]
    }

    /// The body in the first media type of JSON, a form, multipart, else the first declared.
    private mutating func fillBody(
        _ body: APIRequestBody, of step: inout ImportedStep, operation: APIOperation, index: Int
    ) {
        let form = "application/x-www-form-urlencoded"
        let multipart = "multipart/form-data"
        guard
            let media = body.content.first(where: { $0.isJSON }) ?? body.content.first(where: { $0.type == form })
                ?? body.content.first(where: { $0.type == multipart }) ?? body.content.first
        else { return }
        let value = samples.value(media.schema, named: "body", example: media.examples.first)
        if media.isJSON {
            step.body = .json(linkedFields(of: value, schema: media.schema, for: index))
            return
        }
        if media.type == form || media.type == multipart, case .object(let members) = value {
            let properties = media.schema.map { samples.properties(of: $0).all } ?? []
            if media.type == form {
                step.body = .form(members.map { Pair($0.key, SampleValues.text(of: $0.value)) })
                return
            }
            step.body = .multipart(
                members.map { member in
                    let schema = properties.first { $0.name == member.key }?.schema
                    let format = schema.map { table.resolve($0).format ?? $0.format } ?? nil
                    guard format == "binary" || format == "base64" else {
                        return MultipartPart(name: member.key, value: SampleValues.text(of: member.value))
                    }
                    let input = samples.inputs.input(
                        forSourceVariable: member.key + "_file", value: nil, secret: false,
                        description: "the file sent as the part `\(member.key)`")
                    return MultipartPart(name: member.key, file: .reference(.input(input)))
                })
            return
        }
        step.headers.append(Pair("Content-Type", PlanText(media.type)))
        if media.schema.map({ table.resolve($0).format }) == "binary" || media.type == "application/octet-stream" {
            let input = samples.inputs.input(
                forSourceVariable: "\(step.id)_file", value: nil, secret: false,
                description: "the file `\(operation.label)` sends")
            step.body = .file(.reference(.input(input)))
            return
        }
        step.body = .raw(SampleValues.text(of: value))
    }

    // MARK: - Order, servers and credentials

    /// Each `DELETE` runs after the other requests on its path and below it.
    private mutating func orderDeletes() {
        // The steps by path, sorted: those on a path and below it are one run from the path on.
        let sorted = operations.indices.sorted { (operations[$0].path, $0) < (operations[$1].path, $1) }
        let paths = sorted.map { operations[$0].path }
        for (index, operation) in operations.enumerated() where operation.method == "DELETE" {
            var low = 0
            var high = paths.count
            while low < high {
                let middle = (low + high) / 2
                if paths[middle] < operation.path { low = middle + 1 } else { high = middle }
            }
            var below: [Int] = []
            for position in low..<paths.count {
                let path = paths[position]
                guard path.hasPrefix(operation.path) else { break }
                guard path == operation.path || path.dropFirst(operation.path.count).first == "/" else { continue }
                let other = sorted[position]
                // A `DELETE` of the same path as another is left concurrent: neither is below the other.
                guard other != index, !reads[index].contains(other),
                    operations[other].method != "DELETE" || path != operation.path
                else { continue }
                below.append(other)
            }
            plan.steps[index].needs += below.sorted().map { plan.steps[$0].id }
        }
    }

    /// `defaults.base_url`: the first server, as an input's default; an input to give when it is relative.
    private mutating func bindBaseURL() {
        let server = description.servers.first.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        let absolute = server.map { $0.lowercased().hasPrefix("http://") || $0.lowercased().hasPrefix("https://") }
        let input = samples.inputs.input(
            forSourceVariable: "base_url", value: absolute == true ? server : nil, secret: false,
            description: absolute == true
                ? "where the API is served (the description's first server)"
                : server.map { "where the API is served: the description's server `\($0)` is relative" }
                    ?? "where the API is served: the description names no server")
        plan.baseURL = .reference(.input(input))
    }

    /// `openapi:` with credentials for each security scheme the operations ask for, from inputs.
    private mutating func bindCredentials() {
        var binding = ImportedAPI(name: api, file: file)
        var asked: [String] = []
        for operation in operations {
            for requirement in description.security(of: operation) {
                for scheme in requirement.schemes where !asked.contains(scheme.name) { asked.append(scheme.name) }
            }
        }
        var bearerOnly: [String: PlanText] = [:]
        for name in asked {
            guard let scheme = description.securitySchemes[name], !PlanWriter.isTooLongForAKey(name) else { continue }
            switch credential(for: scheme) {
            case .given(let credential)?: binding.credentials.append((name, credential))
            case .bearerOnRequests(let token)?: bearerOnly[name] = token
            case nil: plan.notes.append("not converted: the security scheme `\(name)` (give `--cert` and `--key`)")
            }
        }
        // A scheme whose flow reqplan cannot run (OAuth 2.0 implicit): a token got elsewhere, sent as `bearer`.
        for (index, operation) in operations.enumerated() where plan.steps[index].auth == nil {
            let first = description.security(of: operation).first?.schemes ?? []
            if let token = first.lazy.compactMap({ bearerOnly[$0.name] }).first {
                plan.steps[index].auth = .bearer(token)
            }
        }
        plan.apis = [binding]
    }

    private enum SchemeCredential {
        case given(ImportedCredential)
        case bearerOnRequests(PlanText)
    }

    /// What a scheme is given (grammar.md §6.9's table), every value an input; `nil` for mutual TLS.
    private mutating func credential(for scheme: APISecurityScheme) -> SchemeCredential? {
        func input(_ suffix: String?, secret: Bool, _ what: String) -> PlanText {
            let name = suffix.map { "\(scheme.name)_\($0)" } ?? scheme.name
            return .reference(
                .input(
                    samples.inputs.input(
                        forSourceVariable: name, value: nil, secret: secret,
                        description: "\(what) of the security scheme `\(scheme.name)`")))
        }
        func client(_ fields: [(String, Bool)]) -> SchemeCredential {
            .given(.fields(fields.map { Pair($0.0, input($0.0, secret: $0.1, "the \($0.0)")) }))
        }
        switch scheme.kind {
        case .apiKey:
            return .given(.text(input(nil, secret: true, "the key")))
        case .http(let kind, _):
            switch kind.lowercased() {
            case "basic", "digest": return client([("username", false), ("password", true)])
            default: return .given(.text(input(nil, secret: true, "the token")))
            }
        case .oauth2(let flows):
            let kinds = Set(flows.map(\.kind))
            if kinds.contains(.clientCredentials) { return client([("client_id", false), ("client_secret", true)]) }
            if kinds.contains(.password) {
                return client([("client_id", false), ("client_secret", true), ("username", false), ("password", true)])
            }
            if kinds.contains(.authorizationCode) { return client([("client_id", false)]) }
            return .bearerOnRequests(input("token", secret: true, "an access token"))
        case .openIDConnect:
            return client([("client_id", false), ("client_secret", true)])
        case .mutualTLS:
            return nil
        }
    }

    // MARK: - URLs

    /// The path with a placeholder per parameter: what names a step without an `operationId`.
    private static func placeholderURL(_ path: String) -> PlanText {
        url(path, values: [])
    }

    /// The path template with each `{name}` replaced by its value (a literal percent-encoded).
    private static func url(_ path: String, values: [Pair]) -> PlanText {
        var pieces: [PlanText.Piece] = []
        var literal = ""
        var rest = path[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            literal += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            rest = rest[rest.index(after: close)...]
            guard let value = values.first(where: { $0.name == name })?.value else {
                pieces.append(.literal(literal))
                literal = ""
                pieces.append(.reference(.input(name)))
                continue
            }
            for piece in value.pieces {
                switch piece {
                case .literal(let text): literal += percentEncoded(text)
                case .reference:
                    if !literal.isEmpty { pieces.append(.literal(literal)) }
                    literal = ""
                    pieces.append(piece)
                }
            }
        }
        literal += rest
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        return PlanText(pieces: pieces)
    }

    /// `text` with every byte but RFC 3986's unreserved ones percent-encoded.
    private static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            let unreserved =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            if unreserved {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars += ["%", hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return encoded
    }
}
