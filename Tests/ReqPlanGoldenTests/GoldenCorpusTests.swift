import Foundation
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

/// The golden corpus of invalid plans: `Tests/Corpus/invalid/NNN-name.yaml`, each beside
/// `NNN-name.expected` holding exactly what `reqplan validate --color never invalid/NNN-name.yaml`
/// prints when run from `Tests/Corpus`.
///
/// Run with `RECORD_GOLDEN=1` to (re)write the `.expected` files from the current output (the recording run fails).
@Suite("Golden corpus of invalid plans")
struct GoldenCorpusTests {
    /// `Tests/Corpus`, found from this file's path.
    static let corpusDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Corpus")

    /// `Tests/Corpus/invalid`.
    static let invalidDirectory = corpusDirectory.appendingPathComponent("invalid")

    /// The case names (file names without `.yaml`), sorted.
    static let invalidCases: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: invalidDirectory.path)) ?? []
        return files.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(".yaml".count)) }.sorted()
    }()

    /// `Tests/Corpus/warnings`: valid plans with warnings, validated as `reqplan validate` does in an empty
    /// environment (the warnings about the values a run would have included, `PlanValidator.checkRunValues`).
    static let warningsDirectory = corpusDirectory.appendingPathComponent("warnings")

    static let warningCases: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: warningsDirectory.path)) ?? []
        return files.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(".yaml".count)) }.sorted()
    }()

    @Test("valid plan with warnings", arguments: warningCases)
    func planWithWarnings(_ name: String) throws {
        let plan = Self.warningsDirectory.appendingPathComponent(name + ".yaml")
        let report = PlanValidator.validate(fileAt: plan.path, displayPath: "warnings/\(name).yaml")
        let checked = PlanValidator.checkRunValues([report], inputs: [], environment: [:])
        #expect(checked.first?.errorCount == 0 && checked.first?.warningCount ?? 0 > 0)
        let actual = ValidationOutput.text(checked, colors: false, explain: false, strict: false)
        try Golden.check(actual, against: Self.warningsDirectory.appendingPathComponent(name + ".expected"))
    }

    @Test("the corpus has enough cases, each with an expected output")
    func corpusIsComplete() throws {
        #expect(Self.invalidCases.count >= 40, "only \(Self.invalidCases.count) cases in \(Self.invalidDirectory.path)")
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.invalidDirectory.path)
        for file in files where file.hasSuffix(".expected") {
            let name = String(file.dropLast(".expected".count))
            #expect(Self.invalidCases.contains(name), "\(file) has no \(name).yaml beside it")
        }
        guard !Golden.isRecording else { return }
        for name in Self.invalidCases {
            #expect(files.contains(name + ".expected"), "\(name).yaml has no \(name).expected")
        }
    }

    @Test("invalid plan", arguments: invalidCases)
    func invalidPlan(_ name: String) throws {
        let plan = Self.invalidDirectory.appendingPathComponent(name + ".yaml")
        let expectedFile = Self.invalidDirectory.appendingPathComponent(name + ".expected")

        // The command line's settings, which its hints name.
        let limits = ParseLimits(sizeSetting: "--max-plan-size", outsideSetting: "--allow-files-outside")
        let report = PlanValidator.validate(fileAt: plan.path, displayPath: "invalid/\(name).yaml", limits: limits)
        #expect(report.errorCount > 0, "\(name).yaml is in the invalid corpus but has no error")
        let actual = ValidationOutput.text([report], colors: false, explain: false, strict: false)

        try Golden.check(actual, against: expectedFile)
    }
}
