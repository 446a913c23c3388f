import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

/// `run --report html:` against httpbin (issue 23), opened in a real browser: headless Chromium driven by
/// Selenium (`scripts/check-html-report.py`) loads the page from file:// with no console error and no
/// request to the network, finds a waterfall bar per request and a step per step of the JSON report of the
/// same run, each step's expectations met or not as the report says, and a click on the bar of the failed
/// request opens it with what came back. The secret password is in no byte of the page. The same suite run
/// in two shards and merged (`report merge --report html:`) gives a page that passes the same checks.
@Suite(.timeSensitive) struct HTMLReportTests {
    static let checker = CommandRunner.packageRoot.appendingPathComponent("scripts/check-html-report.py")

    @Test(ExternalServers.needed(.httpbin))
    func thePageShowsTheRunInABrowserAndTheSecretIsInNoByte() async throws {
        let httpbin = try await Httpbin.shared()
        let first = try CommandRunner.temporaryPlan(HARReportTests.plan, name: "a.yaml")
        let folder = first.deletingLastPathComponent()
        try HARReportTests.other.write(to: folder.appendingPathComponent("b.yaml"), atomically: true, encoding: .utf8)
        let (html, json) = (folder.appendingPathComponent("run.html"), folder.appendingPathComponent("run.json"))
        let result = try await CommandRunner.run(
            [
                "run", folder.path, "--input", "base_url=\(httpbin.url)", "--report", "html:\(html.path)",
                "--report", "json:\(json.path)",
            ], environment: ["no_proxy": "*"], within: .seconds(60))
        #expect(result.status == 1, "\(result.stderr)")
        let page = try String(contentsOf: html, encoding: .utf8)
        #expect(!page.contains(HARReportTests.password), "the password leaks in the page")
        // Self-contained: nothing the page loads comes from elsewhere.
        #expect(!page.contains("src=\"http") && !page.contains("href=\"http") && !page.contains("@import"))
        // A section per plan file, the failed steps of each first.
        #expect(page.contains("id=\"plan-1\"") && page.contains("id=\"plan-2\""))
        if ExternalServers.canRun(.browser) {
            let check = try runCommand("python3", [Self.checker.path, html.path, json.path])
            #expect(check.status == 0, "\(check.output)")
            #expect(check.output.contains("clicking the bar of failed"), "\(check.output)")
        }
        // The same suite in two shards, merged: one page drawn from the shards' JSON reports passes the same checks.
        var shards: [String] = []
        for shard in ["1/2", "2/2"] {
            let report = folder.appendingPathComponent("shard-\(shard.prefix(1)).json").path
            shards.append(report)
            let run = try await CommandRunner.run(
                [
                    "run", folder.path, "--shard", shard, "--input", "base_url=\(httpbin.url)", "--quiet",
                    "--report", "json:\(report)",
                ], environment: ["no_proxy": "*"], within: .seconds(60))
            #expect(run.status == 1 || run.status == 0, "\(run.stderr)")
        }
        let (mergedPage, mergedJSON) = (
            folder.appendingPathComponent("merged.html"), folder.appendingPathComponent("merged.json")
        )
        let merge = try await CommandRunner.run(
            ["report", "merge"] + shards + [
                "--report", "html:\(mergedPage.path)", "--report", "json:\(mergedJSON.path)",
            ],
            within: .seconds(30))
        #expect(merge.status == 1, "\(merge.stderr)")
        let merged = try String(contentsOf: mergedPage, encoding: .utf8)
        #expect(!merged.contains(HARReportTests.password), "the password leaks in the merged page")
        #expect(merged.contains("id=\"plan-1\"") && merged.contains("id=\"plan-2\""))
        if ExternalServers.canRun(.browser) {
            let check = try runCommand("python3", [Self.checker.path, mergedPage.path, mergedJSON.path])
            #expect(check.status == 0, "\(check.output)")
            #expect(check.output.contains("expectations listed"), "\(check.output)")
        }
    }

    /// The example plans, run as a suite against the demo API, give a page and a HAR that pass the same
    /// checks: the browser's, and haralyzer's with the HAR 1.2 structure (`scripts/check-har.py`).
    @Test(ExternalServers.needed(.browser, .haralyzer))
    func theExamplePlansGiveAPageAndAHARThatPassTheChecks() async throws {
        let folder = try ExternalServers.makeTemporaryFolder("html-plans")
        let (html, har, json) = (
            folder.appendingPathComponent("plans.html"), folder.appendingPathComponent("plans.har"),
            folder.appendingPathComponent("plans.json")
        )
        try await DemoAPI.withServer { base in
            let result = try await CommandRunner.run(
                [
                    "run", "plans/", "--input", "base_url=\(base)", "--progress", "none", "--quiet",
                    "--report", "html:\(html.path)", "--report", "har:\(har.path)", "--report", "json:\(json.path)",
                ],
                environment: [
                    "DEMO_TOKEN": "demo-secret-token", "DEMO_PASSWORD": "demo-password", "DEMO_API_KEY": "demo-api-key",
                    "no_proxy": "*",
                ], within: .seconds(120))
            // plans/partial-failure.yaml fails on purpose.
            #expect(result.status == 1, "\(result.stderr)")
        }
        let page = try String(contentsOf: html, encoding: .utf8)
        #expect(!page.contains("demo-secret-token") && !page.contains("demo-password"))
        let browser = try runCommand("python3", [Self.checker.path, html.path, json.path])
        #expect(browser.status == 0, "\(browser.output)")
        let reread = try runCommand("python3", [HARReportTests.checker.path, har.path])
        #expect(reread.status == 0, "\(reread.output)")
    }
}
