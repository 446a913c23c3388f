import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import Synchronization
import Testing
import ReqPlanTestSupport

@testable import ReqPlanTransport
@testable import ReqPlanRuntime

/// Builds the DAG of a plan written in a test.
func makeGraph(_ yaml: String) throws -> PlanGraph {
    let report = PlanValidator.validate(SourceFile(path: "test.yaml", text: yaml))
    guard let graph = report.graph, report.errorCount == 0 else {
        let renderer = DiagnosticRenderer(files: [report.source].compactMap { $0 })
        Issue.record("the test plan is invalid:\n\(renderer.text(report.diagnostics))")
        throw TestPlanError.invalid
    }
    return graph
}

enum TestPlanError: Error {
    case invalid
}

/// Runs a plan written in a test over `transport`, with its waits between tries (backoff, `Retry-After`) scaled by
/// `backoffScale`.
func run(
    _ yaml: String, transport: any Transport, inputs: [String: Value] = [:], concurrency: Int? = nil,
    observer: any ExecutionObserver = NoObserver(), backoffScale: Double = 0.01
) async throws -> RunResult {
    let graph = try makeGraph(yaml)
    var configuration = RunConfiguration(
        concurrency: concurrency,
        files: FileAccess(planDirectory: URL(fileURLWithPath: NSTemporaryDirectory())))
    configuration.backoffScale = backoffScale
    let executor = Executor(
        graph: graph, transport: transport,
        inputs: RunInputs(values: inputs, environment: [:]), configuration: configuration,
        observer: observer)
    return await executor.run()
}

/// The header every test plan starts with: a base URL the scripted transport answers.
let planHeader = """
    reqplan: 1
    defaults: { base_url: "http://test" }

    """
