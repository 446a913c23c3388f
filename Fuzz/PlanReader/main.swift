import CFuzzerDriver
import Foundation
import ReqPlanPlanner
import ReqPlanSyntax

// libFuzzer entry point: the input is plan text. It goes through what `reqplan validate` does to
// a plan (YAML → AST → `PlanLibrary.check`: names, edges, cycles, analyses) and every diagnostic
// is rendered with its excerpt and caret; then the same text is read as a `${{ }}` template and
// as a bare condition, as the parser reads a YAML scalar. No input may crash, hang or grow memory
// without bound; every error diagnostic must point into the file it names.

/// An empty folder for the plan to live in: sub-plans it names are looked up there (and not found).
let folder: String = {
    let path = NSTemporaryDirectory() + "reqplan-fuzz-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()

/// The product's limits, but for the alias-expansion budget: 1,000,000 nodes take 11 s of CPU in
/// this debug, AddressSanitizer build (under 10 s is the fuzzer's hang limit), and the budget's check
/// is the same at 50,000 (FUZZING.md).
let limits = ParseLimits(maxNodes: 50_000)

/// One input; libFuzzer calls it.
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let source = SourceFile(path: folder + "/plan.yaml", text: text)

    let report = PlanValidator.validate(source, limits: limits)
    let renderer = DiagnosticRenderer(files: report.sources + [source])
    for diagnostic in report.diagnostics {
        _ = renderer.text(diagnostic)
        if diagnostic.severity == .error, diagnostic.file == source.path, diagnostic.range == nil {
            fatalError("an error in the plan without a location: \(diagnostic.message)")
        }
    }
    if report.errorCount == 0, report.plan == nil {
        fatalError("no error, and no plan")
    }

    let parser = TemplateParser(source: source)
    let whole = source.tokenRange(at: SourceLocation(line: 1, column: 1))
    for result in [parser.template(text, at: whole).map { _ in () }, parser.condition(text, at: whole).map { _ in () }]
    {
        if case .failure(let diagnostic) = result {
            _ = renderer.text(diagnostic)
            if diagnostic.range == nil { fatalError("an expression error without a location") }
        }
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzz($0, $1) })
