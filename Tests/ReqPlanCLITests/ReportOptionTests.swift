import Foundation
import ReqPlanDemoAPI
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

/// `reqplan run --report KIND:PATH`, end to end: the built binary against the demo API.
@Suite(.timeSensitive) struct ReportOptionTests {
    static let secret = "report-secret-7f3a"

    static let plan = """
        reqplan: 1
        name: report-option
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
          token: { env: REQPLAN_REPORT_TOKEN, secret: true }
        defaults:
          base_url: ${{ inputs.base_url }}
          headers: { Authorization: "Bearer ${{ inputs.token }}" }
        steps:
          echo: { request: { url: /echo, query: { token: "${{ inputs.token }}" } } }
          broken: { request: { url: /status/500 } }
          later: { needs: [broken], request: { url: /echo } }
        outputs:
          token: ${{ inputs.token }}
        """

    @Test func everyReportIsWrittenWhenTheRunFails() async throws {
        let file = try CommandRunner.temporaryPlan(Self.plan)
        let folder = file.deletingLastPathComponent().appendingPathComponent("reports")
        let paths = [
            "json": folder.appendingPathComponent("run.json").path,
            "junit": folder.appendingPathComponent("junit/results.xml").path,
            "trace": folder.appendingPathComponent("trace.json").path,
        ]
        try await DemoAPI.withServer { base in
            let result = try await CommandRunner.run(
                [
                    "run", file.path, "--input", "base_url=\(base)", "--report", "json:" + (paths["json"] ?? ""),
                    "--report", "junit:" + (paths["junit"] ?? ""), "--report", "trace:" + (paths["trace"] ?? ""),
                ],
                environment: ["REQPLAN_REPORT_TOKEN": Self.secret], within: .seconds(30))
            #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        }
        for (kind, path) in paths {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(!text.contains(Self.secret), "the \(kind) report contains the secret")
            #expect(text.contains("***"), "the \(kind) report does not show the redacted secret")
        }
        let json = try Value.parseJSON(String(contentsOfFile: paths["json"] ?? "", encoding: .utf8))
        #expect(json["format"] == .string("reqplan-run/1"))
        #expect(json["exit_code"] == .int(1))
        let junit = try String(contentsOfFile: paths["junit"] ?? "", encoding: .utf8)
        #expect(junit.contains(#"<testsuites name="report-option" tests="3" failures="1" errors="0" skipped="1""#))
        let trace = try Value.parseJSON(String(contentsOfFile: paths["trace"] ?? "", encoding: .utf8))
        #expect(trace["displayTimeUnit"] == .string("ms"))
    }

    @Test(arguments: ["pdf:out.pdf", "json", "junit:"])
    func malformedReportsAreUsageErrors(_ value: String) async throws {
        let file = try CommandRunner.temporaryPlan(Self.plan)
        let result = try await CommandRunner.run(["run", file.path, "--report", value], within: .seconds(30))
        #expect(result.status == 64)
        #expect(result.stderr.contains("--report"), "\(result.stderr)")
    }
}
