import ArgumentParser
import ReqPlanPresentation
import ReqPlanRuntime

@main
struct ReqPlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reqplan",
        abstract: "Declarative HTTP request plans: validate them statically, run them concurrently.",
        version: ReqPlanVersion.current,
        subcommands: [
            ValidateCommand.self, FixCommand.self, RunCommand.self, LoadCommand.self, PlanCommand.self,
            GraphCommand.self,
            DemoCommand.self,
            SchemaCommand.self, ReportCommand.self, CoverageCommand.self, LSPCommand.self, ImportCommand.self,
            ExportCommand.self,
        ]
    )

    /// Parses the command line and runs the command, as ArgumentParser's own `main` does, but prints
    /// help and errors through `StandardStreams` and ends through it, so no output that could not be
    /// written goes unnoticed (exit status 74) and a closed pipe ends reqplan as it ends `cat`.
    static func main() async {
        StandardStreams.monitor()
        OpenFileLimit.raise()
        var status: Int32 = 0
        do {
            var command = try await asyncParseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if !message.isEmpty { StandardStreams.write(message + "\n", to: code == .success ? .output : .error) }
            status = code.rawValue
        }
        StandardStreams.exit(status)
    }
}
