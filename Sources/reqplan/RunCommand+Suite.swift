import ArgumentParser
import Foundation
import ReqPlanHTTP
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanRuntime
import ReqPlanSyntax

extension RunCommand {
    /// Runs a suite: the plan files of the arguments (the `--shard`'s part of them), up to `--jobs` at
    /// once; one summary, every plan's failures, reports holding every plan.
    func runSuite() async throws {
        let environment = ProcessInfo.processInfo.environment
        var suite = SuiteFiles(plans)
        let total = suite.files.count
        var part: Shard?
        if let shard {
            do {
                part = try Shard(parsing: shard, environment: environment)
            } catch {
                throw ValidationError("--shard \(error.message)")
            }
        }
        if let part { suite.files = part.select(suite.files) }
        let prepared: [PlanRun.Prepared]
        switch SuiteRun.prepare(
            suite, limits: reading.limits, overrides: inputs, inputsFile: values.inputsFile,
            environmentName: values.environmentName, environment: environment,
            allowFilesOutside: reading.allowFilesOutside,
            library: .forCommand())
        {
        case .failure(let failure):
            let renderer = DiagnosticRenderer(colors: color.enabled(for: STDERR_FILENO), files: failure.sources)
            writeError(renderer.text(failure.diagnostics) + "\n")
            throw ExitCode(2)
        case .success(let value):
            prepared = value
        }
        // The plans' YAML trees are freed: give their pages back before the run allocates elsewhere.
        FreedMemory.release()
        let secrets = SecretStore()
        let transportConfiguration = try transport(
            planConcurrency: prepared.map { $0.graph.plan.concurrency?.value }, secrets: secrets)
        // The textual net for the responses the verbose log shows.
        let redactor = Redactor(secrets: prepared.flatMap(\.inputs.secrets), store: secrets)
        let mode = progressMode
        let live =
            mode == .silent
            ? nil
            : SuiteProgress(
                files: prepared.map(\.graph.plan.source.path),
                steps: prepared.map { $0.graph.nodes.count { $0.loop == nil } }, mode: mode,
                colors: color.enabled(for: STDERR_FILENO), terminalRows: terminalRows(),
                write: { writeError($0) })
        let verbose = self.verbose
        let command = self
        let logger = logging.logger(label: "reqplan.executor")
        let observer: @Sendable (Int) -> any ExecutionObserver = { index in
            var observers: [any ExecutionObserver] = []
            if let live { observers.append(live.observer(for: index)) }
            if verbose {
                observers.append(
                    VerboseLog(
                        redactHeaders: prepared[index].graph.plan.redactHeaders.map(\.value), redactor: redactor,
                        write: { writeError($0) }))
            }
            return ObserverGroup(observers)
        }
        var refresh: (@Sendable () -> Void)?
        if let live { refresh = { live.redraw() } }
        let result = try await SuiteRun.execute(
            prepared, jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount, transport: transportConfiguration,
            configuration: { command.runConfiguration(for: $0, secrets: secrets, logger: logger) }, observer: observer,
            started: { live?.started($0) }, finished: { live?.finished($0, result: $1.result) }, refresh: refresh,
            supervisor: SignalSupervisor())

        let report = SuiteReport(
            runs: result.outcomes.map { outcome in
                (
                    RunReport(result: outcome.result, graph: outcome.prepared.graph, inputs: outcome.prepared.inputs),
                    outcome.offset
                )
            },
            startedAt: result.startedAt, duration: result.duration,
            shard: part.map { SuiteReport.ShardInfo(index: $0.index, count: $0.count, files: total) })
        switch output {
        case .json:
            let outputs = Value.object(
                result.outcomes.map { outcome in
                    Value.Field(
                        outcome.prepared.graph.plan.source.path,
                        outcome.result.outputsValue)
                })
            write(outputs.jsonText(pretty: true) + "\n")
        case .text:
            write(report.summaryText(quiet: quiet))
        }
        let diagnostics = result.outcomes.flatMap {
            $0.result.diagnostics(graph: $0.prepared.graph, unset: $0.prepared.unset)
        }
        if !diagnostics.isEmpty {
            switch format {
            case .text:
                let renderer = DiagnosticRenderer(
                    colors: color.enabled(for: STDERR_FILENO),
                    files: prepared.map(\.graph.plan.source))
                writeError("\n" + renderer.text(diagnostics))
            case .github:
                writeError(DiagnosticRenderer(files: []).github(diagnostics))
            }
        }
        let reportsWritten = writeReports { try report.write(to: $0) }
        if InterruptSignals.interrupted { throw ExitCode(130) }
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
        if !reportsWritten { throw ExitCode(StandardStreams.outputFailed) }
    }
}
