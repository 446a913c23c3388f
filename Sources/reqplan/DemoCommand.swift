import ArgumentParser
import Foundation
import ReqPlanDemoAPI
import ReqPlanHTTP
import ReqPlanTransport
import ReqPlanPipeline
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanRuntime
import ReqPlanSyntax

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start the demo API on a free loopback port and run the example plans against it."
    )

    @Argument(help: "Plans, or folders of plans, to run one by one (default: every plan in ./plans, at any depth).")
    var plans: [String] = []

    @Option(help: "Serve the demo API only, on this port, until interrupted.")
    var serve: Int?

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        // A port is 16 bits (0: any free one); past it, the socket took its low bits and served elsewhere.
        if let serve, !(0...65_535).contains(serve) {
            throw ValidationError("--serve is a port from 0 (any free one) to 65535, not \(serve)")
        }
    }

    func run() async throws {
        try OpenFileLimit.requireRoomForConnections()
        if let port = serve {
            try await DemoAPI.run(port: port, logLevel: logging.swiftLogLevel) { bound in
                write("demo API listening on http://127.0.0.1:\(bound)\n")
            }
            return
        }
        var isFolder: ObjCBool = false
        if plans.isEmpty,
            !FileManager.default.fileExists(atPath: Self.examplePlans, isDirectory: &isFolder)
                || !isFolder.boolValue
        {
            // The example plans are not part of the binary: they are the `plans/` folder of the repository.
            writeError("error: " + Self.noExamplePlans(in: FileManager.default.currentDirectoryPath) + "\n")
            throw ExitCode(RunVerdict.invalid.exitCode)
        }
        let paths = SuiteFiles(plans.isEmpty ? [Self.examplePlans] : plans).files
        guard !paths.isEmpty else { throw ValidationError("no plans found in ./plans; pass plan files") }
        let pipeline = Pipeline()
        let outcomes = try await DemoAPI.withServer { baseURL in
            write("demo API listening on \(baseURL)\n")
            var outcomes: [DemoPlanOutcome] = []
            for path in paths {
                write("\n== \(path)\n")
                let outcome = pipeline.prepare(
                    SuiteFiles(file: path), overrides: ["base_url=\(baseURL)"],
                    environment: [
                        "DEMO_TOKEN": "demo-secret-token", "DEMO_PASSWORD": "demo-password",
                        "DEMO_API_KEY": "demo-api-key",
                    ].merging(
                        ProcessInfo.processInfo.environment, uniquingKeysWith: { _, real in real }),
                    ignoringUndeclared: true, naming: .commandLine
                ).map { $0[0] }
                guard case .success(let prepared) = outcome else {
                    if case .failure(let failure) = outcome {
                        writeError(DiagnosticRenderer(files: failure.sources).text(failure.diagnostics))
                    }
                    outcomes.append(.invalid)
                    continue
                }
                let configuration = RunConfiguration(
                    files: FileAccess(planDirectory: URL(fileURLWithPath: path).deletingLastPathComponent()))
                var transport = HTTPClientTransport.Configuration()
                transport.secrets = configuration.secrets
                let result = try await pipeline.execute(
                    prepared, configuration: configuration, transport: transport, supervisor: SignalSupervisor())
                write(result.summaryText(graph: prepared.graph))
                if result.verdict == .interrupted { throw ExitCode(RunVerdict.interrupted.exitCode) }
                let ended = DemoPlanOutcome(runExitCode: result.exitCode, planText: prepared.graph.plan.source.text)
                if let note = Self.note(ended, path: path) { write(note + "\n") }
                outcomes.append(ended)
            }
            return outcomes
        }
        write("\n" + Self.totals(outcomes) + "\n")
        let status = DemoPlanOutcome.exitCode(of: outcomes)
        if status != 0 { throw ExitCode(status) }
    }

    /// What `reqplan demo` says under a plan's summary when it did not simply succeed.
    static func note(_ outcome: DemoPlanOutcome, path: String) -> String? {
        switch outcome {
        case .succeeded, .invalid: nil
        case .failedOnPurpose:
            "note: \(path) fails on purpose, to show a failure (its line `\(DemoPlanOutcome.failsOnPurposeMark)`)"
        case .failed: "error: steps of \(path) failed"
        case .succeededDespiteMark:
            "error: \(path) is marked to fail on purpose (`\(DemoPlanOutcome.failsOnPurposeMark)`), "
                + "but every step succeeded"
        }
    }

    /// The last line of `reqplan demo`: how many plans ran, and how many did not succeed, and why.
    static func totals(_ outcomes: [DemoPlanOutcome]) -> String {
        let ran = "ran \(outcomes.count) plan\(outcomes.count == 1 ? "" : "s") against the demo API"
        let parts: [(DemoPlanOutcome, String)] = [
            (.failed, "failed"), (.invalid, "invalid"), (.failedOnPurpose, "failed on purpose"),
            (.succeededDespiteMark, "succeeded though marked to fail"),
        ]
        let counts = parts.compactMap { outcome, words in
            let count = outcomes.count { $0 == outcome }
            return count == 0 ? nil : "\(count) \(words)"
        }
        return counts.isEmpty ? ran : ran + ": " + counts.joined(separator: ", ")
    }

    /// Where `reqplan demo` looks for the example plans without arguments: `plans` in the current folder.
    static let examplePlans = "plans"

    /// What `reqplan demo` says when there is no `./plans` folder (run outside a clone of the repository).
    static func noExamplePlans(in folder: String) -> String {
        """
        reqplan demo runs the example plans of the reqplan repository, which it looks for in ./plans \
        (here: \(folder)/plans), and there is no such folder.
          - run it from a clone of the repository (its plans/ folder), or
          - name plans or folders of plans to run against the demo API: reqplan demo path/to/plans, or
          - serve the demo API alone and point your own plans at it: reqplan demo --serve 8080
        """
    }
}
