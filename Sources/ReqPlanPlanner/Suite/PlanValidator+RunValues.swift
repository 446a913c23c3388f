import ReqPlanSyntax

extension InputsFile {
    /// What is wrong with these values for `plans`: RP0501 for a value whose type is not the one a plan
    /// declares (at the value, with a note at the declaration), and warning RP0904 for a name no plan
    /// declares (at the name: a run ignores it, so only `--strict` fails on it).
    /// - Parameter plans: the plans the file is given to (one, or a suite's).
    public func diagnostics(for plans: [Plan]) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        var declared: Set<String> = []
        for plan in plans { for input in plan.inputs { declared.insert(input.name.value) } }
        for entry in entries {
            let name = entry.key.value
            guard declared.contains(name) else {
                let suggestion = Suggestion.replacement(for: name, in: declared.sorted())
                var diagnostic = Diagnostic.warning(
                    .undeclaredInputsFileKey,
                    plans.count == 1
                        ? "the inputs file sets `\(name)`, which the plan does not declare"
                        : "the inputs file sets `\(name)`, which no plan declares",
                    at: entry.key.range,
                    hint: suggestion?.hint
                        ?? "a run ignores it; remove it, or declare it under `inputs:` in the plan that reads it",
                    fix: suggestion?.fix)
                diagnostic.file = source.path
                diagnostics.append(diagnostic)
                continue
            }
            var reported: Set<ValueType> = []
            for plan in plans {
                guard let input = plan.inputs.first(where: { $0.name.value == name }) else { continue }
                guard let type = input.knownType, !entry.value.fits(type), reported.insert(type).inserted else {
                    continue
                }
                var diagnostic = Diagnostic.error(
                    .invalidInput,
                    "input `\(name)` must be \(type.withArticle), but the inputs file gives \(entry.value.type.withArticle)",
                    at: entry.valueRange,
                    notes: [
                        .init(
                            "`\(name)` is declared here as \(type.withArticle)",
                            at: input.type?.range ?? input.name.range, in: plan.source.path)
                    ])
                diagnostic.file = source.path
                diagnostics.append(diagnostic)
            }
        }
        return diagnostics
    }
}

extension Value {
    /// Whether the value can be given to an input of `type`: null fits any type.
    func fits(_ type: ValueType) -> Bool {
        self == .null || self.type == type
    }
}

extension PlanValidator {
    /// The reports of `validate`, checked against the values a run would give: the inputs file (or
    /// environment) given, if any (`InputsFile.diagnostics(for:)`), and the process environment: an
    /// optional input left null for want of its variable, used in a URL, a header or `auth`, is warning
    /// RP0905 at each use (`UnsetEnvironment`).
    /// - Parameters:
    ///   - reports: the reports of the plans, in suite order.
    ///   - inputs: the inputs files given to them (`--env`'s, `--inputs-file`), if any.
    ///   - environment: the environment a run would have.
    /// - Returns: the reports with those diagnostics added (an inputs file's problems go to the first
    ///   report that declares the input, or the first report, with the file's text among its sources).
    public static func checkRunValues(
        _ reports: [ValidationReport], inputs: [InputsFile], environment: [String: String]
    ) -> [ValidationReport] {
        var reports = reports
        let given = Set(inputs.flatMap { $0.entries.map(\.key.value) })
        for index in reports.indices {
            guard let plan = reports[index].plan else { continue }
            let unset = UnsetEnvironment(plan: plan, environment: environment, given: given)
            for var warning in unset.warnings {
                warning.file = plan.source.path
                reports[index].diagnostics.append(warning)
            }
        }
        for inputs in inputs where !reports.isEmpty {
            for diagnostic in inputs.diagnostics(for: reports.compactMap(\.plan)) {
                let declaring = diagnostic.notes.first?.file
                let index = reports.firstIndex { $0.plan != nil && $0.plan?.source.path == declaring } ?? 0
                reports[index].diagnostics.append(diagnostic)
                if !reports[index].sources.contains(where: { $0.path == inputs.source.path }) {
                    reports[index].sources.append(inputs.source)
                }
            }
        }
        for index in reports.indices { reports[index].diagnostics = reports[index].diagnostics.sortedBySource() }
        return reports
    }
}
