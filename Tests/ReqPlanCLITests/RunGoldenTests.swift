import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

/// What `reqplan run` prints, compared with golden files in `Golden/` (`RECORD_GOLDEN=1` re-records).
/// Timings, ports and request ids are normalised; progress lines (whose order depends on timing)
/// are sorted.
@Suite(.timeSensitive) struct RunGoldenTests {
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

            let json = try await CommandRunner.run(
                arguments + ["--output", "json", "--progress", "none"],
                within: .seconds(30))
            #expect(json.status == 1)
            try check(Self.normalise(json.stdout), "partial-failure.outputs.json")

            let quiet = try await CommandRunner.run(arguments + ["--quiet"], within: .seconds(30))
            try check(Self.normalise(quiet.stdout), "partial-failure.quiet.txt")
        }
    }

    /// The summary's columns line up when a member's id is longer than the id column, and counts of one are
    /// singular ("1 step").
    @Test func summaryColumnsAndCountsOfOne() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reqplan-golden-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let head =
            "reqplan: 1\ninputs: { base_url: { type: string } }\ndefaults: { base_url: \"${{ inputs.base_url }}\" }\n"
        let long = folder.appendingPathComponent("long-ids.yaml")
        try
            (head + """
                steps:
                  health: { request: { url: /health } }
                  bootstrap:
                    group:
                      fetch_the_configuration_of_the_application_for_this_user: { request: { url: /items } }
                      items: { request: { url: /items/none }, expect: { status: 404 } }

                """).write(to: long, atomically: true, encoding: .utf8)
        let one = folder.appendingPathComponent("one-step.yaml")
        try (head + "steps:\n  health: { request: { url: /health } }\n").write(
            to: one, atomically: true, encoding: .utf8)
        try await DemoAPI.withServer { base in
            for (plan, golden) in [(long, "long-ids.summary.txt"), (one, "one-step.summary.txt")] {
                let run = try await CommandRunner.run(
                    ["run", plan.path, "--input", "base_url=\(base)", "--progress", "none"], within: .seconds(30))
                #expect(run.status == 0, "\(run.stderr)")
                try check(Self.normalise(run.stdout, collapseSpaces: false), golden)
            }
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
