import Foundation
import ReqPlan
import ReqPlanDemoAPI

// Uploads five images to the demo API with plans/batch-upload.yaml, two at a time, printing progress.
struct Inputs: Encodable {
    var base_url: String
    var album = "Holidays"
}
struct Outputs: Decodable {
    var image_urls: [String]
}

let repository = URL(fileURLWithPath: #filePath).appendingPathComponent("../../../..").standardized
let plan = try RequestPlan(contentsOf: repository.appendingPathComponent("plans/batch-upload.yaml"))

let outcome = try await DemoAPI.withServer { base in
    let execution = try plan.execution(inputs: Inputs(base_url: base))
    async let outcome = execution.start()
    for await event in execution.events { print(event) }
    return try await outcome
}
let outputs = try outcome.outputs(as: Outputs.self)
print("uploaded \(outputs.image_urls.count) images: \(outputs.image_urls.joined(separator: ", "))")
exit(outcome.succeeded ? 0 : 1)
