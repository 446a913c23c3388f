import ArgumentParser
import Foundation
import ReqPlanPipeline
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanSyntax

struct CoverageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coverage",
        abstract: "Show which operations of an OpenAPI document, and which documented statuses, plans exercise."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: "Plan files, or folders of plans (as `validate` reads them).")
    var plans: [String]

    @Option(help: ArgumentHelp("The OpenAPI 3.0 or 3.1 document (YAML or JSON).", valueName: "spec"))
    var openapi: String

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @Option(help: "Color for diagnostics: auto, always or never.")
    var color: ColorChoice = .auto

    @OptionGroup var reading: PlanReadingOptions

    func run() throws {
        let spec = URL(fileURLWithPath: openapi).standardizedFileURL.resolvingSymlinksInPath()
        let boundary = FileBoundary(
            planFile: spec.path, allowOutside: reading.allowFilesOutside, outsideSetting: reading.limits.outsideSetting)
        let pipeline = try reading.pipeline()
        let description: APIDescription
        switch pipeline.description(fileAt: spec.path, boundary: boundary) {
        case .success(let loaded): description = loaded
        case .failure(let error):
            writeError("error: `\(openapi)` cannot be loaded: \(error.message)\n")
            throw ExitCode(1)
        }
        let reports = pipeline.validate(SuiteFiles(plans))
        let invalid = reports.filter { $0.graph == nil || $0.errorCount > 0 }
        if !invalid.isEmpty {
            write(ValidationOutput.text(invalid, colors: color.enabled, explain: false, strict: false))
            throw ExitCode(1)
        }
        let coverage = APICoverage(
            of: description, by: reports.compactMap { report in report.graph.map { (report.path, $0) } })
        switch format {
        case .text: write(coverage.table())
        case .json: write(coverage.json().jsonText(pretty: true) + "\n")
        }
    }
}
