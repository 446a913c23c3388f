import Foundation
import ReqPlanTestSupport
import Testing

/// The golden-file helper every suite uses (`ReqPlanTestSupport/Golden.swift`): a recording run fails.
@Suite struct GoldenHelperTests {
    func goldenFile(_ text: String?) throws -> URL {
        let file = try temporaryFolder().appendingPathComponent("case.txt")
        if let text { try text.write(to: file, atomically: true, encoding: .utf8) }
        return file
    }

    @Test func recordingRewritesTheFileAndFailsTheTest() throws {
        let file = try goldenFile("old\n")
        try withKnownIssue("a recording run fails on purpose") {
            try Golden.check("new\n", against: file, recording: true)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("re-recorded case.txt (changed") }
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == "new\n")
    }

    @Test func recordingFailsEvenWhenNothingChanged() throws {
        let file = try goldenFile("same\n")
        try withKnownIssue("a recording run fails on purpose") {
            try Golden.check("same\n", against: file, recording: true)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("(unchanged)") }
        }
    }

    @Test func aMissingGoldenFileIsWrittenAndFailsTheTest() throws {
        let file = try goldenFile(nil)
        try withKnownIssue("a missing golden file fails") {
            try Golden.check("first\n", against: file, recording: false)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("recorded the missing golden file case.txt") }
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == "first\n")
    }

    @Test func aDifferenceFailsWithTheFirstDifferingLineAndADiff() throws {
        let file = try goldenFile("a\nb\nc\n")
        try withKnownIssue("the output differs") {
            try Golden.check("a\nB\nc\n", against: file, recording: false)
        } matching: { issue in
            issue.comments.contains {
                $0.rawValue.contains("differs at line 2") && $0.rawValue.contains("\n- b")
                    && $0.rawValue.contains("\n+ B")
            }
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == "a\nb\nc\n", "a check never rewrites the file")
    }

    @Test func theSameOutputPasses() throws {
        try Golden.check("a\n", against: try goldenFile("a\n"), recording: false)
    }
}
