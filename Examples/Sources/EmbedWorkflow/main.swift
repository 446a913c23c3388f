import Foundation
import ReqPlan
import ReqPlanDemoAPI

// What sets reqplan apart, from Swift, checked as `reqplan validate` checks it and run as `reqplan run` runs it:
// 1. plans/data-flow.yaml, a plan bound to the demo API's OpenAPI description (`openapi:`): every request and
//    every value read from a response is checked against the description before the run;
// 2. Examples/Workflows/create-item.arazzo.yaml, an Arazzo workflow over the same description, its source
//    description served by the demo API (`--server demo=URL` on the command line).
let repository = URL(fileURLWithPath: #filePath).appendingPathComponent("../../../..").standardized

let succeeded = try await DemoAPI.withServer { base in
    let bound = try RequestPlan(contentsOf: repository.appendingPathComponent("plans/data-flow.yaml"))
    let planOutcome = try await bound.run(
        inputs: ["base_url": .string(base), "api_key": .string("demo-api-key")])
    print("data-flow.yaml: \(planOutcome.succeeded ? "succeeded" : "failed")")

    let workflow = try RequestPlan(
        contentsOf: repository.appendingPathComponent("Examples/Workflows/create-item.arazzo.yaml").path,
        reading: PlanReading(servers: ["demo": base], workflow: "createItem"))
    // The library reports what `reqplan validate` does: here, that the id read from `createItem`'s response
    // may be absent (the description's response is one of two shapes, and only one has an `id`).
    print(workflow.warningsText)
    let workflowOutcome = try await workflow.run(inputs: ["user": "alice"])
    let name = try workflowOutcome.output("name", as: String.self)
    print("create-item.arazzo.yaml: \(workflowOutcome.succeeded ? "succeeded" : "failed"), item named \(name)")
    return planOutcome.succeeded && workflowOutcome.succeeded
}
exit(succeeded ? 0 : 1)
