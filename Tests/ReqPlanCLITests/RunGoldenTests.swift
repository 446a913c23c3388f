import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

/// What `reqplan run` prints, compared with golden files in `Golden/` (`RECORD_GOLDEN=1` re-records).
/// Timings, ports and request ids are normalised; progress lines (whose order depends on timing)
/// are sorted.
@Suite struct RunGoldenTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static func normalise(_ text: String, collapseSpaces: Bool = true) -> String {
        var out = text
        let rules: [(String, String)] = [
            (#"127\.0\.0\.1:[0-9]+"#, "127.0.0.1:PORT"),
            // Durations print as `12ms` or `1.2s` depending on their length.
            (#"\b[0-9]+(\.[0-9]+)?(ms|s)\b"#, "T"),
            (#"req-[0-9]+"#, "req-N"),
            (#"rp\.[a-z]+\.[0-9a-f]+"#, "rp.TOKEN"),
        ]
        for (pattern, replacement) in rules {
            out = out.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        // Which requests were slowest depends on timing.
        out = out.replacingOccurrences(of: #"(?m)^slowest: .*$"#, with: "slowest: …", options: .regularExpression)
        // Column padding depends on the widths of the normalised numbers.
        if collapseSpaces {
            out = out.replacingOccurrences(of: #"(?m)(?<=\S) {2,}"#, with: "  ", options: .regularExpression)
        }
        return out
    }

    func check(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try Golden.check(actual, against: Self.golden.appendingPathComponent(name), sourceLocation: sourceLocation)
    }

    @Test func partialFailureAsSeenInALogAndAsJSON() async throws {
        try await DemoAPI.withServer { base in
            let arguments = ["run", "plans/partial-failure.yaml", "--input", "base_url=\(base)"]
            let text = try await CommandRunner.run(arguments + ["--progress", "lines"], within: .seconds(30))
            #expect(text.status == 1)
            let (progress, diagnostics) = Self.split(text.stderr)
            try check(Self.normalise(progress.sorted().joined(separator: "\n")) + "\n", "partial-failure.progress.txt")
            try check(Self.normalise(diagnostics, collapseSpaces: false), "partial-failure.diagnostics.txt")
            try check(Self.normalise(text.stdout), "partial-failure.summary.txt")

            let json = try await CommandRunner.run(arguments + ["--output", "json", "--progress", "none"],
                                                   within: .seconds(30))
            #expect(json.status == 1)
            try check(Self.normalise(json.stdout), "partial-failure.outputs.json")

            let quiet = try await CommandRunner.run(arguments + ["--quiet"], within: .seconds(30))
            try check(Self.normalise(quiet.stdout), "partial-failure.quiet.txt")
        }
    }

    /// Progress lines come first on standard error, then a blank line and the diagnostics.
    static func split(_ stderr: String) -> ([String], String) {
        guard let range = stderr.range(of: "\n\n") else {
            return (stderr.split(separator: "\n").map(String.init), "")
        }
        let progress = stderr[..<range.lowerBound].split(separator: "\n").map(String.init)
        return (progress, String(stderr[range.upperBound...]))
    }
}
