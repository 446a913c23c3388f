import ReqPlanPlanner
import ReqPlanSyntax

extension PlanRun {
    /// Makes a validated plan ready to run once per row of a data file (`reqplan load --data`): the inputs files
    /// and environment read and checked as a run reads them, the data file read through the one file reader, and
    /// every row resolved (`DataInputs.resolve`: a row's value wins over every other source).
    /// - Parameters:
    ///   - report: the plan's validation (`Pipeline.validate`).
    ///   - dataPath: the data file (`.csv`, `.jsonl`, `.ndjson`).
    ///   - overrides: `name=value` texts (`--input`).
    ///   - inputsFile, environmentName: as `prepare`'s.
    /// - Returns: the plan and its rows, or every problem, with the sources to render them.
    public static func prepare(
        _ report: ValidationReport, dataAt dataPath: String, overrides: [String], inputsFile: String?,
        environmentName: String?, environment: [String: String], limits: ParseLimits,
        naming: InputResolver.Naming = .library
    ) -> Result<DataInputs.Prepared, PreparationError> {
        guard report.errorCount == 0, report.graph != nil else { return .failure(PreparationError(invalid: report)) }
        let pairs: [(name: String, value: String)]
        switch parseOverrides(overrides, file: report.sources.first?.path, naming: naming) {
        case .success(let value): pairs = value
        case .failure(let diagnostic): return .failure(PreparationError(diagnostics: [diagnostic], sources: []))
        }
        var files: [InputsFile] = []
        if inputsFile != nil || environmentName != nil {
            switch InputsFile.read(
                file: inputsFile, environmentName: environmentName, forPlan: report.sources.first?.path ?? ".",
                limits: limits)
            {
            case .success(let read): files = read
            case .failure(let failure):
                return .failure(
                    PreparationError(diagnostics: [failure.diagnostic], sources: [failure.source].compactMap { $0 }))
            }
        }
        if let failure = checkValues(files, for: [report]) { return .failure(failure) }
        switch DataFile.read(atPath: dataPath, limits: limits) {
        case .failure(let failure):
            return .failure(
                PreparationError(diagnostics: failure.diagnostics, sources: [failure.source].compactMap { $0 }))
        case .success(let data):
            return DataInputs.resolve(
                data, for: report, overrides: pairs, file: mergedValues(files), environment: environment,
                naming: naming)
        }
    }
}
