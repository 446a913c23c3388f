import CFuzzerDriver
import Foundation
import ReqPlanArazzo
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanSyntax

// libFuzzer entry point: the input is an Arazzo document's text. It goes through what `reqplan validate` does
// to one: the Arazzo reader (document, criteria, runtime expressions, actions, every workflow translated into
// a plan), the planner, and the API checks against the OpenAPI description its sources may name (`api.yaml`,
// the OpenAPI Initiative's pet-coupons example, written beside it once and read once); every diagnostic is
// rendered. No input may crash, hang or grow memory without bound; every error in the document has a location.

/// The folder the document lives in, with the description its sources may name.
let folder: String = {
    let path = NSTemporaryDirectory() + "reqplan-fuzz-arazzo-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    let description = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tests/Fixtures/arazzo/examples/pet-coupons.openapi.yaml").standardizedFileURL
    try? FileManager.default.copyItem(atPath: description.path, toPath: path + "/api.yaml")
    try? Data().write(to: URL(fileURLWithPath: path + "/.reqplan"))
    return path
}()

/// The description, read once for every input.
let descriptions = CachingAPIDescriptionLoader(OpenAPIDocumentLoader())

/// The product's limits, but for the alias-expansion budget, as the `plan` target (FUZZING.md).
let limits = ParseLimits(maxNodes: 50_000)

func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let source = SourceFile(path: folder + "/flow.arazzo.yaml", text: text)
    let library = PlanLibrary(apiLoader: descriptions, documentReader: ArazzoReader())
    let report = PlanValidator.validate(source, limits: limits, library: library)
    let renderer = DiagnosticRenderer(files: report.sources + [source])
    for diagnostic in report.diagnostics {
        _ = renderer.text(diagnostic)
        if diagnostic.severity == .error, diagnostic.file == source.path, diagnostic.range == nil,
            ArazzoReader().recognises(source)
        {
            fatalError("an error in the document without a location: \(diagnostic.message)")
        }
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzz($0, $1) })
