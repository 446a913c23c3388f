import ArgumentParser

@main
struct ReqPlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reqplan",
        abstract: "Declarative HTTP request plans: validate them statically, run them concurrently.",
        version: "0.1.0",
        subcommands: [
            ValidateCommand.self, RunCommand.self, PlanCommand.self, GraphCommand.self, DemoCommand.self,
            SchemaCommand.self, ReportCommand.self, CoverageCommand.self,
        ]
    )
}
