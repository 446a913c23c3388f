import Foundation
import ReqPlanPlanner
import ReqPlanSyntax

/// Every problem with a run's inputs.
public struct InputErrors: Error, Sendable {
    public var diagnostics: [Diagnostic]
}

/// Gives every declared input its value for a run: `--input` over `--inputs-file`
/// over the environment over the default. Every problem is a located diagnostic.
public enum InputResolver {
    /// How messages name the values given for inputs: the command line's options, or, for a program that
    /// gives typed values (the `ReqPlan` library), the inputs' own names with no option in sight.
    public enum Naming: Sendable {
        /// `--input name=value` and `--inputs-file`.
        case commandLine
        /// Values given by name.
        case library
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
                naming == .commandLine
                ? "the inputs file sets `\(name)`, which the plan does not declare"
                : "input `\(name)` is not declared by the plan"
            diagnostics.error(
                .invalidInput, message, at: nil,
                hint: Suggestion.didYouMean(name, in: declared.keys.sorted()))
        }
        for override in overrides where declared[override.name] == nil {
            diagnostics.error(
                .invalidInput, "--input `\(override.name)` is not declared by the plan", at: nil,
                hint: Suggestion.didYouMean(override.name, in: declared.keys.sorted())
                    ?? "declared inputs: " + plan.inputs.map { "`\($0.name.value)`" }.joined(separator: ", "))
        }

        for input in plan.inputs {
            let name = input.name.value
            let type = input.effectiveType
            var value: Value?
            // A required input's variable that is set but empty counts as unset (CI systems set a missing
            // secret to the empty string).
            let required = input.required?.value == true
            if let variable = input.env?.value, let text = environment[variable], !(required && text.isEmpty) {
                env[variable] = text
                value = convert(text, to: type)
                if value == nil {
                    diagnostics.error(
                        .invalidInput,
                        "environment variable `\(variable)` for input `\(name)` is not \(type.withArticle)",
                        at: input.env?.range)
                }
            }
            if let fromFile = file[name] { value = fromFile }
            if let text = overrides.last(where: { $0.name == name })?.value {
                guard let converted = convert(text, to: type) else {
                    diagnostics.error(
                        .invalidInput, "--input `\(name)` must be \(type.withArticle), got `\(text)`",
                        at: input.name.range, hint: hint(for: type))
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
            if value != .null && value.type != type && !(type == .number && value.type == .number) {
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

    /// Parses `name=value` as given to `--input`.
    public static func parseOverride(_ text: String) -> (name: String, value: String)? {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { return nil }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }

    /// A command-line or environment text as a value of `type`.
    static func convert(_ text: String, to type: ValueType) -> Value? {
        switch type {
        case .string: return .string(text)
        case .number:
            if let int = Int(text) { return .int(int) }
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

    private static func hint(for type: ValueType) -> String {
        switch type {
        case .number: "give a number, as in `--input n=3`"
        case .boolean: "give `true` or `false`"
        case .list: "give a JSON list (`'[\"a\",\"b\"]'`) or comma-separated values"
        case .object: "give a JSON object"
        default: "give a value"
        }
    }
}

extension InputResolver.Naming {
    /// How a hint tells the user to give input `name` a value.
    func give(_ name: String) -> String {
        switch self {
        case .commandLine: "pass `--input \(name)=…`"
        case .library: "give the input `\(name)` a value"
        }
    }
}
