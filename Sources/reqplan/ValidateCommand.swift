import ArgumentParser
import Foundation
import ReqPlanPipeline
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanSyntax

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check plans statically: types, references, cycles. Exit 0 when all are valid, 1 otherwise."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, github, gitlab
    }

    @Argument(
        help: ArgumentHelp(
            "Plan files to check, or folders of plans (their .yaml and .yml files, at any depth, "
                + "but for names starting with _ or .)."))
    var plans: [String]

    @Option(
        help: "Output format: text, json, github (workflow annotations) or gitlab (a code-quality report).")
    var format: Format = .text

    @Flag(help: "Fail on warnings too.")
    var strict = false

    @Flag(help: "Print the schedule of each valid plan: waves, critical path, what it reads.")
    var explain = false

    @Option(help: "Color: auto, always or never.")
    var color: ColorChoice = .auto

    /// Checked against the plans: types, and with `--strict` names no plan declares.
    @OptionGroup var values: InputsFileOptions

    @OptionGroup var reading: PlanReadingOptions

    func run() throws {
        let suite = SuiteFiles(plans)
        var inputs: [InputsFile] = []
        if values.inputsFile != nil || values.environmentName != nil {
            switch InputsFile.read(
                file: values.inputsFile, environmentName: values.environmentName, forPlan: suite.files.first ?? ".",
                limits: reading.limits)
            {
            case .success(let read): inputs = read
            case .failure(let failure):
                let renderer = DiagnosticRenderer(colors: color.enabled, files: [failure.source].compactMap { $0 })
                writeError(renderer.text([failure.diagnostic]) + "\n")
                throw ExitCode(1)
            }
        }
        let pipeline = try reading.pipeline()
        let reports = PlanValidator.checkRunValues(
            pipeline.validate(suite), inputs: inputs, environment: ProcessInfo.processInfo.environment)
        switch format {
        case .text:
            write(
                ValidationOutput.text(
                    reports, colors: color.enabled, explain: explain, strict: strict,
                    parallel: explain && !reading.parallel ? parallelReports(of: reports, pipeline) : []))
        case .json:
            write(ValidationOutput.json(reports, strict: strict))
        case .github:
            write(ValidationOutput.github(reports, strict: strict))
        case .gitlab:
            write(ValidationOutput.gitlab(reports))
            writeError(ValidationOutput.summary(reports, strict: strict) + "\n")
        }
        // The process ends here, with the reports still held: freeing a large plan's trees only to exit
        // would cost a tenth of the command's time.
        StandardStreams.exit(reports.allSatisfy { $0.isValid(strict: strict) } ? 0 : 1)
    }

    /// The valid Arazzo documents among `reports`, read again as `--parallel` reads them (their descriptions
    /// as `pipeline` read them).
    private func parallelReports(of reports: [ValidationReport], _ pipeline: Pipeline) -> [ValidationReport] {
        let documents = reports.filter { report in
            report.graph != nil && report.sources.first.map(pipeline.isDocument) == true
        }
        guard !documents.isEmpty else { return [] }
        return pipeline.reading { $0.parallel = true }.validate(SuiteFiles(documents.map(\.path)))
    }
}
