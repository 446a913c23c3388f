import Foundation
import ReqPlanTransport
import ReqPlanPlanner
import ReqPlanSyntax

/// Several plan files run by one `reqplan run` (a suite), as a library call.
///
/// Each file is one plan with its own inputs, outputs, result and cookie jar; up to `jobs` plans run
/// at once over one transport (one connection pool), every plan under its own concurrency limits.
/// Every plan is validated and its inputs resolved before anything is sent: one invalid plan stops the
/// suite, as an invalid plan stops a run.
public enum SuiteRun {
    /// One plan of a suite and how its run went.
    public struct Outcome: Sendable {
        /// The plan that ran.
        public var prepared: PlanRun.Prepared
        /// How it ended.
        public var result: RunResult
        /// When it started, since the suite started.
        public var offset: Duration
    }

    /// How a suite ended.
    public struct Result: Sendable {
        /// One outcome per plan, in suite order.
        public var outcomes: [Outcome]

        /// The results as every output shows them (`RunResult.netted(by:)`): each plan's through the net of its
        /// secret inputs, the secrets it learnt, and those `store` holds (the suite's credentials and cookies).
        public func shown(secrets store: SecretStore) -> Result {
            var shown = self
            shown.outcomes = outcomes.map { outcome in
                var outcome = outcome
                outcome.result = outcome.result.netted(
                    by: Redactor(secrets: outcome.prepared.inputs.secrets + outcome.result.secrets, store: store))
                return outcome
            }
            return shown
        }
        /// When the suite started.
        public var startedAt: Date
        /// How long it took.
        public var duration: Duration

        /// The worst verdict of its plans; `passed` for a suite with no plan.
        public var verdict: RunVerdict {
            outcomes.map(\.result.verdict).max() ?? .passed
        }
    }

    /// Validates every plan and resolves its inputs (a run of one plan too, `PlanRun.prepare`): the values
    /// given one by one (`overrides`), of an inputs file and of an environment go to every plan that
    /// declares the input; an override no plan declares is an error (RP0501), a name of an inputs file no
    /// plan declares is ignored (one environment serves every plan).
    /// - Parameters:
    ///   - environmentName: `NAME.env.yaml` at the root of the first plan's project.
    ///   - ignoringUndeclared: drop overrides no plan declares instead (`demo`).
    ///   - naming: how messages name the values given (the command line's options, else plain names).
    /// - Returns: the plans in suite order, or every problem found, with the sources to render them.
    public static func prepare(
        _ suite: SuiteFiles, limits: ParseLimits, overrides: [String], inputsFile: String?,
        environmentName: String? = nil, environment: [String: String], allowFilesOutside: Bool = false,
        library: PlanLibrary = PlanLibrary(), ignoringUndeclared: Bool = false,
        naming: InputResolver.Naming = .library
    ) -> Swift.Result<[PlanRun.Prepared], PlanRun.PreparationError> {
        let reports = PlanValidator.validate(
            suite: suite, limits: limits, allowFilesOutside: allowFilesOutside,
            library: library)
        var diagnostics: [Diagnostic] = []
        var sources: [SourceFile] = []
        for report in reports where report.errorCount > 0 || report.graph == nil {
            diagnostics += report.diagnostics.filter { $0.severity == .error }
            sources += report.sources
        }
        let pairs: [(name: String, value: String)]
        // One plan: its problems are located in its file, as a plan's own.
        let single = suite.files.count == 1 && suite.problems.isEmpty
        switch PlanRun.parseOverrides(overrides, file: single ? suite.files[0] : nil, naming: naming) {
        case .success(let value): pairs = value
        case .failure(let diagnostic):
            return .failure(PlanRun.PreparationError(diagnostics: diagnostics + [diagnostic], sources: sources))
        }
        var files: [InputsFile] = []
        if inputsFile != nil || environmentName != nil {
            switch InputsFile.read(
                file: inputsFile, environmentName: environmentName, forPlan: suite.files.first ?? ".", limits: limits)
            {
            case .success(let read): files = read
            case .failure(let failure):
                diagnostics.append(failure.diagnostic)
                sources += [failure.source].compactMap { $0 }
            }
        }
        guard diagnostics.isEmpty else {
            return .failure(PlanRun.PreparationError(diagnostics: diagnostics, sources: sources))
        }
        if let failure = PlanRun.checkValues(files, for: reports) { return .failure(failure) }
        let fileValues = PlanRun.mergedValues(files)

        let declared = Set(reports.flatMap { $0.plan?.inputs.map(\.name.value) ?? [] })
        if !single && !ignoringUndeclared {
            for name in Set(pairs.map(\.name)).subtracting(declared).sorted() {
                diagnostics.append(
                    Diagnostic(
                        .error, .invalidInput, "\(naming.given(name)) is declared by no plan of the suite",
                        hint: Suggestion.didYouMean(name, in: declared.sorted())))
            }
        }
        var plans: [PlanRun.Prepared] = []
        for report in reports {
            // A plan of one is told an override it does not declare; a suite's plans take what they declare.
            switch PlanRun.resolveInputs(
                of: report, overrides: pairs, file: fileValues, environment: environment,
                ignoreUndeclared: !single || ignoringUndeclared, naming: naming)
            {
            case .success(let prepared): plans.append(prepared)
            case .failure(let failure):
                diagnostics += failure.diagnostics
                sources += failure.sources
            }
        }
        guard diagnostics.isEmpty else {
            return .failure(PlanRun.PreparationError(diagnostics: diagnostics, sources: sources))
        }
        return .success(plans)
    }

    /// Runs the plans, up to `jobs` at once, each over the transport `transports` gives it; cancelling the
    /// calling task, or the supervisor, cancels the plans running and those not started (each still gets a
    /// result, every step `cancelled`). The transports are the caller's to build and shut down (the
    /// composition root's `Pipeline.execute` builds reqplan's HTTP client).
    /// - Parameters:
    ///   - transports: the transport of each plan (by its position).
    ///   - configuration: the run settings of each plan (its files, concurrency, the suite's secrets).
    ///   - observer: what watches each plan's run (by its position).
    ///   - started: told when a plan starts (by its position).
    ///   - finished: told when a plan ends, with its outcome.
    ///   - refresh: called ten times a second while the suite runs, and once at the end (to redraw a
    ///     progress display; the suite itself never polls).
    ///   - supervisor: what the suite goes on under (the CLI's cancels it on SIGINT and SIGTERM).
    public static func execute(
        _ plans: [PlanRun.Prepared], jobs: Int, transports: @escaping @Sendable (Int) -> any Transport,
        configuration: @escaping @Sendable (PlanRun.Prepared) -> RunConfiguration,
        observer: @escaping @Sendable (Int) -> any ExecutionObserver = { _ in NoObserver() },
        started: @escaping @Sendable (Int) -> Void = { _ in },
        finished: @escaping @Sendable (Int, Outcome) -> Void = { _, _ in },
        refresh: (@Sendable () -> Void)? = nil, supervisor: any RunSupervisor = UnsupervisedRun()
    ) async -> Result {
        let startedAt = Date()
        let clock = ContinuousClock()
        let start = clock.now
        let outcomes =
            await PlanRun.refreshing(every: .milliseconds(100), refresh, supervisor: supervisor) {
                await withTaskGroup(of: (Int, Outcome).self) { group in
                    var outcomes: [Outcome?] = Array(repeating: nil, count: plans.count)
                    var next = 0
                    func startNext() {
                        let index = next
                        next += 1
                        group.addTask {
                            started(index)
                            let offset = clock.now - start
                            let prepared = plans[index]
                            let executor = Executor(
                                graph: prepared.graph, transport: transports(index),
                                inputs: prepared.inputs, configuration: configuration(prepared),
                                observer: observer(index))
                            let outcome = Outcome(prepared: prepared, result: await executor.run(), offset: offset)
                            finished(index, outcome)
                            return (index, outcome)
                        }
                    }
                    while next < min(max(1, jobs), plans.count) { startNext() }
                    while let (index, outcome) = await group.next() {
                        outcomes[index] = outcome
                        if next < plans.count { startNext() }
                    }
                    return outcomes.compactMap { $0 }
                }
            }
        return Result(outcomes: outcomes, startedAt: startedAt, duration: clock.now - start)
    }

}
