import ArgumentParser
import Foundation
import Logging
import ReqPlanHTTP
import ReqPlanTransport
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanRuntime
import ReqPlanSyntax

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a plan, or a suite of plans: every step starts the moment its dependencies end.",
        discussion: """
            Several plan files, or folders of plans (their .yaml and .yml files, at any depth, but for names \
            starting with _ or .), make a suite: each plan runs on its own, up to --jobs at once, with one \
            summary and reports holding every plan. \
            Exit status: 0 every step succeeded or was skipped by its own `if`; 1 a step failed or was \
            skipped because of a failure; 2 a plan, its inputs or a cookie, proxy or TLS setting is invalid \
            (nothing is sent); 130 interrupted; 74 the run succeeded but an output (standard output or error, \
            a report, the cookie jar) could not be written. A suite exits with the worst status of its plans.
            """
    )

    @Argument(help: "The plan file; several files, or folders of plans, make a suite.")
    var plans: [String]

    @Option(help: ArgumentHelp("Suite: most plans running at once (default: the number of cores).", valueName: "n"))
    var jobs: Int?

    @Option(
        help: ArgumentHelp(
            "Suite: run part K of N (1 ≤ K ≤ N), the files dealt out in path order; "
                + "JOB_COMPLETION_INDEX/N takes K from that variable plus one (Kubernetes).",
            valueName: "K/N"),
        transform: RunCommand.parsedShard)
    var shard: Shard?

    /// `--shard K/N`, read once where the option is parsed; a value of another form is a usage error.
    static func parsedShard(_ text: String) throws -> Shard {
        do {
            return try Shard(parsing: text, environment: ProcessInfo.processInfo.environment)
        } catch {
            // ArgumentParser names the option and the value before the reason.
            throw ValidationError(error.message)
        }
    }

    @Option(name: .customLong("input"), help: "Set an input: --input name=value (repeatable).")
    var inputs: [String] = []

    @OptionGroup var values: InputsFileOptions

    @Option(
        help: ArgumentHelp(
            "Run only the step ID (at any depth; a group or sequence, typically) and the steps it needs.",
            valueName: "id"))
    var scenario: String?

    @Option(help: "Most requests in flight at once (overrides the plan's `concurrency`).")
    var concurrency: Int?

    @Option(
        name: .customLong("cookie-jar"),
        help: ArgumentHelp(
            "Load cookies from FILE before the run (if it exists) and save them to it after "
                + "(the Netscape format of curl -b/-c and Hurl).", valueName: "file"))
    var cookieJar: String?

    @OptionGroup var connection: ConnectionSettings

    @Option(help: "Color: auto, always or never.")
    var color: ColorChoice = .auto

    @Option(
        help:
            "Live progress on standard error: auto (a tree on a terminal, a line per step otherwise), tree, lines or none."
    )
    var progress: ProgressChoice = .auto

    @Flag(help: "Print only the totals, the outputs and the failures.")
    var quiet = false

    @Flag(help: "Print every request and response with headers (sensitive ones redacted) and the start of bodies.")
    var verbose = false

    @Option(help: "Standard output: text (the summary) or json (only the plan's outputs, for piping).")
    var output: OutputChoice = .text

    @Option(help: "Failures on standard error: text (diagnostics) or github (workflow annotations).")
    var format: FailureFormat = .text

    @Option(
        name: .customLong("report"),
        help: ArgumentHelp(
            "Write a report of the run: json:PATH, junit:PATH, trace:PATH, har:PATH or html:PATH (repeatable).",
            valueName: "kind:path"),
        transform: ReportDestination.parsedOption)
    var reports: [ReportDestination] = []

    @OptionGroup var reading: PlanReadingOptions

    @OptionGroup var logging: LoggingOptions

    enum ProgressChoice: String, ExpressibleByArgument, CaseIterable {
        case auto, tree, lines, none
    }

    enum OutputChoice: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    enum FailureFormat: String, ExpressibleByArgument, CaseIterable {
        case text, github
    }

    func validate() throws {
        if plans.isEmpty { throw ValidationError("give a plan file, or several files or folders (a suite)") }
        if let concurrency, concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if isSuite, let cookieJar {
            throw ValidationError(
                "--cookie-jar `\(cookieJar)` takes one plan: each plan of a suite has a cookie jar of its own")
        }
        try Self.checkScenario(scenario, suite: isSuite)
    }

    /// `--scenario` names a step: not empty, and of one plan.
    static func checkScenario(_ scenario: String?, suite: Bool) throws {
        guard let scenario else { return }
        if scenario.isEmpty { throw ValidationError("--scenario needs the id of a step of the plan") }
        if suite { throw ValidationError("--scenario takes one plan: a step id is of one plan") }
    }

    /// The notes of what `--scenario` left out, on standard error.
    static func showScenarioNotes(_ prepared: [PlanRun.Prepared]) {
        for note in prepared.flatMap({ $0.graph.scenario?.notes ?? [] }) { writeError("note: \(note)\n") }
    }

    /// Whether the command runs a suite: several paths, a folder, or a shard.
    var isSuite: Bool {
        plans.count > 1 || shard != nil || plans.contains { SuiteFiles.isFolder($0) }
    }

    func run() async throws {
        try OpenFileLimit.requireRoomForConnections()
        await InterruptSignals.monitor { number in
            writeError("reqplan: \(number == SIGTERM ? "SIGTERM" : "SIGINT") received, stopping the run\n")
        }
        try await runPlans()
    }

    /// How progress is shown: `--progress`, and `--quiet` silences `auto`.
    var progressMode: LiveProgress.Mode {
        switch (progress, quiet) {
        case (.none, _), (.auto, true): .silent
        case (.tree, _): .tree
        case (.lines, _): .lines
        case (.auto, false): isatty(STDERR_FILENO) == 1 ? .tree : .lines
        }
    }

    /// Saves the run's cookies to `--cookie-jar`, whatever the outcome of the run.
    /// - Returns: whether they were saved (a failure is printed to standard error).
    func saveCookieJar(_ jar: CookieJar) -> Bool {
        guard let cookieJar else { return true }
        do {
            try CookieFile.save(jar, to: cookieJar)
            return true
        } catch {
            writeError("error: cannot save the cookie jar to `\(cookieJar)`: \(error.reason)\n")
            return false
        }
    }

}
