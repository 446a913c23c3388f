import Foundation
import ReqPlanRuntime
import ReqPlanTestSupport
import Testing

@testable import ReqPlanPresentation

/// Validates JUnit files against `Tests/Fixtures/junit.xsd` with Python (`xmlschema`, else `lxml`)
/// and checks the counts of every suite and of the root against the test cases.
enum JUnitSchema {
    static let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/junit.xsd")

    /// Whether Python can validate here; `.ci/run` installs `xmlschema` and sets `REQPLAN_REQUIRE_XSD=1`,
    /// which makes a missing validator a failure instead of a skipped test.
    static let validatorAvailable: Bool = {
        let probe = try? runPython(
            """
            try:
                import xmlschema
            except ImportError:
                import lxml.etree
            """, arguments: [])
        return probe?.status == 0
    }()

    static var required: Bool { ProcessInfo.processInfo.environment["REQPLAN_REQUIRE_XSD"] == "1" }

    /// The trait of a test that validates JUnit files: it runs where Python can validate (or where that is
    /// required), and is skipped elsewhere with the reason and how to get a validator.
    static var needed: ConditionTrait {
        .enabled(
            if: validatorAvailable || required,
            """
            needs Python's xmlschema (or lxml), to validate the JUnit files against Tests/Fixtures/junit.xsd, \
            and python3 imports neither: python3 -m pip install xmlschema. .ci/run installs it; \
            REQPLAN_REQUIRE_XSD=1 runs the test anyway (it fails)
            """)
    }

    static let script = #"""
        import sys
        import xml.etree.ElementTree as ET

        schema_path, paths = sys.argv[1], sys.argv[2:]
        try:
            import xmlschema
            schema = xmlschema.XMLSchema(schema_path)
            def schema_errors(path):
                return [str(error.reason or error) for error in schema.iter_errors(path)]
        except ImportError:
            try:
                from lxml import etree
            except ImportError:
                print("neither xmlschema nor lxml is installed (pip install xmlschema)")
                sys.exit(3)
            schema = etree.XMLSchema(etree.parse(schema_path))
            def schema_errors(path):
                return [] if schema.validate(etree.parse(path)) else [str(e) for e in schema.error_log]

        problems = []
        for path in paths:
            problems += [f"{path}: {error}" for error in schema_errors(path)]
            root = ET.parse(path).getroot()
            if root.tag != "testsuites":
                problems.append(f"{path}: the root is <{root.tag}>, not <testsuites>")
                continue
            totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
            for suite in root.iter("testsuite"):
                cases = suite.findall("testcase")
                counts = {
                    "tests": len(cases),
                    "failures": sum(1 for case in cases if case.find("failure") is not None),
                    "errors": sum(1 for case in cases if case.find("error") is not None),
                    "skipped": sum(1 for case in cases if case.find("skipped") is not None),
                }
                for key, value in counts.items():
                    if suite.get(key) != str(value):
                        problems.append(f"{path}: suite {suite.get('name')!r} says {key}={suite.get(key)}, has {value}")
                    totals[key] += value
            for key, value in totals.items():
                if root.get(key) != str(value):
                    problems.append(f"{path}: <testsuites> says {key}={root.get(key)}, suites have {value}")
        print("\n".join(problems))
        sys.exit(1 if problems else 0)
        """#

    /// Validates the files; returns the exit status (0 valid, 1 invalid, 3 no validator) and the problems.
    static func validate(_ files: [URL]) throws -> (status: Int32, output: String) {
        try runPython(script, arguments: [schema.path] + files.map(\.path))
    }
}

@Suite("The JUnit report", .timeSensitive)
struct JUnitReportTests {
    @Test(JUnitSchema.needed, arguments: Scenario.all)
    func validatesAgainstTheJUnitSchemaWithCorrectCounts(_ scenario: Scenario) async throws {
        let run = try await scenario.run()
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = [folder.appendingPathComponent("real.xml"), folder.appendingPathComponent("normalised.xml")]
        try run.report.junitXML().write(to: files[0], atomically: true, encoding: .utf8)
        try run.normalised.report.junitXML().write(to: files[1], atomically: true, encoding: .utf8)
        let (status, output) = try JUnitSchema.validate(files)
        #expect(status == 0, "\(output)")
    }

    @Test(JUnitSchema.needed)
    func theSchemaRejectsMalformedReports() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cases = [
            // A test case without a name.
            #"<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase/></testsuite></testsuites>"#,
            // A suite without counts.
            #"<testsuites><testsuite name="s"><testcase name="t"/></testsuite></testsuites>"#,
            // An unknown element in a test case.
            #"<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="t"><oops/></testcase></testsuite></testsuites>"#,
            // A time that is not decimal seconds.
            #"<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="t" time="1s"/></testsuite></testsuites>"#,
        ]
        for (index, text) in cases.enumerated() {
            let file = folder.appendingPathComponent("bad-\(index).xml")
            try text.write(to: file, atomically: true, encoding: .utf8)
            let (status, output) = try JUnitSchema.validate([file])
            #expect(status == 1, "case \(index) was accepted: \(output)")
        }
    }

    @Test func oneSuitePerScopeAndOneCasePerRequest() async throws {
        let report = try await Scenario.mixed.run().normalised.report
        let suites = JUnitPlan(report).suites()
        #expect(
            suites.map(\.name) == [
                "report-mixed", "report-mixed/bootstrap", "report-mixed/uploads", "report-mixed/checkout",
                "report-mixed/steps_in_order",
            ])
        #expect(
            suites.map { $0.cases.map(\.name) } == [
                ["login", "after_bootstrap", "optional"],
                ["config", "flaky", "broken"],
                ["uploads[0]", "uploads[1]", "uploads[2]"],
                ["add[0]", "pay[0]", "add[1]", "pay[1]"],
                ["first", "second"],
            ])
        #expect(suites[3].classname == "report-mixed.checkout")
        let xml = report.junitXML()
        #expect(xml.contains(#"<testsuites name="report-mixed" tests="15" failures="2" errors="0" skipped="2""#))
        #expect(xml.contains(#"<failure message="expected status 2xx, got 500" type="expectation">"#))
        #expect(xml.contains(#"<failure message="expected status 201, got 404" type="expectation">"#))
        #expect(xml.contains(#"<skipped message="skipped: its `if` is false"/>"#))
        #expect(xml.contains(#"<skipped message="skipped: dependency `bootstrap` failed"/>"#))
    }

    /// An attempt that fails two checks lists both in the `<failure>` text, as the failure's message does.
    @Test func aFailureListsEveryFailedCheckOfEachAttempt() async throws {
        let scenario = Scenario(
            name: "two-checks",
            plan: """
                reqplan: 1
                name: report-two-checks
                defaults: { base_url: "http://test" }
                steps:
                  checked:
                    request: { url: "/s/checked?status=500" }
                    expect: { status: 200, headers: { X-Request-Id: { exists: true } } }
                """, expectedExitCode: 1)
        let report = try await scenario.run().normalised.report
        let failure = JUnitPlan(report).suites().flatMap(\.cases).first { $0.name == "checked" }?.outcome
        guard case .failure(type: "expectation", let message, let details)? = failure else {
            Issue.record("no expectation failure: \(String(describing: failure))")
            return
        }
        let checks = message.components(separatedBy: "; ")
        #expect(checks.count == 2, "\(message)")
        let attempt = try #require(details.split(separator: "\n").first { $0.hasPrefix("attempt 1") })
        for check in checks { #expect(attempt.contains(check), "attempt line lacks `\(check)`: \(attempt)") }
    }

    @Test func collectionFailuresAndRunProblemsAreTestCases() async throws {
        let failures = try await Scenario.failures.run().normalised.report
        let cases = JUnitPlan(failures).suites().flatMap { suite in suite.cases.map { (suite.name, $0) } }
        func outcome(_ name: String) -> JUnitCase.Outcome? { cases.first { $0.1.name == name }?.1.outcome }
        guard case .failure(type: "timeout", _, _) = outcome("slow") else {
            Issue.record("the group timeout is not a failure: \(String(describing: outcome("slow")))")
            return
        }
        guard case .failure(type: "evaluation", _, _) = outcome("bad_loop") else {
            Issue.record("the for_each evaluation error is not a failure")
            return
        }
        guard case .failure(type: "timeout", _, _) = outcome("too_slow") else {
            Issue.record("the request timeout is not a failure")
            return
        }
        guard case .skipped(let message) = outcome("hangs"), message.hasPrefix("cancelled: ") else {
            Issue.record("the cancelled member is not skipped")
            return
        }
        guard case .error(type: "evaluation", _, _) = outcome("(outputs)") else {
            Issue.record("the output error is not an error")
            return
        }

        let timeout = JUnitPlan(try await Scenario.planTimeout.run().normalised.report).suites()
        #expect(timeout[0].cases.map(\.name).contains("(plan timeout)"))
        #expect(timeout.map(\.name).contains("report-plan-timeout/never"))
        let interrupted = JUnitPlan(try await Scenario.interrupted.run().normalised.report).suites()
        guard case .error(type: "interrupted", _, _) = interrupted[0].cases.last?.outcome else {
            Issue.record("the interrupt is not an error")
            return
        }
    }

    @Test func textIsEscapedAndTimesAreSeconds() {
        #expect(XMLWriter.escapeAttribute("a\"b<c>&\nd\u{1}") == "a&quot;b&lt;c&gt;&amp;&#10;d\u{FFFD}")
        #expect(XMLWriter.escapeText("x < y && z\n") == "x &lt; y &amp;&amp; z\n")
        #expect(RunReport.seconds(.milliseconds(1234)) == "1.234")
        #expect(RunReport.seconds(.microseconds(1500)) == "0.002")
        #expect(RunReport.seconds(.seconds(61)) == "61.000")
        #expect(RunReport.seconds(nil) == "0.000")
    }
}
