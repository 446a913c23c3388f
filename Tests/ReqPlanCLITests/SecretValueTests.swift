import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

/// Redaction by value: whatever a secret's value is (`1`, `test`, `<`, a word of every report's
/// structure), every output of a run is what it is with any other secret, so no secret can corrupt a
/// report, and none appears where it went in. Through the built binary, against the demo API.
@Suite(.timeSensitive) struct SecretValueTests {
    /// The secret of the reference run: long, unique, and found in no output.
    static let reference = "Zq9-Reference-Secret-4711"

    /// Values shorter than 8 characters that collide with text every output holds: digits of statuses and
    /// times, JSON and XML syntax, words of the reports' structure. Hidden where they went in only: every
    /// output is the same as with any other secret.
    static let values = ["1", "0", "test", "json", "true", "null", "<", "\"", "&", "'", "GET", "***"]

    /// Values of 8 characters or more that collide with words of the reports and of the plan: hidden in every
    /// string every output shows (GitHub Actions masks a secret that way), so outputs may say `***` where the
    /// plan's own text held them (`see *** field`); but no report's structure changes, every report parses,
    /// and no output's lines are more or fewer.
    static let longValues = ["testsuites", "testcase", "exit_code", "password", "see password"]

    /// The secret goes into a URL, a header (directly and through a var), a JSON body, a for_each list,
    /// an expected value and outputs; a literal output merely contains its text. The steps run one after
    /// another, so every run prints the same lines in the same order.
    static let plan = """
        reqplan: 1
        name: secret-values
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
          password: { secret: true }
        vars:
          bearer: "Bearer ${{ inputs.password }}"
        defaults:
          base_url: ${{ inputs.base_url }}
        steps:
          teapot:
            request:
              method: POST
              url: /status/418
              query: { password: "${{ inputs.password }}", user: alice }
              headers: { X-Password: "Basic ${{ inputs.password }}", X-Auth: "${{ vars.bearer }}" }
              json: { password: "${{ inputs.password }}", note: "see password field" }
          status:
            needs: [teapot]
            if: ${{ always() }}
            request: { url: /status/200 }
            expect: { body: { reason: { equals: "${{ inputs.password }}" } } }
          each:
            needs: [status]
            if: ${{ always() }}
            concurrency: 1
            for_each: ["${{ inputs.password }}", "plain"]
            as: word
            request: { url: "/status/201", query: { w: "${{ word }}" } }
        outputs:
          note: "see password field"
          password: ${{ inputs.password }}
          sentence: "the password is ${{ inputs.password }}!"
          teapot: ${{ steps.teapot.status }}
        """

    /// An output with every number (and a time's unit) replaced by `N`: times, durations and sizes differ from run to
    /// run; the text around them does not. (`4***8` for `418` still differs from `N`.)
    static func normalised(_ text: String) -> String {
        text.replacing(/[0-9]+(\.[0-9]+)?(ms|s)?/, with: "N")
    }

    @Test func everyOutputIsTheSameWhateverTheSecretsValue() async throws {
        let file = try CommandRunner.temporaryPlan(Self.plan)
        try await DemoAPI.withServer { base in
            let folder = file.deletingLastPathComponent()
            func outputs(secret: String) async throws -> [String: String] {
                let reports = ["json", "junit", "trace"].flatMap { kind in
                    ["--report", "\(kind):\(folder.appendingPathComponent("report.\(kind)").path)"]
                }
                let result = try await CommandRunner.run(
                    [
                        "run", file.path, "--input", "base_url=\(base)", "--input", "password=\(secret)", "--verbose",
                        "--progress", "lines", "--output", "json",
                    ] + reports, within: .seconds(30))
                #expect(result.status == 1, "\(result.stderr)")
                var outputs = ["stdout": result.stdout, "stderr": result.stderr]
                for kind in ["json", "junit", "trace"] {
                    let path = folder.appendingPathComponent("report.\(kind)").path
                    outputs["\(kind) report"] = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                }
                return outputs
            }
            let expected = try await outputs(secret: Self.reference)
            // The reference secret went in (outputs show `***` exactly there) and appears in no output.
            let text = expected["stderr"] ?? ""
            #expect(text.contains("POST \(base)/status/418?password=***&user=alice"), "\(text)")
            #expect(text.contains("> X-Password: Basic ***"), "\(text)")
            #expect(text.contains("> X-Auth: ***"), "a var computed from the secret is shown as `***`: \(text)")
            #expect(text.contains(#"{"password":"***","note":"see password field"}"#), "\(text)")
            #expect(text.contains("expected status 2xx, got 418"), "\(text)")
            #expect(text.contains(#"expected body `reason` to equal "***", got "OK""#), "\(text)")
            #expect(text.contains("/status/201?w=***"), "\(text)")
            let stdout = expected["stdout"] ?? ""
            #expect(stdout.contains(#""sentence": "the password is ***!""#), "\(stdout)")
            #expect(stdout.contains(#""note": "see password field""#), "\(stdout)")
            #expect(stdout.contains(#""teapot": 418"#), "\(stdout)")
            for (name, output) in expected {
                #expect(!output.contains(Self.reference), "the secret leaks in \(name)")
            }
            try await Self.expectReportsParse(in: folder)

            for secret in Self.values {
                let seen = try await outputs(secret: secret)
                for (name, output) in expected {
                    #expect(
                        Self.normalised(seen[name] ?? "") == Self.normalised(output),
                        "with the secret `\(secret)`, \(name) differs:\n\(seen[name] ?? "")")
                }
                try await Self.expectReportsParse(in: folder)
            }
            for secret in Self.longValues {
                let seen = try await outputs(secret: secret)
                try await Self.expectReportsParse(in: folder)
                for (name, output) in expected {
                    let lines = (seen[name] ?? "").split(separator: "\n", omittingEmptySubsequences: false).count
                    #expect(
                        lines == output.split(separator: "\n", omittingEmptySubsequences: false).count,
                        "with the secret `\(secret)`, \(name) has other lines:\n\(seen[name] ?? "")")
                }
                // In no string of the JSON report (its keys are names, which the net leaves alone).
                let report = try JSONSerialization.jsonObject(
                    with: Data(contentsOf: folder.appendingPathComponent("report.json")))
                #expect(Self.strings(in: report).allSatisfy { !$0.contains(secret) }, "`\(secret)` in the JSON report")
            }
        }
    }

    /// Every string value of a JSON object, at any depth.
    static func strings(in value: Any) -> [String] {
        if let text = value as? String { return [text] }
        if let list = value as? [Any] { return list.flatMap(strings) }
        if let object = value as? [String: Any] { return object.values.flatMap(strings) }
        return []
    }

    /// The reports written in `folder` parse: JSON by Foundation, JUnit XML by Python's XML parser.
    static func expectReportsParse(in folder: URL) async throws {
        for kind in ["json", "trace"] {
            let data = try Data(contentsOf: folder.appendingPathComponent("report.\(kind)"))
            #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: data) }
        }
        let junit = folder.appendingPathComponent("report.junit").path
        let parsed = try await CommandRunner.run(
            ["python3", "-c", "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])", junit],
            executable: URL(fileURLWithPath: "/usr/bin/env"), within: .seconds(30))
        #expect(parsed.status == 0, "\(junit) is not XML: \(parsed.stderr)")
    }
}

/// A cookie's value is a secret (the reports hide it), and a server chooses it: whatever it is, the
/// reports stay what they are. httpbin sets a cookie whose value is a word of every JUnit report.
@Suite(.timeSensitive) struct CookieValueTests {
    static let plan = """
        reqplan: 1
        name: cookie-values
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
          value: { default: testsuites }
        defaults:
          base_url: ${{ inputs.base_url }}
        steps:
          set:
            request: { url: /cookies/set, query: { sid: "${{ inputs.value }}" } }
          fails:
            needs: [set]
            request: { url: /status/500 }
        outputs:
          cookies: ${{ steps.set.body.cookies }}
        """

    @Test(ExternalServers.needed(.httpbin), arguments: ["testsuites", "testcase", "failures"])
    func aCookieValueThatIsAWordOfTheReportLeavesItValid(value: String) async throws {
        let httpbin = try await Httpbin.shared()
        let file = try CommandRunner.temporaryPlan(Self.plan)
        let folder = file.deletingLastPathComponent()
        let result = try await CommandRunner.run(
            [
                "run", file.path, "--input", "base_url=\(httpbin.url)", "--input", "value=\(value)", "--output",
                "json", "--report", "junit:\(folder.appendingPathComponent("report.junit").path)", "--report",
                "json:\(folder.appendingPathComponent("report.json").path)",
                "--report", "trace:\(folder.appendingPathComponent("report.trace").path)",
            ], within: .seconds(30))
        #expect(result.status == 1, "\(result.stderr)")
        // httpbin set the cookie and echoed it back: the value is a secret of the run from then on.
        #expect(result.stdout.contains(#""sid": "***""#), "\(result.stdout)")
        try await SecretValueTests.expectReportsParse(in: folder)
        let junit = try String(contentsOf: folder.appendingPathComponent("report.junit"), encoding: .utf8)
        #expect(junit.contains("<testsuites name=\"cookie-values\""), "\(junit)")
        #expect(junit.contains("<testcase name=\"fails\""), "\(junit)")
    }
}
