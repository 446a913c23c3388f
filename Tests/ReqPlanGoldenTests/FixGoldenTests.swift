import Foundation
import ReqPlanArazzo
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

/// `reqplan fix` over the golden corpora: the invalid plans and the plans with warnings (`Tests/Corpus`), the
/// plans bound to OpenAPI documents (`Tests/Fixtures/openapi/golden`) and the Arazzo documents
/// (`Tests/Fixtures/arazzo/golden`). Every case whose diagnostics carry a safe fix is fixed (errors allowed, to
/// see every fix), and then:
/// - no diagnostic it fixed is found again (the same code and message);
/// - the diff is the golden file `Tests/Corpus/fixed/CORPUS/NAME.diff`, ending with a line that says what the
///   fixed file still has (`# validates clean`, or the codes left), so a review reads both at once.
///
/// A case with no safe fix has no `.diff` file. Run with `RECORD_GOLDEN=1` to (re)write the files (the
/// recording run fails); read every diff in git before committing it.
@Suite("reqplan fix over the golden corpora")
struct FixGoldenTests {
    /// One case: its corpus, its name, the file.
    struct Case: CustomTestStringConvertible, Sendable {
        var corpus: String
        var name: String
        var file: URL
        var testDescription: String { "\(corpus)/\(name)" }
    }

    static let fixedDirectory = GoldenCorpusTests.corpusDirectory.appendingPathComponent("fixed")

    /// The files of `folder` ending in `suffix`, as cases of `corpus`.
    static func cases(_ corpus: String, in folder: URL, suffix: String) -> [Case] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(suffix) }.sorted().map { file in
            Case(corpus: corpus, name: String(file.dropLast(suffix.count)), file: folder.appendingPathComponent(file))
        }
    }

    static let cases: [Case] =
        cases("invalid", in: GoldenCorpusTests.invalidDirectory, suffix: ".yaml")
        + cases("warnings", in: GoldenCorpusTests.warningsDirectory, suffix: ".yaml")
        + cases("openapi", in: OpenAPIGoldenTests.goldenDirectory, suffix: ".yaml")
        + cases("arazzo", in: ArazzoGoldenTests.goldenDirectory, suffix: ArazzoGoldenTests.suffix)

    /// `fix` on a case, as the command line runs it (errors allowed).
    static func fix(_ test: Case) throws -> PlanFixResult {
        let limits = ParseLimits(sizeSetting: "--max-plan-size", outsideSetting: "--allow-files-outside")
        return PlanFixer.fix(
            fileAt: test.file.path, displayPath: "\(test.corpus)/\(test.file.lastPathComponent)", limits: limits,
            allowFilesOutside: test.corpus == "arazzo", allowErrors: true
        ) { unsaved in
            PlanLibrary(
                apiLoader: OpenAPIDocumentLoader(),
                documentReader: ArazzoReader(apiLoader: OpenAPIDocumentLoader()), unsavedText: unsaved)
        }
    }

    @Test("a fixed case", arguments: cases)
    func fixedCase(_ test: Case) throws {
        let result = try Self.fix(test)
        let golden = Self.fixedDirectory.appendingPathComponent(test.corpus)
            .appendingPathComponent(test.name + ".diff")
        guard result.changed else {
            #expect(result.applied.isEmpty)
            if Golden.isRecording {
                try? FileManager.default.removeItem(at: golden)
            } else {
                #expect(!FileManager.default.fileExists(atPath: golden.path), "\(test.name) has no fix but a .diff")
            }
            return
        }
        let after = result.report.diagnostics.map { "\($0.code.rawValue) \($0.message)" }
        for fixed in result.applied {
            #expect(
                !after.contains("\(fixed.code.rawValue) \(fixed.message)"),
                "fixed, yet found again: \(fixed.code.rawValue) \(fixed.message)")
            #expect(fixed.fix?.isSafe == true)
        }
        // No fix makes a duplicate key.
        #expect(!result.report.diagnostics.contains { $0.code == .duplicateKey }, "\(result.report.diagnostics)")
        let left = result.report.diagnostics.filter { $0.severity == .error }.map(\.code.rawValue)
        let trailer = left.isEmpty ? "# validates clean\n" : "# errors left: " + left.joined(separator: " ") + "\n"
        try Golden.check(FixOutput.diff(result) + trailer, against: golden)
    }

    @Test("some cases of each kind are fixed")
    func fixesAreFound() throws {
        let fixed = try Self.cases.filter { try Self.fix($0).changed }.map(\.corpus)
        #expect(fixed.count { $0 == "invalid" } >= 5, "\(fixed)")
        #expect(fixed.contains("arazzo"), "\(fixed)")
    }
}
