import Foundation
import ReqPlanPlanner
import ReqPlanSyntax

/// Every problem with a run's inputs.
public struct InputErrors: Error, Sendable {
    public var diagnostics: [Diagnostic]
}

/// Gives every declared input its value for a run: the values given one by one (the command line's
/// `--input`) over an inputs file over the environment over the default. Every problem is a located
/// diagnostic.
public enum InputResolver {
    /// How messages name the values given for inputs: by default by what they are ("the value given for
    /// input `n`", as a program giving typed values calls them); a host with options names them (the
    /// command line: `--input`).
    public struct Naming: Sendable, Hashable {
        /// The option that gives one input a value as `name=value` (`--input`); nil: values are given by name.
        public var inputOption: String?

        /// Names for the given option (nil: values given by name).
        public init(inputOption: String? = nil) {
            self.inputOption = inputOption
        }

        /// Values given by name, with no option in sight (the `ReqPlan` library).
        public static let library = Naming()
    }

    /// Resolves the inputs of `plan`.
    /// - Parameters:
    ///   - plan: the parsed plan.
    ///   - overrides: `--input name=value` pairs, in order (later wins).
    ///   - file: values from `--inputs-file` (or typed values a program gives), if any.
    ///   - environment: the process environment.
    ///   - naming: how messages name the values given.
    /// - Returns: the run's inputs, or every problem found.
    public static func resolve(
        plan: Plan, overrides: [(name: String, value: String)], file: [String: Value] = [:],
        environment: [String: String], naming: Naming = .library
    ) -> Result<RunInputs, InputErrors> {
        var diagnostics = DiagnosticCollector(file: plan.source.path)
        let declared = Dictionary(plan.inputs.map { ($0.name.value, $0) }, uniquingKeysWith: { first, _ in first })
        var values: [String: Value] = [:]
        var env: [String: String] = [:]
        var secrets: [String] = []
        let credentials = plan.inputsReadAsCredentials

        for name in file.keys.sorted() where declared[name] == nil {
            let message =
                naming.inputOption != nil
                ? "the inputs file sets `\(name)`, which the plan does not declare"
                : "input `\(name)` is not declared by the plan"
            diagnostics.error(
                .invalidInput, message, at: nil,
                hint: Suggestion.didYouMean(name, in: declared.keys.sorted()))
        }
        for override in overrides where declared[override.name] == nil {
            diagnostics.error(
                .invalidInput, "\(naming.given(override.name)) is not declared by the plan", at: nil,
                hint: Suggestion.didYouMean(override.name, in: declared.keys.sorted())
                    ?? "declared inputs: " + plan.inputs.map { "`\($0.name.value)`" }.joined(separator: ", "))
        }

        for input in plan.inputs {
            let name = input.name.value
            let type = input.effectiveType
            let convert = { (text: String) in Self.convert(text, to: input.knownType) }
            var value: Value?
            // A required input's variable that is set but empty counts as unset (CI systems set a missing
            // secret to the empty string).
            let required = input.required?.value == true
            if let variable = input.env?.value, let text = environment[variable], !(required && text.isEmpty) {
                env[variable] = text
                value = convert(text)
                if value == nil {
                    diagnostics.error(
                        .invalidInput,
                        "environment variable `\(variable)` for input `\(name)` is not \(type.withArticle)",
                        at: input.env?.range)
                }
            }
            if let fromFile = file[name] { value = fromFile }
            if let text = overrides.last(where: { $0.name == name })?.value {
                guard let converted = convert(text) else {
                    diagnostics.error(
                        .invalidInput, "\(naming.given(name)) must be \(type.withArticle), got `\(text)`",
                        at: input.name.range, hint: naming.hint(for: type))
                    continue
                }
                value = converted
            }
            if value == nil, required, let variable = input.env?.value {
                let state = environment[variable] == nil ? "is not set" : "is empty"
                diagnostics.error(
                    .missingInput, "input `\(name)` is required, but the environment variable `\(variable)` \(state)",
                    at: input.name.range, notes: [.init("`required: true` is given here", at: input.required?.range)],
                    hint: "set `\(variable)`, or \(naming.give(name))")
                continue
            }
            if value == nil, !required { value = input.defaultValue?.value }
            // An input read from the environment, or declared `required: false`, is optional: unset, it is null.
            if value == nil, !required, input.env != nil || input.required != nil { value = .null }
            guard let value else {
                let source = input.env.map { "set the environment variable `\($0.value)` or " } ?? ""
                diagnostics.error(
                    .missingInput, "input `\(name)` has no value", at: input.name.range,
                    hint: source + naming.give(name))
                continue
            }
            if !input.acceptsAnyType, value != .null, value.type != type {
                diagnostics.error(
                    .invalidInput, "input `\(name)` must be \(type.withArticle), got \(value.type.withArticle)",
                    at: input.name.range)
                continue
            }
            values[name] = value
            if let variable = input.env?.value, env[variable] == nil { env[variable] = value.interpolated }
            let secret = input.secret || credentials.contains(name)
            if secret, case .string(let text) = value, !text.isEmpty { secrets.append(text) }
            if secret, value.type != .string, value != .null { secrets.append(value.jsonText()) }
        }
        if diagnostics.hasErrors { return .failure(InputErrors(diagnostics: diagnostics.diagnostics)) }
        return .success(RunInputs(values: values, environment: env, secrets: secrets))
    }

    /// The environment variables the sub-plans of `graph` declare (for their inputs' `env:` and `env.X`), and
    /// RP0502 for a sub-plan input with `required: true` whose `plan` step does not give it and whose variable
    /// is unset or empty: that run would fail, so nothing is sent.
    public static func resolveSubPlanEnvironment(of graph: PlanGraph, environment: [String: String])
        -> Result<[String: String], InputErrors>
    {
        var variables: [String: String] = [:]
        var diagnostics: [Diagnostic] = []
        for (index, instance) in graph.instances.enumerated() where index > 0 {
            let given = Set(instance.caller.flatMap { graph.nodes[$0].step.subPlan }?.inputs.map(\.name.value) ?? [])
            for input in instance.plan.inputs {
                guard let variable = input.env?.value else { continue }
                if let text = environment[variable] { variables[variable] = text }
                guard input.required?.value == true, !given.contains(input.name.value),
                    (environment[variable] ?? "").isEmpty
                else { continue }
                let state = environment[variable] == nil ? "is not set" : "is empty"
                var diagnostic = Diagnostic.error(
                    .missingInput,
                    "input `\(input.name.value)` is required, but the environment variable `\(variable)` \(state)",
                    at: input.name.range, notes: graph.inclusionNotes(of: index),
                    hint: "set `\(variable)`, or give the input in the `plan` step's `inputs:`")
                diagnostic.file = instance.plan.source.path
                if !diagnostics.contains(diagnostic) { diagnostics.append(diagnostic) }
            }
        }
        return diagnostics.isEmpty ? .success(variables) : .failure(InputErrors(diagnostics: diagnostics))
    }

    /// Parses `name=value` (as the command line's `--input` takes it).
    public static func parseOverride(_ text: String) -> (name: String, value: String)? {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { return nil }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }

    /// A command-line or environment text as a value of `type`.
    static func convert(_ text: String, to type: ValueType?) -> Value? {
        guard let type else {
            // Any value: JSON when the text is JSON (`800`, `true`, `{"a": 1}`), else the text itself.
            return (try? Value.parseJSON(text)) ?? .string(text)
        }
        switch type {
        case .string: return .string(text)
        case .number:
            // A whole number keeps its digits, whatever its size (`18446744073709551615` is sent as given).
            if let integer = Value.integer(fromDecimal: text) { return integer }
            if let double = Double(text), double.isFinite { return .double(double) }
            return nil
        case .boolean:
            switch text.lowercased() {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: return nil
            }
        case .list:
            if let value = try? Value.parseJSON(text), value.type == .list { return value }
            if text.isEmpty { return .list([]) }
            return .list(text.split(separator: ",").map { .string(String($0).trimmingCharacters(in: .whitespaces)) })
        case .object:
            if let value = try? Value.parseJSON(text), value.type == .object { return value }
            return nil
        case .null:
            return .null
        }
    }

}

extension InputResolver.Naming {
    /// The value given for input `name`, in a message: ``--input `n` `` or ``the value given for input `n` ``.
    func given(_ name: String) -> String {
        inputOption.map { "\($0) `\(name)`" } ?? "the value given for input `\(name)`"
    }

    /// How a hint tells the user to give input `name` a value.
    func give(_ name: String) -> String {
        inputOption.map { "pass `\($0) \(name)=…`" } ?? "give the input `\(name)` a value"
    }

    /// How a hint says what a value of `type` looks like.
    func hint(for type: ValueType) -> String {
        switch type {
        case .number: "give a number" + (inputOption.map { ", as in `\($0) n=3`" } ?? "")
        case .boolean: "give `true` or `false`"
        case .list: "give a JSON list (`'[\"a\",\"b\"]'`) or comma-separated values"
        case .object: "give a JSON object"
        default: "give a value"
        }
    }
}
