import Foundation
import ReqPlanImport
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

/// The golden corpus of `reqplan import`: each input in `Tests/Fixtures/import/<format>/` beside
/// `NAME.plan.yaml`, the plan written, and `NAME.warnings`, what the import says on standard error; and each
/// plan written is valid under `validate --strict`.
///
/// Run with `RECORD_GOLDEN=1` to (re)write the goldens from the current output (the recording run fails).
@Suite("Golden corpus of imports")
struct ImportCorpusTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/import")

    /// The inputs of a format: `curl/*.sh`, `har/*.har`, sorted.
    static func cases(_ format: ImportFormat) -> [String] {
        let suffix = format == .curl ? ".sh" : ".har"
        let folder = fixtures.appendingPathComponent(format.rawValue)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(suffix) }.sorted().map { format.rawValue + "/" + $0 }
    }

    static let allCases = cases(.curl) + cases(.har)

    @Test func theCorpusHasCasesOfEachFormat() {
        #expect(Self.cases(.curl).count >= 15)
        #expect(Self.cases(.har).count >= 2)
    }

    @Test("imported plan", arguments: allCases)
    func importedPlanMatchesItsGoldenAndValidatesStrictly(_ name: String) throws {
        let format = try #require(ImportFormat(rawValue: String(name.prefix { $0 != "/" })))
        let file = Self.fixtures.appendingPathComponent(name)
        let source = SourceFile(path: name, text: try String(contentsOf: file, encoding: .utf8))
        let result = Importer.importPlan(format, from: [source])
        let warnings = DiagnosticRenderer(colors: false, files: result.sources).text(result.diagnostics)
        let text = try #require(result.text, "\(warnings)")
        let stem = file.deletingPathExtension()
        try Golden.check(text, against: stem.appendingPathExtension("plan.yaml"))
        try Golden.check(warnings, against: stem.appendingPathExtension("warnings"))
        let report = PlanValidator.validate(SourceFile(path: stem.lastPathComponent + ".plan.yaml", text: text))
        let checked = PlanValidator.checkRunValues([report], inputs: [], environment: [:])
        let shown = DiagnosticRenderer(colors: false, files: [SourceFile(path: report.path, text: text)])
            .text(checked.flatMap(\.diagnostics))
        #expect(checked.allSatisfy { $0.isValid(strict: true) }, "\(shown)")
    }
}
