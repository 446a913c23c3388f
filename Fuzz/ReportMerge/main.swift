import CFuzzerDriver
import Foundation
import ReqPlanPresentation
import ReqPlanSyntax

// libFuzzer entry point: the input is one to four JSON reports, as `reqplan report merge` reads them
// (`reqplan-run/1` plan reports, `reqplan-suite/1` suite and shard reports), separated by a line holding only
// `---`. They go through `SuiteReport.merging`, which reads every field back and range-checks every number;
// what it merges is then rendered as `report merge` writes it: the summary, the JSON report, the JUnit file
// and the HTML page (the graph and the waterfall drawn from the reports). A refusal must name a report; no
// input may crash, hang or grow memory without bound.

/// One input; libFuzzer calls it.
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let documents = text.components(separatedBy: "\n---\n").prefix(4).enumerated().map {
        (path: "shard-\($0.offset + 1).json", text: $0.element)
    }
    switch SuiteReport.merging(documents) {
    case .success(let report):
        _ = report.summaryText()
        _ = report.summaryText(quiet: true)
        for kind in [ReportKind.json, .junit, .html] { _ = report.render(kind) }
        _ = report.exitCode
    case .failure(let failure):
        if failure.diagnostics.isEmpty { fatalError("a refusal without a reason") }
        for diagnostic in failure.diagnostics where diagnostic.file == nil && !diagnostic.message.contains("shard") {
            fatalError("a refusal that names no report: \(diagnostic.message)")
        }
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzz($0, $1) })
