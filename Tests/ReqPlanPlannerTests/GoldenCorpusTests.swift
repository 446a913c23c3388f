import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// The golden corpus of invalid plans: `Tests/Corpus/invalid/NNN-name.yaml`, each beside
/// `NNN-name.expected` holding exactly what `reqplan validate --color never invalid/NNN-name.yaml`
/// prints when run from `Tests/Corpus`.
///
/// Run with `RECORD_GOLDEN=1` to (re)write the `.expected` files from the current output.
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

    static var isRecording: Bool {
        ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1"
    }

    @Test("the corpus has enough cases, each with an expected output")
    func corpusIsComplete() throws {
        #expect(Self.invalidCases.count >= 40, "only \(Self.invalidCases.count) cases in \(Self.invalidDirectory.path)")
        guard !Self.isRecording else { return }
        for name in Self.invalidCases {
            let expected = Self.invalidDirectory.appendingPathComponent(name + ".expected").path
            #expect(FileManager.default.fileExists(atPath: expected), "\(name).yaml has no \(name).expected")
        }
    }

    @Test("invalid plan", arguments: invalidCases)
    func invalidPlan(_ name: String) throws {
        let plan = Self.invalidDirectory.appendingPathComponent(name + ".yaml")
        let expectedFile = Self.invalidDirectory.appendingPathComponent(name + ".expected")

        let report = PlanValidator.validate(fileAt: plan.path, displayPath: "invalid/\(name).yaml")
        #expect(report.errorCount > 0, "\(name).yaml is in the invalid corpus but has no error")
        let actual = ValidationOutput.text([report], colors: false, explain: false, strict: false)

        if Self.isRecording {
            try actual.write(to: expectedFile, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: expectedFile, encoding: .utf8)
        #expect(actual == expected, Comment(rawValue: Self.mismatch(name, expected: expected, actual: actual)))
    }

    /// A readable account of where two outputs part: the first differing line, then both in full.
    static func mismatch(_ name: String, expected: String, actual: String) -> String {
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        var line = 0
        while line < expectedLines.count, line < actualLines.count, expectedLines[line] == actualLines[line] {
            line += 1
        }
        let want = line < expectedLines.count ? String(expectedLines[line]) : "<end of output>"
        let got = line < actualLines.count ? String(actualLines[line]) : "<end of output>"
        return """
            \(name): output differs from \(name).expected at line \(line + 1)
              expected: \(want)
              actual:   \(got)
            (rerun with RECORD_GOLDEN=1 to accept the new output)
            --- expected
            \(expected)--- actual
            \(actual)
            """
    }
}
