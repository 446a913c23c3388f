import Foundation
import ReqPlanSyntax

/// A request step's operation in a bound API description.
public struct BoundOperation: Sendable {
    /// The `openapi:` entry's name.
    public var api: String
    /// The operation.
    public var operation: APIOperation
    /// The description's named schemas, for the response check.
    public var schemas: APISchemaTable

    /// `petstore.showPetById`, or `petstore: GET /pets/{petId}` for an operation without an id.
    public var label: String {
        operation.id.map { "\(api).\($0)" } ?? "\(api): \(operation.label)"
    }
}

/// An API description loaded for an `openapi:` entry.
struct LoadedAPI {
    var binding: APIBinding
    var description: APIDescription
}

/// Checks a plan against the API descriptions it binds (`openapi:`), before anything runs: each request's
/// operation (named by `operation:` or matched from `method` + `url`), its parameters and literal body,
/// and the data flow: every `steps.X.body…` a plan reads against the response schema of `X`, typed
/// onward to where it is used. Fills in the method and URL of `operation:` requests.
struct APIChecker {
    let plan: Plan
    let apis: [String: LoadedAPI]
    /// The types of the outputs of the plan's `plan` steps (as their own files' checks found them).
    let subPlanOutputs: [String: [String: FlowType]]
    var diagnostics: DiagnosticCollector
    /// Step id → its operation.
    var bound: [String: BoundOperation] = [:]
    /// Steps by id (the plan's own, members included).
    let steps: [String: Step]
    /// Step id → the `auth` its operation's security gives it (`credentials:` of its `openapi:` entry).
    var credentials: [String: (auth: Located<RequestAuth>, keys: [APIKeyAuth])] = [:]
    /// References already walked (reported once however often they are typed).
    var walked: [SourceRange: FlowType?] = [:]

    init(plan: Plan, apis: [String: LoadedAPI], subPlanOutputs: [String: [String: FlowType]] = [:]) {
        self.plan = plan
        self.apis = apis
        self.subPlanOutputs = subPlanOutputs
        self.diagnostics = DiagnosticCollector(file: plan.source.path)
        var steps: [String: Step] = [:]
        for step in plan.allSteps where steps[step.id.value] == nil { steps[step.id.value] = step }
        self.steps = steps
    }

    /// Checks `plan` against `apis` (by `openapi:` name).
    /// - Returns: the plan with the method and URL of its `operation:` requests filled in, every
    ///   diagnostic, and each bound step's operation.
    /// - Parameter subPlanOutputs: the types of the outputs of the plan's `plan` steps, by step id.
    /// - Returns: also the types of the plan's own outputs, where they can be told.
    static func check(_ plan: Plan, apis: [String: LoadedAPI], subPlanOutputs: [String: [String: FlowType]] = [:])
        -> (
            plan: Plan, diagnostics: [Diagnostic], operations: [String: BoundOperation], outputs: [String: FlowType]
        )
    {
        var checker = APIChecker(plan: plan, apis: apis, subPlanOutputs: subPlanOutputs)
        for step in plan.allSteps {
            guard let request = step.request else { continue }
            if let bound = checker.bind(request) {
                checker.bound[step.id.value] = bound
            }
        }
        checker.readBoundOperationsInFull()
        for step in plan.allSteps {
            guard let request = step.request, let bound = checker.bound[step.id.value] else { continue }
            checker.checkRequest(request, of: step, bound)
        }
        checker.checkDataFlow()
        checker.checkCredentials()
        let outputs = checker.outputFlows()
        var rewritten = plan
        rewritten.steps = plan.steps.map { checker.filled($0) }
        return (rewritten, checker.diagnostics.diagnostics, checker.bound, outputs)
    }

    /// The types of the plan's outputs, where they can be told.
    mutating func outputFlows() -> [String: FlowType] {
        var outputs: [String: FlowType] = [:]
        for output in plan.outputs {
            guard case .template(let template) = output.value, let expression = template.singleExpression,
                let flow = flowType(of: expression)
            else { continue }
            outputs[output.name.value] = flow
        }
        return outputs
    }

    // MARK: Binding requests to operations

    /// The operation a request names or matches; reports an unknown one.
    mutating func bind(_ request: RequestSpec) -> BoundOperation? {
        if let reference = request.operation { return bind(reference) }
        return match(request)
    }

    private mutating func bind(_ reference: OperationReference) -> BoundOperation? {
        guard let api = apis[reference.api] else {
            // A binding that failed to load is reported at `openapi:`; its operations are not checked.
            guard !plan.apis.contains(where: { $0.name.value == reference.api }) else { return nil }
            let names = plan.apis.map(\.name.value)
            diagnostics.error(
                .unknownOperation, "no API description `\(reference.api)` is bound to this plan",
                at: reference.written.range,
                hint: Suggestion.didYouMean(reference.api, in: names)
                    ?? (names.isEmpty
                        ? "bind one at the top of the plan: `openapi: { \(reference.api): openapi.yaml }`"
                        : "bound: " + names.map { "`\($0)`" }.joined(separator: ", ")))
            return nil
        }
        let found: APIOperation
        switch reference.operation {
        case .route(let method, let path):
            guard let operation = api.description.operation(method: method, path: path) else {
                diagnostics.error(
                    .unknownOperation, "API description `\(reference.api)` has no operation `\(method) \(path)`",
                    at: reference.written.range,
                    notes: [.init("`\(reference.api)` is bound here", at: api.binding.name.range)],
                    hint: Self.closestPath(to: path, in: api.description).map { "the closest path is `\($0)`" })
                return nil
            }
            found = operation
        case .id(let id):
            guard let operation = api.description.operation(id: id) else {
                let ids = api.description.operations.compactMap(\.id)
                // The step's own way of naming it, the id put in place of the one written: `petstore.getPet`,
                // `$sourceDescriptions.petstore.getPet`, `getPet`.
                let written = reference.written.value
                let suggestion = Suggestion.closest(to: id, in: ids).map { candidate in
                    written.hasSuffix(id) ? written.dropLast(id.count) + candidate : candidate
                }
                diagnostics.error(
                    .unknownOperation, "API description `\(reference.api)` has no operation `\(id)`",
                    at: reference.written.range,
                    notes: [.init("`\(reference.api)` is bound here", at: api.binding.name.range)],
                    hint: suggestion.map { "did you mean `\($0)`?" }
                        ?? "its operations are " + ids.prefix(12).map { "`\($0)`" }.joined(separator: ", ")
                        + (ids.count > 12 ? ", …" : ""),
                    fix: suggestion.flatMap { Suggestion.fix(replacing: written, with: $0) })
                return nil
            }
            found = operation
        }
        return BoundOperation(api: reference.api, operation: found, schemas: api.description.schemas)
    }

    /// The path of `description` closest to `path` by edit distance.
    static func closestPath(to path: String, in description: APIDescription) -> String? {
        description.operations.map(\.path).min {
            Suggestion.editDistance($0, path) < Suggestion.editDistance($1, path)
        }
    }

    /// The path of a plain request's URL under a bound description, as segments; `nil` when the URL is not
    /// under any (an absolute URL elsewhere, or one computed whole).
    private func pathUnderBinding(_ url: Template) -> (api: LoadedAPI, segments: [APIPathTemplate.Segment])? {
        var text = ""
        for part in url.parts {
            switch part {
            case .text(let literal): text += literal
            case .expression: text += "\u{0}"
            }
        }
        if let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = String(text[..<end]) }
        let defaultBase = plan.defaults.baseURL?.literalText
        for binding in plan.apis {
            guard let api = apis[binding.name.value] else { continue }
            let base = binding.baseURL?.literalText
            var path: String?
            if text.urlScheme != nil {
                if let prefix = (base ?? defaultBase)?.trimmingTrailingSlash, text.hasPrefix(prefix) {
                    path = String(text.dropFirst(prefix.count))
                }
            } else if text.hasPrefix("/"),
                base == nil || base?.trimmingTrailingSlash == defaultBase?.trimmingTrailingSlash
            {
                path = text
            }
            guard let path, path.isEmpty || path.hasPrefix("/") else { continue }
            // A segment computed in part (`${{ id }}.json`) keeps its text, a NUL for each `${{ }}`.
            let segments = path.split(separator: "/", omittingEmptySubsequences: true).map {
                $0 == "\u{0}" ? APIPathTemplate.Segment.computed : .literal(String($0))
            }
            return (api, segments)
        }
        return nil
    }

    /// Matches a plain `method` + `url` request to an operation by path template.
    private mutating func match(_ request: RequestSpec) -> BoundOperation? {
        guard let (api, segments) = pathUnderBinding(request.url) else { return nil }
        let method = request.effectiveMethod.rawValue
        var best: (operation: APIOperation, score: MatchScore)?
        var samePath: [APIOperation] = []
        for operation in api.description.operations {
            guard let score = Self.matchScore(segments, APIPathTemplate.segments(operation.path)) else { continue }
            if operation.method == method {
                if best == nil || best.map({ score > $0.score }) == true { best = (operation, score) }
            } else {
                samePath.append(operation)
            }
        }
        if let best {
            return BoundOperation(
                api: api.binding.name.value, operation: best.operation, schemas: api.description.schemas)
        }
        let written = "\(method) \(Self.display(segments))"
        if !samePath.isEmpty {
            let methods = samePath.map(\.method)
            diagnostics.error(
                .requestNotInAPI, "`\(written)` is not in API description `\(api.binding.name.value)`",
                at: request.method?.range ?? request.url.range,
                notes: [.init("`\(api.binding.name.value)` is bound here", at: api.binding.name.range)],
                hint: "`\(samePath[0].path)` takes " + methods.map { "`\($0)`" }.joined(separator: ", "))
            return nil
        }
        let concrete = Self.display(segments)
        let paths = api.description.operations.map(\.path)
        let closest = paths.min { Suggestion.editDistance($0, concrete) < Suggestion.editDistance($1, concrete) }
        diagnostics.error(
            .requestNotInAPI, "`\(written)` is not in API description `\(api.binding.name.value)`",
            at: request.url.range,
            notes: [.init("`\(api.binding.name.value)` is bound here", at: api.binding.name.range)],
            hint: closest.map { "no path of the API matches; the closest is `\($0)`" })
        return nil
    }

    /// How well a URL's path fits a template: literal segments equal, then segments whose text fits
    /// text beside parameters (`{id}.json`); the better fit wins.
    struct MatchScore: Comparable {
        var literals = 0
        var mixed = 0

        static func < (lhs: MatchScore, rhs: MatchScore) -> Bool {
            (lhs.literals, lhs.mixed) < (rhs.literals, rhs.mixed)
        }
    }

    /// How well `url` fits `template`, when every segment does (a computed segment fits anything; a
    /// literal one fits a parameter, the same literal, or a mixed segment whose text it matches).
    private static func matchScore(_ url: [APIPathTemplate.Segment], _ template: [APIPathTemplate.Segment])
        -> MatchScore?
    {
        guard url.count == template.count else { return nil }
        var score = MatchScore()
        for (given, wanted) in zip(url, template) {
            switch (given, wanted) {
            case (.literal(let a), .literal(let b)) where a.contains("\u{0}"):
                // Computed in part (`v${{ n }}`): its text must fit, but it is not a literal match.
                guard APIPathTemplate.matches(a, [.text(b)]) else { return nil }
            case (.literal(let a), .literal(let b)):
                guard a == b else { return nil }
                score.literals += 1
            case (.literal(let text), .mixed(let pieces)):
                guard APIPathTemplate.matches(text, pieces) else { return nil }
                score.mixed += 1
            default:
                continue
            }
        }
        return score
    }

    private static func display(_ segments: [APIPathTemplate.Segment]) -> String {
        "/"
            + segments.map {
                switch $0 {
                case .literal(let text): text.replacingOccurrences(of: "\u{0}", with: "…")
                case .parameter(let name): "{\(name)}"
                case .mixed(let pieces):
                    pieces.map {
                        switch $0 {
                        case .text(let text): text
                        case .parameter(let name): "{\(name)}"
                        }
                    }.joined()
                case .computed: "…"
                }
            }.joined(separator: "/")
    }

    // MARK: Filling in operation requests

    /// The step with the method and URL of its `operation:` request (and of its members') filled in.
    func filled(_ step: Step) -> Step {
        switch step.kind {
        case .request(let request):
            return rebuilt(step, kind: .request(filled(request, of: step)))
        case .group(let members):
            return rebuilt(step, kind: .group(members.map(filled)))
        case .sequence(let members):
            return rebuilt(step, kind: .sequence(members.map(filled)))
        case .forEach(var loop):
            switch loop.body {
            case .request(let request): loop.body = .request(filled(request, of: step))
            case .group(let members): loop.body = .group(members.map(filled))
            }
            return rebuilt(step, kind: .forEach(loop))
        case .plan:
            return step
        }
    }

    private func rebuilt(_ step: Step, kind: Step.Kind) -> Step {
        step.with(kind: kind)
    }

    private func filled(_ request: RequestSpec, of step: Step) -> RequestSpec {
        var request = request
        if let given = credentials[step.id.value] {
            request.auth = given.auth
            request.additionalKeys = given.keys
        }
        guard let reference = request.operation, let bound = bound[step.id.value],
            let api = apis[reference.api]
        else { return request }
        request.method = HTTPMethodName(rawValue: bound.operation.method).map {
            Located($0, at: reference.written.range)
        }
        // One `/` between the base and the path.
        var parts: [Template.Part] = []
        // Without a base URL of its own, a binding that says so is served at its description's first server.
        var base = api.binding.baseURL
        if base == nil, api.binding.servedAtFirstServer, let server = api.description.servers.first {
            base = Template(parts: [.text(server)], range: api.binding.range)
        }
        if let base {
            for (index, part) in base.parts.enumerated() {
                if index == base.parts.count - 1, case .text(let text) = part {
                    parts.append(.text(text.trimmingTrailingSlash))
                } else {
                    parts.append(part)
                }
            }
        }
        for segment in APIPathTemplate.segments(bound.operation.path) {
            parts.append(.text("/"))
            switch segment {
            case .literal(let text): parts.append(.text(text))
            case .computed: break
            case .parameter(let name): parts += Self.value(of: name, in: reference)
            case .mixed(let pieces):
                for piece in pieces {
                    switch piece {
                    case .text(let text): parts.append(.text(text))
                    case .parameter(let name): parts += Self.value(of: name, in: reference)
                    }
                }
            }
        }
        if bound.operation.path == "/" || bound.operation.path.isEmpty { parts.append(.text("/")) }
        request.url = Template(parts: Self.merged(parts), range: reference.written.range)
        return request
    }

    /// What a path parameter's place in the URL holds: its literal value percent-encoded, its template as
    /// written, or `{name}` when not given (reported as RP0804).
    private static func value(of expression: String, in reference: OperationReference) -> [Template.Part] {
        let name = APIPathTemplate.parameterName(expression)
        guard let given = reference.pathParameters.first(where: { $0.name.value == name }) else {
            return [.text("{\(expression)}")]
        }
        switch given.value {
        case .literal(let value, _):
            return [
                .text(
                    APIPathTemplate.isReserved(expression)
                        ? value.interpolated.percentEncodedReserved : value.interpolated.percentEncodedPathSegment)
            ]
        case .template(let template): return template.parts
        case .list, .object: return [.text("{\(name)}")]
        }
    }

    /// Adjacent text parts joined.
    private static func merged(_ parts: [Template.Part]) -> [Template.Part] {
        var result: [Template.Part] = []
        for part in parts {
            if case .text(let text) = part, case .text(let previous)? = result.last {
                result[result.count - 1] = .text(previous + text)
            } else {
                result.append(part)
            }
        }
        return result
    }
}

extension String {
    var trimmingTrailingSlash: String {
        var text = self
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// Percent-encoded for one path segment (RFC 3986 unreserved characters kept).
    var percentEncodedPathSegment: String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return addingPercentEncoding(withAllowedCharacters: allowed) ?? self
    }

    /// Percent-encoded as RFC 6570's reserved expansion (`{+parent}`) encodes: unreserved and reserved
    /// characters kept (`projects/p1/locations/l1` stays as it is).
    var percentEncodedReserved: String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~:/?#[]@!$&'()*+,;=")
        return addingPercentEncoding(withAllowedCharacters: allowed) ?? self
    }
}
