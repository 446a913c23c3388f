import CFuzzerDriver
import Foundation
import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax

// libFuzzer entry point: the first byte chooses the format (even: CSV, odd: JSON Lines), the rest is a data file
// of `reqplan load`, written to a file and read as a run reads one: through the one file reader (UTF-8 checked,
// the size bounded), its rows read (`DataFile`), then resolved against a plan that declares an input of every
// type (`DataInputs.resolve`: CSV text converted, JSON values checked, rows without a value), every row's inputs
// built and the rows handed out once at random (`DataFeed`). No crash, no hang; every problem of a file that was
// read and has text is located in it, and at most 20 are kept.

let folder: String = {
    let path = NSTemporaryDirectory() + "reqplan-fuzz-data-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()
let limits = ParseLimits(maxFileSize: 65_536, maxDepth: 64)

/// A plan with an input of every type, required or not, secret or not, one read from an environment variable.
let report = PlanValidator.validate(
    SourceFile(
        path: folder + "/plan.yaml",
        text: """
            reqplan: 1
            inputs:
              user: { type: string }
              token: { secret: true, required: false, env: FUZZ_TOKEN }
              count: { type: number, default: 3 }
              flag: { type: boolean, default: false }
              ids: { type: list, default: [1, 2] }
              filter: { type: object, default: {} }
            steps:
              a: { request: { url: "http://127.0.0.1:1/${{ inputs.user }}?c=${{ inputs.count }}" } }
            """), limits: limits)

func check(_ diagnostics: [Diagnostic], source: SourceFile?, what: String) {
    if diagnostics.count > 20 { fatalError("\(diagnostics.count) problems kept, not 20") }
    let renderer = DiagnosticRenderer(files: [source].compactMap { $0 } + report.sources)
    for diagnostic in diagnostics {
        _ = renderer.text(diagnostic)
        guard let source, diagnostic.file == source.path, !source.text.isEmpty else { continue }
        if diagnostic.range == nil { fatalError("a problem of the \(what) without a location: \(diagnostic.message)") }
    }
}

func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let format: DataFile.Format = start[0] % 2 == 0 ? .csv : .jsonLines
    let file = folder + (format == .csv ? "/data.csv" : "/data.jsonl")
    let bytes = UnsafeRawBufferPointer(start: start + 1, count: count - 1)
    guard (try? Data(bytes).write(to: URL(fileURLWithPath: file))) != nil else { return 0 }
    let data: DataFile
    switch DataFile.read(atPath: file, limits: limits) {
    case .failure(let failure):
        check(failure.diagnostics, source: failure.source, what: "data file")
        return 0
    case .success(let read): data = read
    }
    let source = data.source
    switch DataInputs.resolve(data, for: report, overrides: [], file: [:], environment: [:]) {
    case .failure(let failure):
        check(failure.diagnostics.filter { $0.file == source.path }, source: source, what: "data file's rows")
    case .success(let prepared):
        check(prepared.warnings, source: source, what: "data file's columns")
        let feed = DataFeed(rowCount: prepared.rows.count, order: .random(seed: 1), reuse: .once)
        var handed = 0
        while let row = feed.next() {
            _ = prepared.rows.inputs(ofRow: row)
            handed += 1
        }
        if handed != prepared.rows.count { fatalError("\(handed) rows handed out of \(prepared.rows.count)") }
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzz($0, $1) })
