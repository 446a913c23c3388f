import ArgumentParser
import Foundation
import ReqPlanTransport
import ReqPlanPipeline
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanRuntime
import ReqPlanSyntax

extension RunCommand {
    /// Runs the plan, or the suite (the plan files of the arguments, the `--shard`'s part of them, up to
    /// `--jobs` at once), in one flow: validate and resolve inputs, set up the transport, run with live
    /// progress, then the summary, the failures, the reports and the exit status. A single plan and a
    /// suite differ only in what is shown: a plan's progress tree and step summary and its own reports,
    /// or one line per plan and reports holding every plan.
    func runPlans() async throws {
        let environment = ProcessInfo.processInfo.environment
        var files = isSuite ? SuiteFiles(plans) : SuiteFiles(file: plans[0])
        let total = files.files.count
        let part = shard
        if let part { files.files = part.select(files.files) }
        let scenario = scenario
        let pipeline = try reading.pipeline().reading { $0.scenario = scenario }
        let prepared: [PlanRun.Prepared]
        switch pipeline.prepare(
            files, overrides: inputs, inputsFile: values.inputsFile, environmentName: values.environmentName,
            environment: environment, naming: .commandLine)
        {
        case .failure(let failure):
            let renderer = DiagnosticRenderer(colors: color.enabled(for: STDERR_FILENO), files: failure.sources)
            writeError(renderer.text(failure.diagnostics) + "\n")
            throw ExitCode(InterruptSignals.unpreparedExitCode)
        case .success(let value):
            prepared = value
        }
        Self.showScenarioNotes(prepared)
        let secrets = SecretStore()
        let transportConfiguration = try connection.transport(
            secrets: secrets, cookieJar: cookieJar, color: color, limits: reading.limits)
        let display = RunDisplay(command: self, prepared: prepared, secrets: secrets)
        let command = self
        let logger = logging.logger(label: "reqplan.executor")
        let tokens = TokenCache<OAuthGrant>()
        let ran = try await pipeline.execute(
            prepared, jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount, transport: transportConfiguration,
            configuration: {
                command.connection.runConfiguration(
                    for: $0, concurrency: command.concurrency, reading: command.reading, secrets: secrets,
                    tokens: tokens,
                    logger: logger)
            },
            observer: display.observer, started: display.started, finished: display.finished,
            refresh: display.refresh, supervisor: SignalSupervisor())
        // Every output from here (the summary, the failures, the reports) shows the results through the net:
        // a secret of 8 characters or more is in no string of them, wherever its text came from.
        let result = ran.shown(secrets: secrets)

        // A suite's report holds every plan's (its summary is written from it); a plan's is made only to
        // be written.
        let runReports = { () -> [RunReport] in
            result.outcomes.enumerated().map { index, outcome in
                RunReport(
                    result: outcome.result, graph: outcome.prepared.graph, inputs: outcome.prepared.inputs,
                    exchanges: display.traffic?[index].exchanges ?? [])
            }
        }
        let suiteReport =
            isSuite
            ? SuiteReport(
                runs: Array(zip(runReports(), result.outcomes.map(\.offset))), startedAt: result.startedAt,
                duration: result.duration,
                shard: part.map { SuiteReport.ShardInfo(index: $0.index, count: $0.count, files: total) })
            : nil
        write(summary(of: result, suiteReport: suiteReport))
        let diagnostics = result.outcomes.flatMap {
            $0.result.diagnostics(graph: $0.prepared.graph, unset: $0.prepared.unset)
        }
        if !diagnostics.isEmpty {
            // The plans' own lines quoted under a failure may hold a secret written literally: hidden too.
            let hidden = Redactor(
                secrets: prepared.flatMap(\.inputs.secrets) + result.outcomes.flatMap(\.result.secrets), store: secrets
            ).texts
            switch format {
            case .text:
                var renderer = DiagnosticRenderer(
                    colors: color.enabled(for: STDERR_FILENO), files: prepared.flatMap(\.graph.sources))
                renderer.hiding = hidden
                writeError("\n" + renderer.text(diagnostics))
            case .github:
                var renderer = DiagnosticRenderer(files: [])
                renderer.hiding = hidden
                writeError(renderer.github(diagnostics))
            }
        }
        // The suite's reports, or the plan's own.
        let planReport = reports.isEmpty || isSuite ? nil : runReports().first
        let reportsWritten = writeReportFiles(reports) { destination in
            try suiteReport?.write(to: destination)
            try planReport?.write(to: destination)
        }
        let jarSaved = saveCookieJar(transportConfiguration.cookies)
        // A signal after the run ended let the summary and reports finish; the status still says it came.
        // The process ends here, with the plans and results still held: freeing them only to exit would
        // cost a large plan's run a tenth of its time.
        if InterruptSignals.interrupted { StandardStreams.exit(RunVerdict.interrupted.exitCode) }
        if result.exitCode != 0 { StandardStreams.exit(result.exitCode) }
        StandardStreams.exit(!reportsWritten || !jarSaved ? StandardStreams.outputFailed : 0)
    }

    /// What standard output shows after the run: the plans' outputs as JSON (`--output json`: a plan's own
    /// object, or one per plan file), else the summary (a plan's steps, or a suite's plans).
    private func summary(of result: SuiteRun.Result, suiteReport: SuiteReport?) -> String {
        switch (output, suiteReport) {
        case (.json, nil):
            return (result.outcomes.first?.result.outputsJSON() ?? "{}") + "\n"
        case (.json, _?):
            let outputs = Value.object(
                result.outcomes.map { Value.Field($0.prepared.graph.plan.source.path, $0.result.outputsValue) })
            return outputs.jsonText(pretty: true) + "\n"
        case (.text, let report?):
            return report.summaryText(quiet: quiet)
        case (.text, nil):
            guard let outcome = result.outcomes.first else { return "" }
            return quiet
                ? outcome.result.totalsText(withOutputs: true)
                : outcome.result.summaryText(graph: outcome.prepared.graph)
        }
    }
}

/// How a run is shown while it goes: a single plan's progress tree (or lines) and its verbose log, or a
/// suite's line per plan and each plan's verbose log.
private struct RunDisplay: Sendable {
    let observer: @Sendable (Int) -> any ExecutionObserver
    let started: @Sendable (Int) -> Void
    let finished: @Sendable (Int, SuiteRun.Outcome) -> Void
    let refresh: (@Sendable () -> Void)?
    /// Each plan's exchanges, recorded when a HAR report is asked for.
    let traffic: [TrafficRecorder]?

    init(command: RunCommand, prepared: [PlanRun.Prepared], secrets: SecretStore) {
        // HAR and the HTML page show every exchange: only they need each one recorded.
        let recordsTraffic = command.reports.contains { $0.kind == .har || $0.kind == .html }
        let traffic = recordsTraffic ? prepared.map { _ in TrafficRecorder() } : nil
        self.traffic = traffic
        let mode = command.progressMode
        let colors = command.color.enabled(for: STDERR_FILENO)
        // The textual net for what the live displays show: the responses the verbose log dumps, and the
        // progress lines, whose reasons may quote the plan's own text (an expected value written literally).
        let redactor = Redactor(secrets: prepared.flatMap(\.inputs.secrets), store: secrets)
        let verbose = command.verbose
        // A plan's own observers: its traffic recorder (a HAR report, an HTML page) and its verbose log.
        @Sendable func planObservers(_ index: Int) -> [any ExecutionObserver] {
            let recorder: [any ExecutionObserver] = traffic.map { [$0[index]] } ?? []
            guard verbose else { return recorder }
            let headers = prepared[index].graph.instances.flatMap(\.plan.redactHeaders).map(\.value)
            return recorder + [VerboseLog(redactHeaders: headers, redactor: redactor, write: { writeError($0) })]
        }
        if command.isSuite {
            let live =
                mode == .silent
                ? nil
                : SuiteProgress(
                    files: prepared.map(\.graph.plan.source.path),
                    steps: prepared.map { $0.graph.nodes.count { $0.loop == nil } }, mode: mode, colors: colors,
                    terminalRows: terminalRows(), write: { writeError(redactor.redact($0)) })
            observer = { index in
                var observers = planObservers(index)
                if let live { observers.insert(live.observer(for: index), at: 0) }
                return ObserverGroup(observers)
            }
            started = { live?.started($0) }
            finished = { live?.finished($0, result: $1.result) }
            if let live { refresh = { live.redraw() } } else { refresh = nil }
        } else {
            // A line per finished step is batched: written ten times a second (at each refresh), or sooner
            // with anything else written to standard error, in the order it came (`StandardStreams`).
            let batched = mode == .lines
            let write: @Sendable (String) -> Void = { text in
                let shown = redactor.redact(text)
                if batched { StandardStreams.writeBatched(shown, to: .error) } else { writeError(shown) }
            }
            let live =
                mode == .silent || prepared.isEmpty
                ? nil
                : LiveProgress(
                    graph: prepared[0].graph, mode: mode, colors: colors, terminalRows: terminalRows(),
                    write: write)
            observer = { index in
                var observers = planObservers(index)
                if let live { observers.insert(live, at: 0) }
                return ObserverGroup(observers)
            }
            started = { _ in }
            finished = { _, _ in }
            // The display is redrawn (or its lines written) ten times a second while the run goes on.
            if let live {
                refresh = {
                    live.redraw()
                    StandardStreams.flush(.error)
                }
            } else {
                refresh = nil
            }
        }
    }
}
