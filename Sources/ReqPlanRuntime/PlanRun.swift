import Foundation
import ReqPlanTransport
import ReqPlanPlanner
import ReqPlanSyntax

/// A plan made ready to run: validated, its inputs resolved (`prepare`, `resolveInputs`); the composition
/// root (`ReqPlanPipeline.Pipeline`) runs it over the transport it builds. Nothing here touches the process:
/// the CLI turns SIGINT and SIGTERM into cancellation (`RunSupervisor`); embedders use the `ReqPlan` library,
/// which runs plans through the same pipeline.
public enum PlanRun {
    /// A plan ready to run.
    public struct Prepared: Sendable {
        public var graph: PlanGraph
        public var inputs: RunInputs
        /// The optional inputs left null for want of their environment variable, and where requests use
        /// them: a failed step that used one names it (`RunResult.diagnostics(graph:unset:)`).
        public var unset: UnsetEnvironment? = nil
    }

    /// Why a plan cannot run: its diagnostics, with the sources to render them.
    public struct PreparationError: Error, Sendable {
        public var diagnostics: [Diagnostic]
        public var sources: [SourceFile]

        /// Creates a failure.
        public init(diagnostics: [Diagnostic], sources: [SourceFile]) {
            self.diagnostics = diagnostics
            self.sources = sources
        }

        /// The errors of a plan that is not valid.
        init(invalid report: ValidationReport) {
            self.init(diagnostics: report.diagnostics.filter { $0.severity == .error }, sources: report.sources)
        }
    }

    /// Validates the plan (and its sub-plans) and resolves its inputs: a suite of one plan
    /// (`SuiteRun.prepare`).
    /// - Parameters:
    ///   - overrides: `name=value` texts (the command line's `--input`).
    ///   - inputsFile: an inputs file's values; names the plan does not declare are ignored.
    ///   - environmentName: the values of `NAME.env.yaml` at the root of the plan's project
    ///     (`InputsFile.environmentFile`); `inputsFile` wins over it.
    ///   - ignoreUndeclared: drop overrides the plan does not declare (for `demo`).
    ///   - allowFilesOutside: let the files the plan names be outside its project.
    ///   - library: where checked plan files are kept (one per command, so shared sub-plans are read once).
    ///   - naming: how messages name the values given (the command line's options, else plain names).
    public static func prepare(
        path: String, limits: ParseLimits, overrides: [String], inputsFile: String?, environmentName: String? = nil,
        environment: [String: String], ignoreUndeclared: Bool = false, allowFilesOutside: Bool = false,
        library: PlanLibrary = PlanLibrary(), naming: InputResolver.Naming = .library
    ) async -> Result<Prepared, PreparationError> {
        SuiteRun.prepare(
            SuiteFiles(file: path), limits: limits, overrides: overrides, inputsFile: inputsFile,
            environmentName: environmentName, environment: environment, allowFilesOutside: allowFilesOutside,
            library: library, ignoringUndeclared: ignoreUndeclared, naming: naming
        ).map { $0[0] }
    }

    /// The values of several inputs files, a later file's winning.
    static func mergedValues(_ files: [InputsFile]) -> [String: Value] {
        files.reduce(into: [:]) { values, file in values.merge(file.values, uniquingKeysWith: { _, later in later }) }
    }

    /// The errors of values the inputs files give the plans of `reports` (a type that is not the declared
    /// one), located in the files; names no plan declares are left for `validate --strict`.
    static func checkValues(_ files: [InputsFile], for reports: [ValidationReport]) -> PreparationError? {
        let plans = reports.compactMap(\.plan)
        var diagnostics: [Diagnostic] = []
        var sources: [SourceFile] = []
        for file in files {
            let errors = file.diagnostics(for: plans).filter { $0.severity == .error }
            if !errors.isEmpty { sources.append(file.source) }
            diagnostics += errors
        }
        guard !diagnostics.isEmpty else { return nil }
        return PreparationError(diagnostics: diagnostics, sources: sources + reports.flatMap(\.sources))
    }

    /// Resolves the inputs of a validated plan. Values from an inputs file that the plan does not declare
    /// are ignored: one file serves several plans.
    /// - Parameters:
    ///   - ignoreUndeclared: drop the `--input`s the plan does not declare too (`demo`, and each plan of a
    ///     suite).
    ///   - naming: how messages name the inputs given (the command line's options, or plain names).
    public static func resolveInputs(
        of report: ValidationReport, overrides: [(name: String, value: String)], file: [String: Value],
        environment: [String: String], ignoreUndeclared: Bool = false, naming: InputResolver.Naming = .library
    ) -> Result<Prepared, PreparationError> {
        guard report.errorCount == 0, let graph = report.graph else {
            return .failure(PreparationError(invalid: report))
        }
        var pairs = overrides
        let declared = Set(graph.plan.inputs.map(\.name.value))
        let fileValues = file.filter { declared.contains($0.key) }
        if ignoreUndeclared { pairs.removeAll { !declared.contains($0.name) } }
        // Under `--scenario`, an input that only steps left out read needs no value: unset, it is null.
        var plan = graph.plan
        if graph.scenario != nil {
            let read = Set(graph.inputsRead).union(plan.inputsReadWhereNotEvaluated)
            for index in plan.inputs.indices where !read.contains(plan.inputs[index].name.value) {
                plan.inputs[index].required = Located(false, at: plan.inputs[index].name.range)
            }
        }
        switch InputResolver.resolve(
            plan: plan, overrides: pairs, file: fileValues, environment: environment, naming: naming)
        {
        case .failure(let errors):
            return .failure(PreparationError(diagnostics: errors.diagnostics, sources: report.sources))
        case .success(var inputs):
            switch InputResolver.resolveSubPlanEnvironment(of: graph, environment: environment) {
            case .failure(let errors):
                return .failure(PreparationError(diagnostics: errors.diagnostics, sources: report.sources))
            case .success(let variables): inputs.environment.merge(variables, uniquingKeysWith: { own, _ in own })
            }
            let given = Set(pairs.map(\.name)).union(fileValues.keys)
            let unset = UnsetEnvironment(plan: graph.plan, environment: environment, given: given)
            return .success(Prepared(graph: graph, inputs: inputs, unset: unset.uses.isEmpty ? nil : unset))
        }
    }

    /// `name=value` texts as pairs, or the diagnostic for the first that is not of that form.
    public static func parseOverrides(_ texts: [String], file: String? = nil, naming: InputResolver.Naming = .library)
        -> Result<[(name: String, value: String)], Diagnostic>
    {
        var pairs: [(name: String, value: String)] = []
        for text in texts {
            guard let pair = InputResolver.parseOverride(text) else {
                let what = naming.inputOption.map { "\($0) `\(text)`" } ?? "`\(text)`"
                return .failure(
                    Diagnostic(.error, .invalidInput, "\(what) is not of the form name=value", file: file))
            }
            pairs.append(pair)
        }
        return .success(pairs)
    }

    /// Runs `body` under `supervisor`; meanwhile calls `refresh` every `interval`, and once after. The
    /// timer only refreshes what people see (a progress display): the executor itself never polls.
    static func refreshing<Value: Sendable>(
        every interval: Duration, _ refresh: (@Sendable () -> Void)?, supervisor: any RunSupervisor,
        _ body: @escaping @Sendable () async -> Value
    ) async -> Value {
        guard let refresh else { return await supervisor.supervise(body) }
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    refresh()
                    try? await Task.sleep(for: interval)
                }
            }
            let value = await supervisor.supervise(body)
            group.cancelAll()
            await group.waitForAll()
            refresh()
            return value
        }
    }
}
