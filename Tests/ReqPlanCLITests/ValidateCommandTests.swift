import Foundation
import Testing

@Suite(.serialized) struct ValidateCommandTests {
    static let invalidPlan = """
        reqplan: 1
        defaults: { base_url: "http://127.0.0.1:8080" }
        steps:
          a:
            need: [b]
            request: { url: "/a/${{ steps.nope.body }}" }
        """

    static let warningPlan = """
        reqplan: 1
        inputs:
          unused: { default: 1 }
        steps:
          a: { request: { url: "http://127.0.0.1:1/a" } }
        """

    @Test func everyExamplePlanIsValidAndStrictlySo() throws {
        let plans = try CommandRunner.examplePlans()
        #expect(plans.count >= 6)
        let result = try CommandRunner.run(["validate", "--strict"] + plans)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("\(plans.count) valid, 0 invalid"))
    }

    @Test func invalidPlanExitsOneAndReportsEveryProblem() throws {
        let file = try CommandRunner.temporaryPlan(Self.invalidPlan)
        let result = try CommandRunner.run(["validate", file.path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("error[RP0101]: unknown key `need` in step `a`"))
        #expect(result.stdout.contains("error[RP0203]: unknown step `nope`"))
        #expect(result.stdout.contains("--> \(file.path):5:5"))
        #expect(result.stdout.contains("= hint: did you mean `needs`?"))
        #expect(result.stdout.contains("invalid (2 errors)"))
    }

    @Test func anyInvalidPlanAmongManyFailsTheRun() throws {
        let file = try CommandRunner.temporaryPlan(Self.invalidPlan)
        let plans = try CommandRunner.examplePlans()
        let result = try CommandRunner.run(["validate", plans[0], file.path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("checked 2 plans: 1 valid, 1 invalid"))
    }

    @Test func jsonFormatIsMachineReadable() throws {
        let file = try CommandRunner.temporaryPlan(Self.invalidPlan)
        let result = try CommandRunner.run(["validate", "--format", "json", file.path])
        #expect(result.status == 1)
        let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(document?["valid"] as? Bool == false)
        let plans = document?["plans"] as? [[String: Any]]
        let diagnostics = plans?.first?["diagnostics"] as? [[String: Any]]
        #expect(diagnostics?.count == 2)
        #expect(diagnostics?.first?["code"] as? String == "RP0101")
        #expect(diagnostics?.first?["line"] as? Int == 5)
        #expect(diagnostics?.first?["column"] as? Int == 5)
    }

    @Test func githubFormatPrintsWorkflowAnnotations() throws {
        let file = try CommandRunner.temporaryPlan(Self.invalidPlan)
        let result = try CommandRunner.run(["validate", "--format", "github", file.path])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n")
        #expect(
            lines.first?.hasPrefix("::error file=\(file.path.replacingOccurrences(of: ":", with: "%3A")),line=5,col=5")
                == true)
        #expect(lines.first?.contains("::unknown key `need` in step `a`%0Ahint: did you mean `needs`?") == true)
    }

    /// GitLab's code-quality report: the fields GitLab reads (its documented minimum), a fingerprint per problem
    /// that stays when the problem only moves, and alike problems told apart.
    @Test func gitlabFormatIsACodeQualityReport() throws {
        let file = try CommandRunner.temporaryPlan("")
        func report(_ text: String) throws -> (status: Int32, issues: [[String: Any]], stderr: String) {
            try Data(text.utf8).write(to: file)
            let result = try CommandRunner.run(["validate", "--format", "gitlab", file.path])
            let issues = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
            #expect(issues != nil, "not a JSON array: \(result.stdout)")
            for issue in issues ?? [] {
                #expect(
                    Set(issue.keys) == ["description", "check_name", "fingerprint", "severity", "location"], "\(issue)")
                let location = issue["location"] as? [String: Any]
                #expect(location?["path"] as? String == file.path)
                #expect((location?["lines"] as? [String: Any])?["begin"] is Int)
            }
            return (result.status, issues ?? [], result.stderr)
        }
        // Two steps read the same unknown step: the same message twice.
        let plan = Self.invalidPlan + "\n  c: { request: { url: \"/c/${{ steps.nope.body }}\" } }\n"
        let first = try report(plan)
        #expect(first.status == 1)
        #expect(first.stderr.contains("invalid (3 errors)"), "\(first.stderr)")
        #expect(first.issues.map { $0["check_name"] as? String } == ["RP0101", "RP0203", "RP0203"])
        #expect(first.issues.allSatisfy { $0["severity"] as? String == "major" })
        #expect(
            (first.issues.first?["description"] as? String)?.hasSuffix("\nhint: did you mean `needs`?") == true)
        let fingerprints = first.issues.compactMap { $0["fingerprint"] as? String }
        #expect(Set(fingerprints).count == 3)
        #expect(fingerprints.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
        // A comment above: the same problems, on the next lines, with the same fingerprints.
        let moved = try report("# moved\n" + plan)
        #expect(moved.issues.compactMap { $0["fingerprint"] as? String } == fingerprints)
        let lines = { (issues: [[String: Any]]) in
            issues.map { (($0["location"] as? [String: Any])?["lines"] as? [String: Any])?["begin"] as? Int ?? 0 }
        }
        #expect(lines(moved.issues) == lines(first.issues).map { $0 + 1 })
        // A warning is minor.
        let warned = try report(Self.warningPlan)
        #expect(warned.status == 0)
        #expect(warned.issues.map { $0["severity"] as? String } == ["minor"])
    }

    @Test func warningsFailOnlyWithStrict() throws {
        let file = try CommandRunner.temporaryPlan(Self.warningPlan)
        let relaxed = try CommandRunner.run(["validate", file.path])
        #expect(relaxed.status == 0)
        #expect(relaxed.stdout.contains("warning[RP0901]: input `unused` is never used"))
        let strict = try CommandRunner.run(["validate", "--strict", file.path])
        #expect(strict.status == 1)
    }

    @Test("another Arazzo runner's shorthand is a warning with its fix: valid, invalid with --strict")
    func otherRunnersShorthandIsAWarningThatStrictFails() throws {
        let file = CommandRunner.packageRoot.appendingPathComponent(
            "Tests/Fixtures/arazzo/golden/shorthand-operation-path-respect.arazzo.yaml")
        let relaxed = try CommandRunner.run(["validate", file.path])
        #expect(relaxed.status == 0, "\(relaxed.stdout)")
        #expect(relaxed.stdout.contains("warning[RP1014]: `operationPath: $sourceDescriptions.petstore#/paths/"))
        let strict = try CommandRunner.run(["validate", "--strict", "--format", "json", file.path])
        #expect(strict.status == 1, "\(strict.stdout)")
        let document = try JSONSerialization.jsonObject(with: Data(strict.stdout.utf8)) as? [String: Any]
        #expect(document?["valid"] as? Bool == false)
        let diagnostics = (document?["plans"] as? [[String: Any]])?.first?["diagnostics"] as? [[String: Any]] ?? []
        let warning = try #require(diagnostics.first { $0["code"] as? String == "RP1014" }, "\(strict.stdout)")
        #expect(warning["severity"] as? String == "warning")
        #expect(warning["line"] as? Int == 18 && warning["column"] as? Int == 24)
        let fix = try #require(warning["fix"] as? [String: Any], "\(warning)")
        #expect(
            fix["replacement"] as? String == "'{$sourceDescriptions.petstore.url}#/paths/~1pet~1{petId}~1coupons/get'")
        #expect(
            fix["title"] as? String
                == "Write the specification's form `{$sourceDescriptions.petstore.url}#/paths/~1pet~1{petId}~1coupons/get`"
        )
        #expect(fix["safe"] as? Bool == true)
        // Only a diagnostic with a fix has the key.
        #expect(diagnostics.filter { $0["code"] as? String != "RP1014" }.allSatisfy { $0["fix"] == nil })
    }

    @Test func missingFileIsAnErrorNotACrash() throws {
        let result = try CommandRunner.run(["validate", "does/not/exist.yaml"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("error[RP0001]: cannot read `does/not/exist.yaml`: no such file"))
    }

    @Test func explainPrintsTheSchedule() throws {
        let result = try CommandRunner.run(["validate", "--explain", "plans/app-launch.yaml"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("waves (steps that can start together):"))
        #expect(result.stdout.contains("critical path"))
        #expect(result.stdout.contains("environment: DEMO_TOKEN"))
    }

    @Test("validate --explain on an Arazzo document shows what --parallel would run together, and the time it saves")
    func explainShowsWhatParallelWouldGain() throws {
        let document = "Tests/Fixtures/arazzo/order/concurrent-steps.arazzo.yaml"
        let result = try CommandRunner.run(["validate", "--explain", document])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(
            result.stdout.contains(
                """
                  sequential: 2 waves → 1: coupons, pet
                  writes: 5 waves → 3: coupons, pet | order, rename | lookup
                critical path: 5 → 3 steps one after another: the time of 2 requests saved
                """), "\(result.stdout)")
        // Already read with --parallel, or a plan: nothing to compare.
        let parallel = try CommandRunner.run(["validate", "--explain", "--parallel", document])
        #expect(!parallel.stdout.contains("with --parallel"), "\(parallel.stdout)")
        let plan = try CommandRunner.run(["validate", "--explain", "plans/app-launch.yaml"])
        #expect(!plan.stdout.contains("with --parallel"), "\(plan.stdout)")
    }

    @Test func colorsOnlyWhenAsked() throws {
        let file = try CommandRunner.temporaryPlan(Self.invalidPlan)
        let plain = try CommandRunner.run(["validate", file.path])
        #expect(!plain.stdout.contains("\u{1B}["))
        let colored = try CommandRunner.run(["validate", "--color", "always", file.path])
        #expect(colored.stdout.contains("\u{1B}[1;31merror[RP0101]"))
    }

    @Test func oversizedPlanIsRefusedWithoutReadingIt() throws {
        let file = try CommandRunner.temporaryPlan(String(repeating: "# padding\n", count: 2000))
        let result = try CommandRunner.run(["validate", "--max-plan-size", "1000", file.path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("error[RP0004]"))
    }
}

@Suite struct PlanAndGraphCommandTests {
    @Test func planShowsWavesCriticalPathAndReads() throws {
        let result = try CommandRunner.run(["plan", "plans/app-launch.yaml"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("1. login, preferences, uploads (for_each), cart"))
        #expect(result.stdout.contains("critical path (4 steps one after another): login → config → home → logout"))
        #expect(result.stdout.contains("inputs: base_url, user, images, token (secret)"))
    }

    @Test func planShowsHowEachPolledRequestWaitsAndIsBounded() throws {
        let result = try CommandRunner.run(["plan", "plans/job-polling.yaml"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains(
                "polling (requests sent again until their `until` holds):\n"
                    + "  wait_for_job: every 100ms × 2 up to 1s, for at most 10s\n"
                    + "  doomed_job_ends: every 100ms, at most 20 polls\n\n"))
        let json = try CommandRunner.run(["plan", "--format", "json", "plans/job-polling.yaml"])
        #expect(
            json.stdout.contains(#""poll" : "every 100ms, at most 20 polls""#)
                || json.stdout.contains(#""poll": "every 100ms, at most 20 polls""#))
    }

    @Test func planAsJSON() throws {
        let result = try CommandRunner.run(["plan", "--format", "json", "plans/app-launch.yaml"])
        let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect((document?["critical_path"] as? [String]) == ["login", "config", "home", "logout"])
    }

    @Test func mermaidDrawsGroupsAsSubgraphs() throws {
        let result = try CommandRunner.run(["graph", "plans/app-launch.yaml", "--format", "mermaid"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("flowchart LR\n"))
        #expect(result.stdout.contains("subgraph n1[\"bootstrap · group\"]"))
        #expect(result.stdout.contains("n0 -.-> n2"))
        #expect(result.stdout.contains("n1 --> n8"))
    }

    @Test func dotDrawsGroupsAsClusters() throws {
        let result = try CommandRunner.run(["graph", "plans/app-launch.yaml", "--format", "dot"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("digraph plan {"))
        #expect(result.stdout.contains("subgraph cluster_n1 {"))
        #expect(result.stdout.contains("ltail=cluster_n1"))
    }

    @Test func graphOfAnInvalidPlanPrintsDiagnosticsAndFails() throws {
        let file = try CommandRunner.temporaryPlan(ValidateCommandTests.invalidPlan)
        let result = try CommandRunner.run(["graph", file.path])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("error[RP0101]"))
    }
}
