import ArgumentParser
import Foundation
import ReqPlanHTTP
import ReqPlanPresentation
import ReqPlanRuntime
import ReqPlanSyntax

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Work with the reports of runs.",
        subcommands: [MergeCommand.self]
    )

    struct MergeCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract:
                "Combine the JSON reports of the shards of a suite, or of a load, into one summary and report.",
            discussion: """
                Give the files `reqplan run --shard K/N --report json:PATH` wrote, one per shard (or any suite \
                and plan reports): the plans are put in suite order, and the summary, `--report json:`, \
                `--report junit:` and `--report html:` are those of the whole suite run on one machine, apart \
                from timings (the page lacks the exchanges' headers and bodies, which JSON reports do not keep). A shard \
                missing or given twice, shards of different suites, or a plan in two reports is an error. \
                The JSON reports of `reqplan load --shard K/N` merge into the figures of one load: the histograms \
                add exactly, so the percentiles are those of one run of the whole load; the plan's `slo:` limits \
                are checked again when the plan is at the path the reports name. \
                Exit status: the worst of the merged plans' (0, 1, 130); for loads 1 when a `slo:` limit is \
                missed; 2 when the reports cannot be merged; 74 when a report cannot be written or --push fails.
                """
        )

        @Argument(help: "The JSON reports to combine.")
        var files: [String]

        @Option(
            name: .customLong("report"),
            help: ArgumentHelp(
                "Write the combined report: json:PATH, junit:PATH or html:PATH; of loads, json:PATH, "
                    + "openmetrics:PATH or html:PATH (repeatable).",
                valueName: "kind:path"))
        var reports: [String] = []

        @OptionGroup var pushing: PushOptions

        /// How `--push` reaches the gateway (TLS, proxies), as `run` and `load` reach servers.
        @OptionGroup var trust: TrustOptions

        @OptionGroup var reading: PlanReadingOptions

        @Flag(help: "Print only the plans that did not pass, their failures and the totals.")
        var quiet = false

        @Option(help: "Color for diagnostics: auto, always or never.")
        var color: ColorChoice = .auto

        /// The largest report read, in bytes.
        static let maxReportSize = 64 << 20

        func validate() throws {
            if files.isEmpty { throw ValidationError("give the JSON reports to merge") }
            if trust.isGiven && pushing.push == nil {
                throw ValidationError("--insecure, --proxy, --noproxy, --cacert, --cert and --key are for --push")
            }
            for text in reports where (try? ReportDestination(parsing: text)) == nil {
                // A load's report kind; `run` checks it is one when it knows what it merges.
                _ = try LoadCommand.parsedReport(text)
            }
            for destination in reports.compactMap({ try? ReportDestination(parsing: $0) })
            where destination.kind == .trace || destination.kind == .har {
                throw ValidationError(
                    "--report `\(destination)`: merged reports have no \(destination.kind.rawValue) (JSON reports keep "
                        + "neither the trace nor the exchanges); write json, junit or html"
                )
            }
        }

        func run() async throws {
            var documents: [(path: String, text: String)] = []
            var unreadable: [Diagnostic] = []
            for file in files {
                switch FileReader.text(atPath: file, origin: .user, limit: Self.maxReportSize, what: "the report") {
                case .success(let text): documents.append((file, text))
                case .failure(let failure):
                    unreadable.append(Diagnostic(.error, .unreadableFile, failure.text, file: file))
                }
            }
            let renderer = DiagnosticRenderer(colors: color.enabled(for: STDERR_FILENO), files: [])
            guard unreadable.isEmpty else {
                writeError(renderer.text(unreadable) + "\n")
                throw ExitCode(2)
            }
            let loads = documents.map { LoadResult.isReport($0.text) }
            if !documents.isEmpty, !loads.contains(false) {
                try await mergeLoads(documents, renderer: renderer)
                return
            }
            if let load = loads.firstIndex(of: true), let other = loads.firstIndex(of: false) {
                // Each would be called "not a report" by the other kind's merge.
                let mixed = Diagnostic(
                    .error, .unmergeableReports,
                    "`\(documents[load].path)` is the report of a load and `\(documents[other].path)` is not: the reports "
                        + "of loads and those of runs do not merge together", file: documents[other].path,
                    hint: "merge the reports of `reqplan load` and those of `reqplan run` apart")
                writeError(renderer.text([mixed]) + "\n")
                throw ExitCode(2)
            }
            if pushing.push != nil {
                throw ValidationError("--push is for the reports of loads: these are of runs")
            }
            let destinations = try reports.map(ReportDestination.parsedOption)
            let report: SuiteReport
            switch SuiteReport.merging(documents) {
            case .failure(let failure):
                writeError(renderer.text(failure.diagnostics) + "\n")
                throw ExitCode(2)
            case .success(let value):
                report = value
            }
            write(report.summaryText(quiet: quiet))
            let written = writeReportFiles(destinations) { try report.write(to: $0) }
            if report.exitCode != 0 { throw ExitCode(report.exitCode) }
            if !written { throw ExitCode(StandardStreams.outputFailed) }
        }

        /// Merges the JSON reports of a load's shards: the summary of the whole load, its reports, and the
        /// plan's `slo:` checked again when the plan is where the reports say.
        private func mergeLoads(_ documents: [(path: String, text: String)], renderer: DiagnosticRenderer) async throws
        {
            let destinations = try reports.map(LoadCommand.parsedReport)
            let result: LoadResult
            switch LoadResult.merging(documents) {
            case .failure(let failure):
                writeError(renderer.text(failure.diagnostics) + "\n")
                throw ExitCode(2)
            case .success(let value):
                result = value
            }
            var objectives: [ServiceLevelObjective] = []
            var sources: [SourceFile] = []
            // The plan as the load ran it: narrowed to its scenario, whose `slo:` leaves out the steps it did not run.
            let scenario = result.scenario
            let pipeline = try reading.pipeline().reading { $0.scenario = scenario }
            let validated = pipeline.validate(fileAt: result.plan)
            if let plan = validated.plan, validated.errorCount == 0 {
                objectives = plan.slo
                sources = validated.sources
                for note in validated.graph?.scenario?.notes ?? [] { writeError("note: \(note)\n") }
            } else {
                writeError("note: the plan `\(result.plan)` was not read, so its `slo:` limits were not checked\n")
            }
            let (missed, written) = LoadCommand.show(
                result, objectives: objectives, sources: sources, reports: destinations, color: color)
            // The push goes out as the load's would: through `--proxy`, trusting `--cacert` (with no cookies).
            var transport = HTTPClientTransport.Configuration()
            if pushing.push != nil {
                try trust.apply(to: &transport, color: color, limits: reading.limits)
            }
            let pushed = await pushing.send(result, objectives: objectives, pipeline: pipeline, transport: transport)
            if missed { throw ExitCode(1) }
            if !written || !pushed { throw ExitCode(StandardStreams.outputFailed) }
        }
    }
}
