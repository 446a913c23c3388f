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
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.invalidDirectory.path)
        for file in files where file.hasSuffix(".expected") {
            let name = String(file.dropLast(".expected".count))
            #expect(Self.invalidCases.contains(name), "\(file) has no \(name).yaml beside it")
        }
        guard !Self.isRecording else { return }
        for name in Self.invalidCases {
            #expect(files.contains(name + ".expected"), "\(name).yaml has no \(name).expected")
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
        let matches = actual == expected
        #expect(matches, Comment(rawValue: Self.mismatch(name, expected: expected, actual: actual)))
    }

    /// A readable account of where two outputs part: the first differing line, then a line diff
    /// (`-` only in the expected output, `+` only in the actual one).
    static func mismatch(_ name: String, expected: String, actual: String) -> String {
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var first = 0
        while first < old.count, first < new.count, old[first] == new[first] { first += 1 }
        let want = first < old.count ? old[first] : "<end of output>"
        let got = first < new.count ? new[first] : "<end of output>"
        return """
            \(name): output differs from \(name).expected at line \(first + 1)
              expected: \(want)
              actual:   \(got)
            (rerun with RECORD_GOLDEN=1 to accept the new output)
            --- \(name).expected
            +++ actual
            \(lineDiff(old, new).joined(separator: "\n"))
            """
    }

    /// A line diff by longest common subsequence (outputs are small).
    static func lineDiff(_ old: [String], _ new: [String]) -> [String] {
        var common = [[Int]](repeating: [Int](repeating: 0, count: new.count + 1), count: old.count + 1)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            for j in stride(from: new.count - 1, through: 0, by: -1) {
                common[i][j] = old[i] == new[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
            }
        }
        var lines: [String] = []
        var i = 0
        var j = 0
        while i < old.count || j < new.count {
            if i < old.count, j < new.count, old[i] == new[j] {
                lines.append("  " + old[i])
                i += 1
                j += 1
            } else if j < new.count, i == old.count || common[i][j + 1] >= common[i + 1][j] {
                lines.append("+ " + new[j])
                j += 1
            } else {
                lines.append("- " + old[i])
                i += 1
            }
        }
        return lines
    }
}
