import ArgumentParser
import Foundation
import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a plan: every step starts the moment its dependencies end.",
        discussion: """
            Exit status: 0 every step succeeded or was skipped by its own `if`; 1 a step failed or was \
            skipped because of a failure; 2 the plan is invalid (nothing is sent); 130 interrupted.
            """
    )

    @Argument(help: "The plan file.")
    var plan: String

    @Option(name: .customLong("input"), help: "Set an input: --input name=value (repeatable).")
    var inputs: [String] = []

    @Option(name: .customLong("inputs-file"), help: "A JSON or YAML file mapping input names to values.")
    var inputsFile: String?

    @Option(help: "Most requests in flight at once (overrides the plan's `concurrency`).")
    var concurrency: Int?

    @Flag(help: "Do not verify TLS certificates (dangerous).")
    var insecure = false

    @Flag(name: .customLong("allow-files-outside"), help: "Let request files come from outside the plan's folder.")
    var allowFilesOutside = false

    @Option(name: .customLong("max-response-size"), help: "Largest response body accepted, in bytes.")
    var maxResponseSize: Int = HTTPClientTransport.Configuration().maxBodySize

    @Option(help: "Color: auto, always or never.")
    var color: ColorChoice = .auto

    @OptionGroup var reading: PlanReadingOptions

    func validate() throws {
        if let concurrency, concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
    }

    func run() async throws {
        let outcome = await PlanRun.prepare(
            path: plan, limits: reading.limits, overrides: inputs, inputsFile: inputsFile,
            environment: ProcessInfo.processInfo.environment)
        let prepared: PlanRun.Prepared
        switch outcome {
        case .failure(let failure):
            let renderer = DiagnosticRenderer(colors: color.enabled, files: failure.sources)
            writeError(renderer.text(failure.diagnostics) + "\n")
            throw ExitCode(2)
        case .success(let value):
            prepared = value
        }
        if insecure { writeError("warning: TLS certificate verification is OFF (--insecure)\n") }
        var transportConfiguration = HTTPClientTransport.Configuration()
        transportConfiguration.verifyCertificates = !insecure
        transportConfiguration.maxBodySize = maxResponseSize
        transportConfiguration.connectionsPerHost = max(8, concurrency ?? prepared.graph.plan.concurrency?.value ?? 64)
        var configuration = RunConfiguration(
            concurrency: concurrency,
            files: FileAccess(planDirectory: URL(fileURLWithPath: plan).deletingLastPathComponent(),
                              allowOutside: allowFilesOutside))
        configuration.backoffScale = 1
        let result = try await PlanRun.execute(prepared, configuration: configuration, transport: transportConfiguration)
        let redactor = Redactor(secrets: prepared.inputs.secrets)
        write(redactor.redact(result.summaryText(graph: prepared.graph)))
        let diagnostics = result.diagnostics(graph: prepared.graph)
        if !diagnostics.isEmpty {
            let renderer = DiagnosticRenderer(colors: color.enabled, files: [prepared.graph.plan.source])
            writeError("\n" + redactor.redact(renderer.text(diagnostics)))
        }
        if result.exitCode != 0 { throw ExitCode(result.exitCode) }
    }
}
