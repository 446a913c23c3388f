import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

/// Sub-plans through the built binary: `validate --explain`, `graph`, the JSON and JUnit reports, and secrets
/// given to and returned by a sub-plan, in every output of `reqplan run`.
@Suite(.timeSensitive) struct SubPlanCommandTests {
    @Test func validateExplainShowsTheSubPlanItsInputsAndOutputs() throws {
        let result = try CommandRunner.run(["validate", "--explain", "plans/account-report.yaml"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("steps: 5 (4 requests, 1 sub-plan)"), "\(result.stdout)")
        #expect(result.stdout.contains("  1. login/form\n  2. login/submit\n  3. account, preferences\n"))
        #expect(
            result.stdout.contains(
                """
                sub-plans:
                  login: plans/shared/login.yaml
                    inputs: base_url, user
                    outputs: token (secret), user
                """), "\(result.stdout)")
    }

    @Test func theGraphHasAClusterPerSubPlan() throws {
        let dot = try CommandRunner.run(["graph", "--format", "dot", "plans/signed-in-home.yaml"])
        #expect(dot.status == 0)
        #expect(
            dot.stdout.contains("  subgraph cluster_n0 {\n    label=\"login (plan) shared/login.yaml\";\n"),
            "\(dot.stdout)")
        let mermaid = try CommandRunner.run(["graph", "plans/signed-in-home.yaml"])
        #expect(mermaid.stdout.contains("  subgraph n0[\"login · plan shared/login.yaml\"]\n"), "\(mermaid.stdout)")
    }

    @Test func validateNamesTheFileOfEveryNoteInJSON() throws {
        let result = try CommandRunner.run(
            ["validate", "--format", "json", "invalid/101-subplan-input-type.yaml"],
            in: CommandRunner.packageRoot.appendingPathComponent("Tests/Corpus"))
        #expect(result.status == 1)
        struct Document: Decodable {
            struct Plan: Decodable { var diagnostics: [Diagnostic] }
            struct Diagnostic: Decodable {
                var code: String
                var file: String
                var notes: [Note]
            }
            struct Note: Decodable {
                var message: String
                var file: String?
            }
            var plans: [Plan]
        }
        let document = try JSONDecoder().decode(Document.self, from: Data(result.stdout.utf8))
        let diagnostic = try #require(document.plans.first?.diagnostics.first)
        #expect(diagnostic.code == "RP0604")
        #expect(diagnostic.file == "invalid/subplans/101-checkout.yaml")
        #expect(diagnostic.notes.map(\.file) == ["invalid/subplans/login.yaml", "invalid/101-subplan-input-type.yaml"])
        #expect(diagnostic.notes.last?.message == "included from invalid/101-subplan-input-type.yaml:5:19")
    }

    @Test func reportsNestTheSubPlansStepsUnderItsStep() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reqplan-reports-\(UUID().uuidString)")
        try await DemoAPI.withServer { base in
            let json = folder.appendingPathComponent("run.json").path
            let junit = folder.appendingPathComponent("junit.xml").path
            let result = try await CommandRunner.run(
                [
                    "run", "plans/account-report.yaml", "--input", "base_url=\(base)", "--report", "json:\(json)",
                    "--report", "junit:\(junit)",
                ], within: .seconds(30))
            #expect(result.status == 0, "\(result.stderr)")
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
            let steps = try #require(report["steps"] as? [[String: Any]])
            #expect(steps.map { $0["id"] as? String } == ["login", "account", "preferences"])
            #expect(steps.first?["kind"] as? String == "plan")
            let children = try #require(steps.first?["children"] as? [[String: Any]])
            #expect(children.map { $0["id"] as? String } == ["login/form", "login/submit"])
            #expect(children.map { $0["parent"] as? String } == ["login", "login"])
            let xml = try String(contentsOfFile: junit, encoding: .utf8)
            #expect(xml.contains(#"<testsuite name="Account report/login" tests="2""#), "\(xml)")
            #expect(xml.contains(#"<testcase name="login/submit" classname="Account report.login""#), "\(xml)")
        }
    }

    static let password = "Pw-Sub-Plan-41"

    static let files = [
        "lib/session.yaml": """
        reqplan: 1
        inputs:
          base_url:
          password: { secret: true }
        defaults:
          base_url: ${{ inputs.base_url }}
        steps:
          check: { request: { url: "/echo?pw=${{ inputs.password }}" } }
          login: { request: { method: POST, url: /login, json: { user: erin } } }
        outputs:
          token: { value: "${{ steps.login.body.token }}", secret: true }
        """,
        "plan.yaml": """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
        defaults:
          base_url: ${{ inputs.base_url }}
        steps:
          session:
            plan: { file: lib/session.yaml, inputs: { base_url: "${{ inputs.base_url }}", password: \(password) } }
          echo: { request: { url: "/echo?token=${{ steps.session.outputs.token }}" } }
          broken: { request: { url: "/status/500?token=${{ steps.session.outputs.token }}" } }
        outputs:
          session: { value: "${{ steps.session.outputs.token }}", secret: true }
          echoed: ${{ steps.echo.body.query.raw }}
        """,
    ]

    @Test func secretsGivenToOrReturnedByASubPlanAppearInNoOutputButThePipedOne() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reqplan-secrets-\(UUID().uuidString)")
        for (path, text) in Self.files {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try await DemoAPI.withServer { base in
            let outputs = try await EveryOutput.collect(
                plan: folder.appendingPathComponent("plan.yaml"), arguments: ["--input", "base_url=\(base)"],
                environment: [:], status: 1)
            let token = "rp.erin."
            let piped = outputs["json stdout"] ?? ""
            #expect(piped.contains("\"session\": \"\(token)"), "a secret output is whole in --output json: \(piped)")
            #expect(piped.contains("\"echoed\": \"token=***\""), "another output shows it hidden: \(piped)")
            #expect(outputs["text stdout"]?.contains("session: \"***\"") == true)
            for (name, output) in outputs {
                #expect(!output.contains(Self.password), "the secret input leaks in \(name)")
                // `--verbose` prints the login response before its token is known as a secret (grammar.md §13.6).
                guard name != "json stdout", name != "text stderr" else { continue }
                #expect(!output.contains(token), "the secret output leaks in \(name)")
            }
            let verbose = outputs["text stderr"] ?? ""
            #expect(verbose.contains("/echo?token=***"), "requests after the sub-plan hide its secret output")
        }
    }
}
