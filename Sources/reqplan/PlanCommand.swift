import ArgumentParser
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanSyntax

/// Shared by `plan` and `graph`: validate one plan, print its diagnostics on failure.
func validatedGraph(_ path: String, reading: PlanReadingOptions, color: ColorChoice) throws -> PlanGraph {
    let report = try reading.pipeline().validate(fileAt: path)
    guard let graph = report.graph, report.errorCount == 0 else {
        let renderer = DiagnosticRenderer(colors: color.enabled, files: report.sources)
        writeError(renderer.text(report.diagnostics) + "\n" + ValidationOutput.summary([report], strict: false) + "\n")
        throw ExitCode(1)
    }
    return graph
}

struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Show the schedule a run will follow: waves, critical path, inputs and environment read."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: "The plan file.")
    var plan: String

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @Option(help: "Color: auto, always or never.")
    var color: ColorChoice = .auto

    @OptionGroup var reading: PlanReadingOptions

    func run() throws {
        let graph = try validatedGraph(plan, reading: reading, color: color)
        switch format {
        case .text: write(graph.explanation())
        case .json: write(graph.explanationJSON().jsonText(pretty: true) + "\n")
        }
    }
}

struct GraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract:
            "Print the dependency graph as Mermaid, Graphviz DOT or an SVG picture laid out by reqplan, groups drawn as clusters."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case mermaid, dot, svg
    }

    @Argument(help: "The plan file.")
    var plan: String

    @Option(help: "Output format: mermaid, dot or svg (a self-contained picture, steps in the columns of their waves).")
    var format: Format = .mermaid

    @Option(help: "Color for diagnostics: auto, always or never.")
    var color: ColorChoice = .auto

    @OptionGroup var reading: PlanReadingOptions

    func run() throws {
        let graph = try validatedGraph(plan, reading: reading, color: color)
        switch format {
        case .mermaid: write(graph.mermaid())
        case .dot: write(graph.dot())
        case .svg: write(graph.svg())
        }
    }
}
