import Foundation
import ReqPlanTransport
import ReqPlanRuntime
import ReqPlanTestSupport

/// Runs a plan against a server (`BASE_URL` in the plan is replaced by its address) over `wire`.
func runAgainstDemo(
    _ yaml: String, baseURL: String, wire: Wire, planDirectory: URL = URL(fileURLWithPath: NSTemporaryDirectory())
) async throws -> RunResult {
    try await wire.withTransport(wire.configuration()) { transport in
        try await runPlan(yaml, baseURL: baseURL, over: transport, planDirectory: planDirectory)
    }
}
