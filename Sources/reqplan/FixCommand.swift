import ArgumentParser
import Foundation
import ReqPlanPipeline
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanSyntax

struct FixCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fix",
        abstract:
            "Apply the safe fixes of plans' and Arazzo documents' diagnostics: print a diff, or write with --write.",
        discussion: """
            Safe fixes are a misspelt name with one candidate and the specification's form of another runner's \
            Arazzo shorthand; `default(…)` for RP0853 is left to the author. A file that keeps errors no fix \
            fixes is not changed, unless --allow-errors. Exit 0 when every file validates after its fixes, \
            1 otherwise.
            """
    )

    @Argument(
        help: ArgumentHelp(
            "Plan files or Arazzo documents to fix, or folders of plans (their .yaml and .yml files, at any depth, "
                + "but for names starting with _ or .)."))
    var plans: [String]

    @Flag(
        name: .customLong("write"),
        help: "Write the fixed files in place (each whole or not at all), rather than print a diff.")
    var writeFiles = false

    @Flag(help: "Apply the fixes even to a file that keeps errors no fix fixes.")
    var allowErrors = false

    @Option(help: "Color of the remaining diagnostics: auto, always or never.")
    var color: ColorChoice = .auto

    @OptionGroup var reading: PlanReadingOptions

    func run() throws {
        let suite = SuiteFiles(plans)
        var clean = suite.problems.isEmpty
        if !suite.problems.isEmpty {
            writeError(DiagnosticRenderer(colors: color.enabled, files: []).text(suite.problems) + "\n")
        }
        var unwritten = false
        let pipeline = try reading.pipeline()
        for path in suite.files {
            let result = pipeline.fix(fileAt: path, allowErrors: allowErrors)
            if writeFiles {
                do {
                    try result.write()
                } catch {
                    writeError("error: cannot write `\(path)`: \(error)\n")
                    unwritten = true
                }
            } else {
                write(FixOutput.diff(result))
            }
            // What is left, and why a file was not changed.
            if result.report.errorCount > 0 {
                writeError(ValidationOutput.text([result.report], colors: color.enabled, explain: false, strict: false))
            }
            writeError(FixOutput.summary(result, written: writeFiles))
            clean = clean && result.report.errorCount == 0
        }
        // 74 when a fixed file could not be written (as every command's outputs, docs/run.md).
        StandardStreams.exit(unwritten ? 74 : clean ? 0 : 1)
    }
}
