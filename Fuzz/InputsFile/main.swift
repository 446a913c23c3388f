import CFuzzerDriver
import Foundation
import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax

// libFuzzer entry point: the bytes of an inputs file or an environment (`--inputs-file`, `--env`), written to a
// file and read as `reqplan run` and `validate` read one: through the one file reader (UTF-8 checked, the size
// bounded), composed under the plans' limits, its entries taken, then checked against a plan that declares
// inputs of every type (as `validate --inputs-file` does) and resolved into the values a run gets (numbers
// keep their digits, non-finite ones stay where they cannot be sent). No crash, no hang; every refusal of
// the file is located in it.

let folder: String = {
    let path = NSTemporaryDirectory() + "reqplan-fuzz-inputs-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()
let file = folder + "/inputs.yaml"
let limits = ParseLimits(maxNodes: 50_000)

/// A plan with an input of every type, required or not, secret or not.
let report = PlanValidator.validate(
    SourceFile(
        path: folder + "/plan.yaml",
        text: """
            reqplan: 1
            inputs:
              base_url: { default: "http://127.0.0.1:1" }
              token: { secret: true, required: false }
              count: { type: number, default: 3 }
              flag: { type: boolean, default: false }
              ids: { type: list, default: [1, 2] }
              filter: { type: object, default: {} }
            steps:
              a: { request: { url: "${{ inputs.base_url }}/a?c=${{ inputs.count }}" } }
            """), limits: limits)

func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard (try? Data(UnsafeRawBufferPointer(start: start, count: count)).write(to: URL(fileURLWithPath: file))) != nil
    else { return 0 }
    switch InputsFile.read(atPath: file, limits: limits) {
    case .failure(let failure):
        _ = DiagnosticRenderer(files: [failure.source].compactMap { $0 }).text(failure.diagnostic)
        if failure.source != nil, failure.diagnostic.range == nil, failure.diagnostic.code != .unreadableFile,
            failure.diagnostic.code != .fileTooLarge
        {
            fatalError("a refusal of the inputs file without a location: \(failure.diagnostic.message)")
        }
    case .success(let inputs):
        let checked = PlanValidator.checkRunValues([report], inputs: [inputs], environment: [:])
        for checkedReport in checked {
            for diagnostic in checkedReport.diagnostics {
                _ = DiagnosticRenderer(files: checkedReport.sources + [inputs.source]).text(diagnostic)
            }
        }
        _ = PlanRun.resolveInputs(of: report, overrides: [], file: inputs.values, environment: [:])
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzz($0, $1) })
