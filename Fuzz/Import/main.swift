import CFuzzerDriver
import Foundation
import ReqPlanImport
import ReqPlanPipeline
import ReqPlanPlanner
import ReqPlanSyntax

// libFuzzer entry point: the first byte chooses the format (its value modulo 7: curl, HAR, Postman, Insomnia,
// Hurl, a Bruno OpenCollection file, an OpenAPI description), the rest is the file `reqplan import` reads. A
// collection format is imported from its text (`Importer.importPlan`); an OpenAPI description is written to a
// file and read as `reqplan import openapi` reads it (`Pipeline.importOpenAPI`: the one file reader, with its
// examples, tags and links). No crash, no hang; every diagnostic is rendered; an import that writes a plan
// writes one that reads back without a syntax error (RP00xx–RP02xx but a value the source gave: the writer
// quotes what YAML and the language need), and an OpenAPI import's plan validates beside its description without any error.

let folder: String = {
    let path = NSTemporaryDirectory() + "reqplan-fuzz-import-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    try? Data().write(to: URL(fileURLWithPath: path + "/.reqplan"))
    return path
}()
let limits = ParseLimits(maxFileSize: 65_536, maxDepth: 64)
let formats: [ImportFormat] = [.curl, .har, .postman, .insomnia, .hurl, .bruno]

/// Whether a diagnostic says the written plan is not well formed: YAML, structure, names, templates. A value
/// the source gave that a plan refuses (RP0105: a URL scheme, a number out of range; RP0108, RP0109: a duration,
/// a status) is the source's, and `validate` says so where the user reads the plan.
func isSyntaxError(_ diagnostic: Diagnostic) -> Bool {
    guard diagnostic.severity == .error else { return false }
    let code = diagnostic.code.rawValue
    guard !["RP0105", "RP0108", "RP0109"].contains(code) else { return false }
    return code.hasPrefix("RP00") || code.hasPrefix("RP01") || code.hasPrefix("RP02")
}

func checkPlan(_ text: String, at path: String, pipeline: Pipeline?, allErrors: Bool) {
    let source = SourceFile(path: path, text: text)
    // Read back under the limits a plan has (8 MiB), not the input's: 64 KiB of a source may write a larger plan.
    let report = pipeline?.validate(source) ?? PlanValidator.validate(source)
    let wrong = report.diagnostics.filter { allErrors ? $0.severity == .error : isSyntaxError($0) }
    if let first = wrong.first {
        let shown = DiagnosticRenderer(colors: false, files: report.sources).text(first)
        fatalError("the plan written does not read back:\n\(shown)\n\(text)")
    }
}

func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let choice = Int(start[0] % 7)
    let bytes = Data(UnsafeRawBufferPointer(start: start + 1, count: count - 1))
    guard choice < formats.count else {
        let file = folder + "/api.yaml"
        guard (try? bytes.write(to: URL(fileURLWithPath: file))) != nil else { return 0 }
        let pipeline = Pipeline()
        switch pipeline.importOpenAPI(fileAt: file, writingTo: folder + "/plan.yaml", options: OpenAPIImportOptions()) {
        case .failure(let diagnostic):
            _ = DiagnosticRenderer(colors: false, files: []).text(diagnostic)
        case .success(let plans):
            for plan in plans {
                _ = DiagnosticRenderer(colors: false, files: []).text(plan.diagnostics)
                checkPlan(plan.text, at: folder + "/plan.yaml", pipeline: pipeline, allErrors: true)
            }
        }
        return 0
    }
    let format = formats[choice]
    guard let text = String(data: bytes, encoding: .utf8) else { return 0 }
    let name = format == .bruno ? "collection.yml" : "source"
    let result = Importer.importPlan(format, from: [SourceFile(path: name, text: text)])
    _ = DiagnosticRenderer(colors: false, files: result.sources).text(result.diagnostics)
    if let plan = result.text { checkPlan(plan, at: folder + "/plan.yaml", pipeline: nil, allErrors: false) }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzz($0, $1) })
