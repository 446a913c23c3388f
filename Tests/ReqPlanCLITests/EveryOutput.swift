import Foundation
import Testing

/// Everything `reqplan run` writes, in each way it can write it: to check that a secret is in none of it.
enum EveryOutput {
    /// Runs `reqplan run PLAN arguments…` three times — `--verbose` with a line per step, `--output json`, and
    /// `--format github --quiet` — each with a JSON, a JUnit, a trace and a HAR report, expecting `status` each time.
    /// - Returns: every output by name: `"text stdout"`, `"json stderr"`, `"github junit report"`, …
    static func collect(
        plan: URL, arguments: [String], environment: [String: String], status: Int32
    ) async throws -> [String: String] {
        let directory = plan.deletingLastPathComponent()
        var outputs: [String: String] = [:]
        for (name, extra) in [
            ("text", ["--verbose", "--progress", "lines"]), ("json", ["--output", "json"]),
            ("github", ["--format", "github", "--quiet"]),
        ] {
            let reports = ["json", "junit", "trace", "har"].flatMap { kind in
                ["--report", "\(kind):\(directory.appendingPathComponent("\(name)-\(kind).out").path)"]
            }
            let result = try await CommandRunner.run(
                ["run", plan.path] + arguments + extra + reports,
                environment: environment, within: .seconds(30))
            #expect(result.status == status, "\(result.stderr)")
            outputs["\(name) stdout"] = result.stdout
            outputs["\(name) stderr"] = result.stderr
            for kind in ["json", "junit", "trace"] {
                let path = directory.appendingPathComponent("\(name)-\(kind).out").path
                outputs["\(name) \(kind) report"] = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            }
        }
        return outputs
    }
}
