import Foundation
import Testing

/// Golden files: what a person reads (diagnostics, summaries, reports), compared byte for byte with a file
/// checked in beside the tests. One helper for every suite.
///
/// `RECORD_GOLDEN=1 swift test --filter …` rewrites the files from the current output, and the test **fails**
/// while recording (as swift-argument-parser's `assertSnapshot` does), so a recording run can never pass
/// unnoticed, in CI or locally: record, read the diff in git, then run again without the variable.
/// A missing golden file is written too, and fails the same way.
public enum Golden {
    /// Whether this run rewrites the golden files (`RECORD_GOLDEN=1`).
    public static var isRecording: Bool { ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1" }

    /// Compares `actual` with the golden file at `file`, or (re)records it and fails.
    /// - Parameters:
    ///   - actual: the output to check.
    ///   - file: the golden file.
    ///   - recording: whether to rewrite it (default: ``isRecording``).
    /// - Throws: when the file cannot be written while recording.
    public static func check(
        _ actual: String, against file: URL, recording: Bool = isRecording,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let name = file.lastPathComponent
        let existing = try? String(contentsOf: file, encoding: .utf8)
        if recording || existing == nil {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try actual.write(to: file, atomically: true, encoding: .utf8)
            let what = existing == nil ? "recorded the missing golden file" : "re-recorded"
            let change = existing == actual ? "unchanged" : "changed: review it with git diff"
            Issue.record(
                "\(what) \(name) (\(change)); a recording run fails on purpose, run again without RECORD_GOLDEN",
                sourceLocation: sourceLocation)
            return
        }
        if let expected = existing, actual != expected {
            Issue.record(
                Comment(rawValue: mismatch(name, expected: expected, actual: actual)),
                sourceLocation: sourceLocation)
        }
    }

    /// A readable account of where two outputs part: the first differing line, then a line diff
    /// (`-` only in the expected output, `+` only in the actual one).
    public static func mismatch(_ name: String, expected: String, actual: String) -> String {
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var first = 0
        while first < old.count, first < new.count, old[first] == new[first] { first += 1 }
        let want = first < old.count ? old[first] : "<end of output>"
        let got = first < new.count ? new[first] : "<end of output>"
        return """
            \(name): output differs at line \(first + 1)
              expected: \(want)
              actual:   \(got)
            (rerun with RECORD_GOLDEN=1 to accept the new output)
            --- \(name)
            +++ actual
            \(lineDiff(old, new).joined(separator: "\n"))
            """
    }

    /// A line diff by longest common subsequence (golden outputs are small).
    /// - Complexity: O(*m* × *n*) for *m* and *n* lines.
    public static func lineDiff(_ old: [String], _ new: [String]) -> [String] {
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
