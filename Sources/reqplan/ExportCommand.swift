import ArgumentParser
import ReqPlanPipeline
import ReqPlanPresentation
import ReqPlanSyntax

#if canImport(Glibc)
    import Glibc
#endif

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a plan bound to OpenAPI descriptions as an Arazzo 1.1 document.",
        discussion: """
            FORMAT is `arazzo`. The plan's steps are written in a topological order of its DAG, what later \
            steps read becomes step outputs; what has no Arazzo form is refused with its place (RP1450, \
            RP1451) and nothing is written. See docs/import.md.
            """
    )

    @Argument(help: "The format to write: arazzo.")
    var format: String

    @Argument(help: "The plan to export.")
    var plan: String

    @Option(
        name: .shortAndLong, help: "Write the document to this file (whole or not at all) instead of standard output.")
    var output: String?

    @Option(help: "Color: auto, always or never.")
    var color: ColorChoice = .auto

    @OptionGroup var reading: PlanReadingOptions

    func run() throws {
        guard format.lowercased() == "arazzo" else {
            throw ValidationError("unknown format `\(format)`; one of: arazzo")
        }
        if let output, ImportCommand.sameFile(plan, output) {
            throw ValidationError("`-o \(output)` is the plan: it would be overwritten")
        }
        let export = try reading.pipeline().exportArazzo(fileAt: plan, writingTo: output)
        let renderer = DiagnosticRenderer(colors: color.enabled(for: STDERR_FILENO), files: export.report.sources)
        guard let result = export.result else {
            writeError(renderer.text(export.report.diagnostics) + "\n")
            throw ExitCode(1)
        }
        if !result.diagnostics.isEmpty { writeError(renderer.text(result.diagnostics) + "\n") }
        guard let text = result.text else { throw ExitCode(1) }
        try CommandOutput.write(text, to: output)
    }
}
