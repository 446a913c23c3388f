import ReqPlanSyntax

/// The optional inputs of a plan that a run would leave null because the environment variable they read
/// (`env:`) is not set, or is empty, and where its requests use them: in a URL, a query parameter, a
/// header or `auth`. Such a request goes out with an empty value (`Authorization: Bearer `), so `validate`
/// warns at each use (RP0905) and a run names the input in the failure of a step that used it.
///
/// Only the plan's own inputs and `env.VAR` reads are followed, not sub-plans' (a `plan` step gives those
/// their values), nor values that reach a request through `vars`.
public struct UnsetEnvironment: Sendable {
    /// An input, or an `env.VAR` read, that is null for want of its variable.
    public struct Unset: Sendable, Hashable {
        /// The input's name; nil for a direct `env.VAR` read.
        public var input: String?
        /// The environment variable.
        public var variable: String
        /// Whether the variable is set but empty (CI systems set a missing secret to the empty string).
        public var isEmpty: Bool

        /// "input `token`", or "`env.TOKEN`".
        public var subject: String { input.map { "input `\($0)`" } ?? "`env.\(variable)`" }

        /// What the value is: "null" (unset), or "empty" (set to the empty text).
        public var value: String { isEmpty ? "empty" : "null" }

        /// "the environment variable `TOKEN` is not set".
        public var reason: String { "the environment variable `\(variable)` \(isEmpty ? "is empty" : "is not set")" }
    }

    /// One place a request reads an unset value.
    public struct Use: Sendable, Hashable {
        /// What is unset.
        public var unset: Unset
        /// Where it is read (the reference in its `${{ }}`).
        public var range: SourceRange
        /// Where in the request: "the URL", "header `Authorization`", "`auth`".
        public var place: String
        /// The request step; nil for `defaults`.
        public var step: String?
    }

    /// The inputs left null, by input name.
    public let inputs: [String: Unset]
    /// Every use in a URL, header or `auth`, in plan order (`defaults` first).
    public let uses: [Use]

    /// Finds what the plan's requests would read as null.
    /// - Parameters:
    ///   - plan: the plan.
    ///   - environment: the environment the run would have.
    ///   - given: inputs that get a value otherwise (`--input`, the inputs file).
    public init(plan: Plan, environment: [String: String], given: Set<String>) {
        func unset(_ variable: String) -> Bool { (environment[variable] ?? "").isEmpty }
        var inputs: [String: Unset] = [:]
        for input in plan.inputs {
            guard let variable = input.env?.value, unset(variable), input.required?.value != true,
                input.defaultValue == nil, !given.contains(input.name.value)
            else { continue }
            inputs[input.name.value] = Unset(
                input: input.name.value, variable: variable, isEmpty: environment[variable] != nil)
        }
        self.inputs = inputs
        var uses: [Use] = []
        func scan(_ template: Template?, _ place: String, _ step: String?) {
            for expression in template?.expressions ?? [] {
                for reference in expression.references {
                    guard reference.components.count >= 1, let name = reference.memberName(at: 0)?.value else {
                        continue
                    }
                    var found: Unset?
                    if reference.root.value == "inputs" {
                        found = inputs[name]
                    } else if reference.root.value == "env", unset(name) {
                        found = Unset(input: nil, variable: name, isEmpty: environment[name] != nil)
                    }
                    if let found { uses.append(Use(unset: found, range: reference.range, place: place, step: step)) }
                }
            }
        }
        func scan(_ value: ValueTemplate, _ place: String, _ step: String?) {
            switch value {
            case .template(let template): scan(template, place, step)
            case .list(let items, _): for item in items { scan(item, place, step) }
            case .object(let entries, _): for entry in entries { scan(entry.value, place, step) }
            case .literal: break
            }
        }
        func scan(
            request url: Template?, base: Bool, query: [QueryParameter], headers: [Header],
            auth: RequestAuth?, step: String?
        ) {
            scan(url, base ? "`base_url`" : "the URL", step)
            for parameter in query { scan(parameter.value, "query parameter `\(parameter.name.value)`", step) }
            for header in headers { scan(header.value, "header `\(header.name.value)`", step) }
            for template in auth?.templates ?? [] { scan(template, "`auth`", step) }
        }
        let defaults = plan.defaults
        scan(
            request: defaults.baseURL, base: true, query: defaults.query, headers: defaults.headers,
            auth: defaults.auth?.value, step: nil)
        for step in plan.allSteps {
            guard let request = step.request else { continue }
            scan(
                request: request.url, base: false, query: request.query, headers: request.headers,
                auth: request.auth?.value, step: step.id.value)
        }
        self.uses = uses
    }

    /// RP0905 at each use, for `validate`.
    public var warnings: [Diagnostic] {
        uses.map { use in
            let setting =
                use.unset.input.map {
                    "set `\(use.unset.variable)`, give `\($0)` a value (`--input`, an inputs file), or declare it "
                        + "`required: true` so that a run stops without it"
                } ?? "set `\(use.unset.variable)`, or read it through an input declared `required: true`"
            return .warning(
                .unsetEnvironmentInput,
                "\(use.place) reads \(use.unset.subject), which is \(use.unset.value): \(use.unset.reason)",
                at: use.range, hint: setting)
        }
    }

    /// What the request of step `id` read as null (its own URL, query, headers and `auth`, and those of
    /// `defaults`), each once, for the note of its failure.
    public func read(byStep id: String) -> [Unset] {
        var seen: Set<Unset> = []
        return uses.filter { ($0.step == nil || $0.step == id) && seen.insert($0.unset).inserted }.map(\.unset)
    }
}
