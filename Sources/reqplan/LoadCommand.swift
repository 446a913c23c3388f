import ArgumentParser
import Foundation
import ReqPlanHTTP
import ReqPlanPipeline
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanRuntime
import ReqPlanSyntax
import ReqPlanTransport

struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Run a plan as a load: many iterations, open or closed model, latency percentiles per step.",
        discussion: """
            Each iteration is one run of the plan's DAG with its own inputs, cookies and tokens. The open model \
            (--rate, or --stage DURATION:RATE) starts iterations on schedule whatever the server does, and \
            measures each from when it was due (no coordinated omission); the closed model (--users, or --stage \
            DURATION:USERS) runs each user's iterations one after another. The plan's `slo:` limits are checked \
            at the end. See docs/load.md. \
            Exit status: 0 every `slo:` limit met (or none declared); 1 a limit missed, or the load aborted \
            (--abort-on-fail); 2 the plan, its inputs or a setting is invalid (nothing is sent); 130 \
            interrupted; 74 a report or an output could not be written, or --push failed.
            """
    )

    @Argument(help: "The plan file (or Arazzo document).")
    var plan: String

    @Option(help: ArgumentHelp("Open model: iterations started per second, minute or hour.", valueName: "n/s"))
    var rate: String?

    @Option(help: ArgumentHelp("Closed model: users, each running iterations one after another.", valueName: "n"))
    var users: Int?

    @Option(
        name: .customLong("stage"),
        help: ArgumentHelp(
            "A stage: over DURATION, move the rate (30s:500/s) or the users (30s:50) in a straight line to the "
                + "target (repeatable; the stages set the length).", valueName: "duration:target"))
    var stages: [String] = []

    @Option(help: ArgumentHelp("How long the load lasts, warm-up included.", valueName: "duration"))
    var duration: String?

    @Option(help: ArgumentHelp("The most iterations started in all.", valueName: "n"))
    var iterations: UInt64?

    @Option(
        name: .customLong("warm-up"),
        help: ArgumentHelp("Iterations started in this first part run but are not counted.", valueName: "duration"))
    var warmUp: String?

    @Option(help: ArgumentHelp("Closed model: each user's pause between iterations.", valueName: "duration"))
    var think: String?

    @Option(
        name: .customLong("max-in-flight"),
        help: ArgumentHelp(
            "Open model: the most iterations running at once (default 10000); a due iteration waits for a slot "
                + "and is counted late.", valueName: "n"))
    var maxInFlight: Int?

    @Option(
        help: ArgumentHelp(
            "How long iterations still running at the end may go on before they are cancelled (default 30s).",
            valueName: "duration"))
    var grace: String?

    @Option(
        help: ArgumentHelp(
            "Connections per host, shared out among the event loops (default: the users, or --max-in-flight;"
                + " within the open-file limit).",
            valueName: "n"))
    var connections: Int?

    @Option(
        help: ArgumentHelp(
            "The event loops (threads) the load sends from, each with its share of the connections (default: one "
                + "per core). As wrk's -t: fewer leave more of the machine to a server on it.", valueName: "n"))
    var threads: Int?

    @Option(
        help: ArgumentHelp(
            "Run part K of N (1 ≤ K ≤ N) of the load: 1/N of the rate, of the users and of --iterations; "
                + "JOB_COMPLETION_INDEX/N takes K from that variable plus one (Kubernetes). "
                + "`reqplan report merge` adds the shards' JSON reports up.", valueName: "K/N"),
        transform: RunCommand.parsedShard)
    var shard: Shard?

    @Flag(name: .customLong("share-cookies"), help: "Give every iteration one cookie jar (default: one each).")
    var shareCookies = false

    @Flag(name: .customLong("share-tokens"), help: "Share OAuth 2.0 tokens between iterations (default: one each).")
    var shareTokens = false

    @Flag(
        name: .customLong("abort-on-fail"),
        help: "Stop the load as soon as a `slo:` limit is missed by the figures so far (checked every second).")
    var abortOnFail = false

    @Option(name: .customLong("input"), help: "Set an input: --input name=value (repeatable).")
    var inputs: [String] = []

    @OptionGroup var values: InputsFileOptions

    @Option(
        help: ArgumentHelp(
            "Run only the step ID (at any depth; a group or sequence, typically) and the steps it needs, as "
                + "each iteration.", valueName: "id"))
    var scenario: String?

    @Option(
        help: ArgumentHelp(
            "Take each iteration's inputs from a row of this file: CSV with a header row of input names (.csv) "
                + "or one JSON object per line (.jsonl, .ndjson); a row's value wins over --input.",
            valueName: "file"))
    var data: String?

    @Option(
        name: .customLong("data-order"),
        help: "The order rows are taken in: sequential (the file's) or random.")
    var dataOrder: DataOrderChoice = .sequential

    @Option(
        name: .customLong("data-seed"),
        help: ArgumentHelp("The seed of --data-order random, to take the same rows again.", valueName: "n"))
    var dataSeed: UInt64?

    @Option(
        name: .customLong("data-reuse"),
        help: "cycle (after the last row, the first again) or once (each row once; the load ends when they run out).")
    var dataReuse: DataReuseChoice = .cycle

    @Option(help: "Most requests in flight at once in each iteration (overrides the plan's `concurrency`).")
    var concurrency: Int?

    @OptionGroup var connection: ConnectionSettings

    @Option(help: "Color: auto, always or never.")
    var color: ColorChoice = .auto

    @Option(
        help: ArgumentHelp(
            "Live progress on standard error, every second: auto (a table on a terminal, a line otherwise), "
                + "table, lines or none."))
    var progress: ProgressChoice = .auto

    @Option(
        name: .customLong("report"),
        help: ArgumentHelp(
            "Write a report of the load: json:PATH (every histogram whole), openmetrics:PATH or html:PATH "
                + "(repeatable).",
            valueName: "kind:path"),
        transform: LoadCommand.parsedReport)
    var reports: [LoadReportDestination] = []

    @OptionGroup var pushing: PushOptions

    @OptionGroup var reading: PlanReadingOptions

    @OptionGroup var logging: LoggingOptions

    enum ProgressChoice: String, ExpressibleByArgument, CaseIterable {
        case auto, table, lines, none
    }

    enum DataOrderChoice: String, ExpressibleByArgument, CaseIterable {
        case sequential, random
    }

    enum DataReuseChoice: String, ExpressibleByArgument, CaseIterable {
        case cycle, once
    }

    static func parsedReport(_ text: String) throws -> LoadReportDestination {
        do {
            return try LoadReportDestination(parsing: text)
        } catch {
            throw ValidationError(error.message)
        }
    }

    func validate() throws {
        _ = try profile()
        if let concurrency, concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        if data == nil, dataOrder != .sequential || dataSeed != nil || dataReuse != .cycle {
            throw ValidationError("--data-order, --data-seed and --data-reuse are for rows of a --data file")
        }
        if dataSeed != nil, dataOrder != .random { throw ValidationError("--data-seed is for --data-order random") }
        if let connections, connections < 1 || connections > 100_000 {
            throw ValidationError("--connections must be from 1 to 100000")
        }
        try RunCommand.checkScenario(scenario, suite: false)
    }

    /// The load's profile and how the report names what was asked, from the options.
    func profile() throws -> (LoadProfile, String) {
        func parsedDuration(_ text: String?, _ option: String, allowZero: Bool = false) throws -> Duration? {
            guard let text else { return nil }
            let value: PlanDuration
            do {
                value = try PlanDuration.parse(text)
            } catch .tooLong {
                throw ValidationError("\(option) is at most 7 days (168h), not `\(text)`")
            } catch {
                throw ValidationError("\(option) must be a duration such as 30s or 2m, not `\(text)`")
            }
            guard allowZero || value.milliseconds > 0 else {
                throw ValidationError("\(option) must be a duration such as 30s or 2m, not `\(text)`")
            }
            return value.duration
        }
        let length = try parsedDuration(duration, "--duration")
        let isRate = rate != nil || (users == nil && stages.contains { $0.contains("/") })
        if rate != nil, users != nil {
            throw ValidationError("give --rate (the open model) or --users (the closed model), not both")
        }
        if rate == nil, users == nil, stages.isEmpty {
            throw ValidationError("give --rate N/s (the open model), --users N (the closed model), or --stage")
        }
        guard stages.count <= 1000 else { throw ValidationError("at most 1000 --stage options") }
        var parsedStages: [LoadStage] = []
        for text in stages {
            switch LoadStage.parse(text, rate: isRate) {
            case .success(let stage): parsedStages.append(stage)
            case .failure(let error): throw ValidationError("--stage \(error.message)")
            }
        }
        if !parsedStages.isEmpty, length != nil {
            throw ValidationError("--duration and --stage both set the length: give one")
        }
        if parsedStages.isEmpty, length == nil, iterations == nil {
            throw ValidationError("give --duration, --iterations or --stage: a load needs an end")
        }
        if let iterations, iterations == 0 { throw ValidationError("--iterations must be at least 1") }
        let model: LoadProfile.Model
        var target: String
        if isRate {
            var initial = 0.0
            if let rate {
                switch LoadRate.parse(rate) {
                case .success(let value): initial = value
                case .failure(let error): throw ValidationError("--rate \(error.message)")
                }
            }
            let schedule =
                parsedStages.isEmpty
                ? ArrivalSchedule(rate: initial, duration: length)
                : ArrivalSchedule(initialRate: initial, stages: parsedStages)
            model = .open(schedule)
            target = parsedStages.isEmpty ? (rate ?? "") : "\(rate ?? "0/s") then \(stages.joined(separator: ", "))"
            if let think { throw ValidationError("--think `\(think)` is for the closed model (--users)") }
        } else {
            let count = users ?? 0
            guard (0...LoadLimits.maxUsers).contains(count), users == nil || count > 0 else {
                throw ValidationError("--users must be from 1 to \(LoadLimits.maxUsers)")
            }
            let schedule =
                parsedStages.isEmpty
                ? UserSchedule(users: count, duration: length)
                : UserSchedule(initialUsers: count, stages: parsedStages)
            model = .closed(schedule, think: try parsedDuration(think, "--think", allowZero: true) ?? .zero)
            let who = count == 1 ? "1 user" : "\(count) users"
            target = parsedStages.isEmpty ? who : "\(who) then \(stages.joined(separator: ", "))"
            if maxInFlight != nil { throw ValidationError("--max-in-flight is for the open model (--rate)") }
        }
        if let length { target += " for \(PlanDuration(milliseconds: Int(length.milliseconds)))" }
        if let iterations { target += ", at most \(iterations) iterations" }
        var profile = LoadProfile(model: model, iterations: iterations)
        if let warm = try parsedDuration(warmUp, "--warm-up", allowZero: true), warm > .zero {
            if let total = profile.duration, warm >= total {
                throw ValidationError("--warm-up `\(warmUp ?? "")` is as long as the load: nothing would be counted")
            }
            profile.warmUp = warm
            target += ", warm-up \(warmUp ?? "")"
        }
        if let maxInFlight {
            guard (1...LoadLimits.maxInFlight).contains(maxInFlight) else {
                throw ValidationError("--max-in-flight must be from 1 to \(LoadLimits.maxInFlight)")
            }
            profile.maxInFlight = maxInFlight
        }
        if let grace = try parsedDuration(grace, "--grace", allowZero: true) { profile.grace = grace }
        if let threads {
            let loops = HTTPClientTransport.eventLoopCount
            guard (1...loops).contains(threads) else {
                throw ValidationError("--threads must be from 1 to \(loops) (the event loops here: one per core)")
            }
            guard connection.httpClient == .reqplan else {
                throw ValidationError(
                    "--threads is for reqplan's own HTTP client (AsyncHTTPClient picks its own loops)")
            }
            target += threads == 1 ? ", 1 thread" : ", \(threads) threads"
        }
        profile.sharesCookies = shareCookies
        profile.sharesTokens = shareTokens
        if let shard {
            profile = profile.shard(index: shard.index, count: shard.count)
            target += ", shard \(shard.index)/\(shard.count)"
        }
        return (profile, target)
    }

    func run() async throws {
        try OpenFileLimit.requireRoomForConnections()
        await InterruptSignals.monitor { number in
            writeError("reqplan: \(number == SIGTERM ? "SIGTERM" : "SIGINT") received, stopping the load\n")
        }
        let (profile, asked) = try profile()
        // What was asked names the scenario: the summary and the reports are of it, not of the whole plan.
        let target = scenario.map { asked + ", scenario \(VisibleText.line($0))" } ?? asked
        let environment = ProcessInfo.processInfo.environment
        let scenario = scenario
        let pipeline = try reading.pipeline().reading { $0.scenario = scenario }
        let prepared: PlanRun.Prepared
        let inputs: @Sendable (UInt64) -> RunInputs?
        switch data.map({ prepareRows(from: $0, pipeline: pipeline, environment: environment) })
            ?? prepareOnce(pipeline: pipeline, environment: environment)
        {
        case .failure(let failure):
            let renderer = DiagnosticRenderer(colors: color.enabled(for: STDERR_FILENO), files: failure.sources)
            writeError(renderer.text(failure.diagnostics) + "\n")
            throw ExitCode(InterruptSignals.unpreparedExitCode)
        case .success(let ready):
            (prepared, inputs) = ready
        }
        RunCommand.showScenarioNotes([prepared])
        var transport = try connection.transport(
            secrets: SecretStore(), cookieJar: nil, color: color, limits: reading.limits)
        if let connections { transport.connectionsPerHost = connections }
        transport.eventLoops = threads
        let command = self
        let logger = logging.logger(label: "reqplan.executor")
        let sharedTokens = TokenCache<OAuthGrant>()
        let ownTokens = !command.shareTokens && prepared.graph.usesOAuth2
        let base = connection.runConfiguration(
            for: prepared, concurrency: concurrency, reading: reading, secrets: SecretStore(), tokens: sharedTokens,
            logger: logger)
        let display = LoadProgressDisplay(
            mode: progressMode, terminalRows: terminalRows(),
            write: { text in
                StandardStreams.write(text, to: .error)
                StandardStreams.flush(.error)
            })
        let objectives = prepared.graph.plan.slo
        let abort: (@Sendable (LoadResult) -> String?)? =
            abortOnFail && !objectives.isEmpty
            ? { @Sendable result in
                ObjectiveCheck.check(objectives, against: result).first { !$0.met && $0.measured != nil }?.summary
            } : nil
        var result = try await pipeline.executeLoad(
            prepared, profile: profile, target: target, inputs: inputs, inputsVary: data != nil, transport: transport,
            configuration: { _ in
                // Each iteration's own secrets and tokens in the settings made once: finding the plan's project
                // (a walk up its folders) every iteration took a seventh of a small load's time.
                var settings = base
                settings.secrets = SecretStore()
                // A plan with no OAuth 2.0 grant never reads the cache: no need for one per iteration.
                if ownTokens { settings.tokens = TokenCache<OAuthGrant>() }
                return settings
            }, progress: { display.show($0) }, abort: abort, supervisor: SignalSupervisor())
        result.shard = shard.map { LoadResult.ShardPart(index: $0.index, count: $0.count) }
        result.scenario = scenario
        let (missed, written) = Self.show(
            result, objectives: objectives, sources: prepared.graph.sources, reports: reports, color: color)
        // The figures go to the gateway even after a signal stopped the load, as the reports were written; a signal
        // during the push ends it (a gateway that never answers would otherwise hold Ctrl-C off for --push-timeout).
        let pushing = self.pushing
        let pushed = await InterruptSignals.cancellingOnSignal(evenIfInterrupted: true) { [result, transport] in
            await pushing.send(result, objectives: objectives, pipeline: pipeline, transport: transport)
        }
        if InterruptSignals.interrupted { StandardStreams.exit(RunVerdict.interrupted.exitCode) }
        if missed || result.stopped?.hasPrefix("aborted") == true {
            StandardStreams.exit(RunVerdict.failed.exitCode)
        }
        StandardStreams.exit(written && pushed ? 0 : StandardStreams.outputFailed)
    }

    /// The plan with the inputs every iteration takes.
    private func prepareOnce(pipeline: Pipeline, environment: [String: String]) -> Result<
        (PlanRun.Prepared, @Sendable (UInt64) -> RunInputs?), PlanRun.PreparationError
    > {
        pipeline.prepare(
            SuiteFiles(file: plan), overrides: inputs, inputsFile: values.inputsFile,
            environmentName: values.environmentName, environment: environment, naming: .commandLine
        ).map { plans in
            let values = plans[0].inputs
            return (plans[0], { _ in values })
        }
    }

    /// The plan with each iteration's inputs from a row of the data file at `path`, taken in the order and as
    /// often as `--data-order` and `--data-reuse` say; the file's warnings are shown at once.
    private func prepareRows(from path: String, pipeline: Pipeline, environment: [String: String]) -> Result<
        (PlanRun.Prepared, @Sendable (UInt64) -> RunInputs?), PlanRun.PreparationError
    > {
        pipeline.prepare(
            fileAt: plan, dataAt: path, overrides: inputs, inputsFile: values.inputsFile,
            environmentName: values.environmentName, environment: environment, naming: .commandLine
        ).map { rows in
            if !rows.warnings.isEmpty {
                let renderer = DiagnosticRenderer(colors: color.enabled(for: STDERR_FILENO), files: rows.sources)
                writeError(renderer.text(rows.warnings) + "\n")
            }
            let feed = DataFeed(
                rowCount: rows.rows.count, order: dataOrder == .random ? .random(seed: dataSeed) : .sequential,
                reuse: dataReuse == .once ? .once : .cycle)
            if let seed = feed.seed, dataSeed == nil {
                writeError("note: --data-order random drew the seed \(seed); --data-seed \(seed) takes the same rows\n")
            }
            let table = rows.rows
            return (rows.plan, { _ in feed.next().map { table.inputs(ofRow: $0) } })
        }
    }

    /// What a load (or the merge of its shards) shows at the end: the summary on standard output, a missed
    /// `slo:` limit as RP0519 on standard error (located in `sources`, the plan's), and the reports.
    /// - Returns: whether a limit was missed, and whether every report was written.
    static func show(
        _ result: LoadResult, objectives: [ServiceLevelObjective], sources: [SourceFile],
        reports: [LoadReportDestination], color: ColorChoice
    ) -> (missed: Bool, written: Bool) {
        let outcomes = ObjectiveCheck.check(objectives, against: result)
        write("\n" + result.summaryText(outcomes: outcomes, colors: color.enabled))
        let missed = outcomes.compactMap { $0.diagnostic(file: result.plan) }
        if !missed.isEmpty {
            let renderer = DiagnosticRenderer(colors: color.enabled(for: STDERR_FILENO), files: sources)
            writeError("\n" + renderer.text(missed))
        }
        let written = writeReportFiles(reports) { try result.write(to: $0, outcomes: outcomes) }
        return (!missed.isEmpty, written)
    }

    /// How progress is shown: `--progress`; `auto` is a table on a terminal, lines otherwise.
    var progressMode: LoadProgressDisplay.Mode {
        switch progress {
        case .none: .silent
        case .table: .table
        case .lines: .lines
        case .auto: isatty(STDERR_FILENO) == 1 ? .table : .lines
        }
    }
}
