import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

/// `reqplan run` checks each response of a request bound to an operation against the demo API's own
/// document (`plans/_openapi/demo-api.yaml`), against the real demo API.
@Suite(.timeSensitive) struct ResponseSchemaCheckTests {
    static let document = CommandRunner.packageRoot.appendingPathComponent("plans/_openapi/demo-api.yaml")

    /// A plan bound to the demo API's document, beside a copy of it.
    static func boundPlan(_ steps: String) throws -> URL {
        let plan = try CommandRunner.temporaryPlan(
            """
            reqplan: 1
            inputs:
              base_url: { default: "http://127.0.0.1:1" }
              token: { env: REQPLAN_TEST_TOKEN, secret: true }
            openapi:
              demo: demo-api.yaml
            defaults:
              base_url: ${{ inputs.base_url }}
            steps:
            \(steps)
            """)
        try FileManager.default.copyItem(
            at: document, to: plan.deletingLastPathComponent().appendingPathComponent("demo-api.yaml"))
        return plan
    }

    static let stockReport = """
          health: { request: { operation: demo.health } }
          stock: { request: { url: /stock-report } }
        """

    @Test func aResponseThatBreaksTheDocumentFailsItsStepWithThePointer() async throws {
        let plan = try Self.boundPlan(Self.stockReport)
        try await DemoAPI.withServer { base in
            let result = try await CommandRunner.run(
                ["run", plan.path, "--input", "base_url=\(base)", "--progress", "none", "--color", "never"],
                environment: ["REQPLAN_TEST_TOKEN": "unused"], within: .seconds(30))
            #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("✓ health"))
            let expected = """
                error[RP0810]: step `stock` failed: the response does not fit `demo.stockReport` \
                (200 application/json): at `/products/0/in_stock`: expected an integer, found a string (`"42"`)
                """
            #expect(result.stderr.contains(expected), "\(result.stderr)")
            #expect(result.stderr.contains("request: GET \(base)/stock-report"))
        }
    }

    @Test func noResponseSchemaCheckLetsTheSameResponseThrough() async throws {
        let plan = try Self.boundPlan(Self.stockReport)
        try await DemoAPI.withServer { base in
            let result = try await CommandRunner.run(
                ["run", plan.path, "--input", "base_url=\(base)", "--progress", "none", "--no-response-schema-check"],
                environment: ["REQPLAN_TEST_TOKEN": "unused"], within: .seconds(30))
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
    }

    @Test func theWrongValueIsRedactedWhenItIsASecret() async throws {
        let secret = "Vx7-secret-price"
        // A raw body is not typed before the run: the item is stored with its price as text.
        let plan = try Self.boundPlan(
            """
              put:
                request:
                  method: PUT
                  url: /items/secret-price
                  headers: { Content-Type: application/json }
                  body: '{"name": "x", "price": "${{ inputs.token }}"}'
                expect: { status: 201 }
              read:
                request: { url: /items/secret-price }
                needs: put
            """)
        try await DemoAPI.withServer { base in
            let result = try await CommandRunner.run(
                ["run", plan.path, "--input", "base_url=\(base)", "--progress", "none"],
                environment: ["REQPLAN_TEST_TOKEN": secret], within: .seconds(30))
            #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
            #expect(
                result.stderr.contains("at `/price`: expected a number, found a string (`\"***\"`)"), "\(result.stderr)"
            )
            #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret))
        }
    }

    @Test func theDemoAPIServesTheDocumentThePlansBind() async throws {
        let checkedIn = try String(contentsOf: Self.document, encoding: .utf8)
        try await DemoAPI.withServer { base in
            let plan = try CommandRunner.temporaryPlan(
                """
                reqplan: 1
                inputs: { base_url: { default: "\(base)" } }
                steps:
                  document: { request: { url: "${{ inputs.base_url }}/openapi.yaml" } }
                outputs:
                  text: ${{ steps.document.body }}
                """)
            let result = try await CommandRunner.run(
                ["run", plan.path, "--output", "json", "--progress", "none"], within: .seconds(30))
            #expect(result.status == 0, "\(result.stderr)")
            let outputs = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            #expect(outputs?["text"] as? String == checkedIn)
        }
    }
}

/// The demo's data-flow example (`plans/_openapi/data-flow-mistake.yaml`), corrected, is valid and runs.
@Suite(.timeSensitive) struct DemoDataFlowExampleTests {
    @Test func theCorrectedExampleValidatesStrictlyAndRunsWithResponseChecks() async throws {
        let example = CommandRunner.packageRoot.appendingPathComponent("plans/_openapi/data-flow-mistake.yaml")
        var text = try String(contentsOf: example, encoding: .utf8)
        for (wrong, right) in [
            ("body.access_token", "body.token"), ("stock: \"${{ steps.login.body.user }}\"", "stock: 3"),
        ] {
            #expect(text.contains(wrong))
            text = text.replacingOccurrences(of: wrong, with: right)
        }
        let plan = try CommandRunner.temporaryPlan(text)
        try FileManager.default.copyItem(
            at: ResponseSchemaCheckTests.document,
            to: plan.deletingLastPathComponent().appendingPathComponent("demo-api.yaml"))
        let validated = try CommandRunner.run(["validate", "--strict", plan.path])
        #expect(validated.status == 0, "\(validated.stdout)\(validated.stderr)")
        try await DemoAPI.withServer { base in
            let result = try await CommandRunner.run(
                ["run", plan.path, "--input", "base_url=\(base)", "--progress", "none"], within: .seconds(30))
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("item: \"Demo item\""))
        }
    }
}

/// `reqplan plan`, the JSON report and JUnit name each bound request's operation.
@Suite(.timeSensitive) struct OperationInReportsTests {
    @Test func planAndReportsNameEachRequestsOperation() async throws {
        let plan = try ResponseSchemaCheckTests.boundPlan(ResponseSchemaCheckTests.stockReport)
        let shown = try CommandRunner.run(["plan", plan.path])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(
            shown.stdout.contains(
                "operations (openapi:):\n  health: demo.health (GET /health)\n  stock: demo.stockReport (GET /stock-report)\n"
            ), "\(shown.stdout)")
        let folder = plan.deletingLastPathComponent()
        let json = folder.appendingPathComponent("report.json")
        let junit = folder.appendingPathComponent("report.xml")
        try await DemoAPI.withServer { base in
            let result = try await CommandRunner.run(
                [
                    "run", plan.path, "--input", "base_url=\(base)", "--progress", "none",
                    "--report", "json:\(json.path)", "--report", "junit:\(junit.path)",
                ],
                environment: ["REQPLAN_TEST_TOKEN": "unused"], within: .seconds(30))
            #expect(result.status == 1, "\(result.stderr)")
        }
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any]
        let steps = report?["steps"] as? [[String: Any]] ?? []
        #expect(steps.map { $0["operation"] as? String } == ["demo.health", "demo.stockReport"])
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.contains("<system-out>operation: demo.health</system-out>"))
        #expect(xml.contains("operation: demo.stockReport\n"))  // in the failure's details too
    }
}
