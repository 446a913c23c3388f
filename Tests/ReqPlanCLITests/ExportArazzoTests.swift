import Foundation
import ReqPlanTestSupport
import Testing

/// `reqplan export arazzo` end to end: a plan bound to the pet-coupons description becomes an Arazzo 1.1
/// document (a golden, re-recorded with `RECORD_GOLDEN=1`) that reqplan validates with nothing more to say than
/// of the plan, and that Jentic's arazzo-runner runs against connexion's mock of the description with the
/// requests and outcomes of `reqplan run` of the plan. What has no Arazzo form is refused, located, and
/// nothing is written.
@Suite(.timeSensitive) struct ExportArazzoTests {
    static let folder = CommandRunner.packageRoot.appendingPathComponent("Tests/Fixtures/export")
    static let plan = folder.appendingPathComponent("order-pet.yaml")
    static let description = folder.appendingPathComponent("pet-coupons.openapi.yaml")
    static let golden = folder.appendingPathComponent("order-pet.exported.arazzo.yaml")

    @Test func aPlanBoundToADescriptionExportsToTheGoldenDocument() async throws {
        let result = try await CommandRunner.run(["export", "arazzo", Self.plan.path], within: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1" {
            try result.stdout.write(to: Self.golden, atomically: true, encoding: .utf8)
        }
        #expect(result.stdout == (try String(contentsOf: Self.golden, encoding: .utf8)))
        // The document says no more than the plan: the same warnings (a value that may be absent), no error.
        let plan = try await CommandRunner.run(["validate", "--strict", Self.plan.path], within: .seconds(60))
        let document = try await CommandRunner.run(["validate", "--strict", Self.golden.path], within: .seconds(60))
        #expect(!document.stdout.contains("error["), "\(document.stdout)")
        #expect(Self.codes(document.stdout) == Self.codes(plan.stdout).filter { $0 != "RP0901" }, "\(document.stdout)")
        #expect(Self.codes(document.stdout).allSatisfy { $0 == "RP0853" }, "\(document.stdout)")
    }

    /// A plan written in a fresh folder, beside a copy of the pet-coupons description.
    static func planBesideTheDescription(_ text: String, name: String) throws -> URL {
        let plan = try CommandRunner.temporaryPlan(text, name: name)
        try FileManager.default.copyItem(
            at: description, to: plan.deletingLastPathComponent().appendingPathComponent("pet-coupons.openapi.yaml"))
        return plan
    }

    static func codes(_ text: String) -> [String] { text.matches(of: /warning\[(RP\d+)\]/).map { String($0.1) } }

    @Test(
        "arazzo-runner runs the exported document against connexion's mock with the requests and outcomes of reqplan run",
        ExternalServers.needed(.connexion, .arazzoRunner))
    func theExportRunsInArazzoRunnerAsThePlanRunsInReqplan() async throws {
        let mock = try await ConnexionMock.start(serving: Self.description)
        defer { mock.stop() }
        // The plan and a copy of its description that names the mock as its server, for arazzo-runner.
        let folder = try ExternalServers.makeTemporaryFolder("export-arazzo")
        let plan = folder.appendingPathComponent("order-pet.yaml")
        try FileManager.default.copyItem(at: Self.plan, to: plan)
        let description = try String(contentsOf: Self.description, encoding: .utf8)
        try (description + "\nservers:\n  - url: \(mock.url)\n").write(
            to: folder.appendingPathComponent("pet-coupons.openapi.yaml"), atomically: true, encoding: .utf8)

        // connexion's mock fills a property without an example with null, which the description does not allow.
        let run = try await CommandRunner.run(
            [
                "run", plan.path, "--input", "base_url=\(mock.url)", "--no-response-schema-check", "--output", "json",
                "--progress", "none",
            ], environment: ["no_proxy": "*"], within: .seconds(60))
        #expect(run.status == 0, "\(run.stderr)")
        let outputs = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(outputs["order_id"] as? Int == 10 && outputs["coupon"] as? String == "SUMMERSALE", "\(run.stdout)")
        let sentByReqplan = Self.requests(in: mock.process.read("connexion.console.log"))
        #expect(
            sentByReqplan == [
                "GET /pet/findByTags?tags=dog 200", "GET /pet/10/coupons 200", "POST /store/order 200",
                "GET /store/order/10 200",
            ])

        let document = folder.appendingPathComponent("order-pet.arazzo.yaml")
        let export = try await CommandRunner.run(
            ["export", "arazzo", plan.path, "-o", document.path], within: .seconds(60))
        #expect(export.status == 0, "\(export.stderr)")
        let validate = try await CommandRunner.run(["validate", document.path], within: .seconds(60))
        #expect(validate.status == 0, "\(validate.stdout)")

        // arazzo-runner does not apply the inputs' defaults: it is given the values reqplan took from them.
        let python = try #require(ExternalServers.executable("python3"))
        let runner = try await CommandRunner.run(
            [
                "-m", "arazzo_runner", "execute-workflow", document.path, "--workflow-id", "order-pet", "--inputs",
                #"{"tags": ["dog"], "quantity": 1}"#,
            ], environment: ["no_proxy": "*", "NO_PROXY": "*"], executable: URL(fileURLWithPath: python),
            within: .seconds(120))
        let said = runner.stdout + runner.stderr
        #expect(runner.status == 0 && said.contains("status=workflow_complete"), "\(said)")
        #expect(said.contains("outputs={'order_id': 10, 'coupon': 'SUMMERSALE'}"), "\(said)")
        let all = Self.requests(in: mock.process.read("connexion.console.log"))
        #expect(Array(all.dropFirst(sentByReqplan.count)) == sentByReqplan, "\(all)")
    }

    /// Each request connexion answered, as `METHOD TARGET STATUS`.
    static func requests(in log: String) -> [String] {
        log.matches(of: /"([A-Z]+ [^ "]+) HTTP\/1\.1" (\d{3})/).map { "\($0.1) \($0.2)" }
    }

    static let refused = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
          token: { secret: true }
        openapi:
          pets: { file: pet-coupons.openapi.yaml, base_url: "${{ inputs.base_url }}" }
        vars:
          tag: dog
        steps:
          plain:
            request: { url: "${{ inputs.base_url }}/health" }
          each:
            for_each: [1, 2]
            request: { operation: pets.getPetById, path: { petId: "${{ item }}" } }
          polled:
            request: { operation: pets.getPetById, path: { petId: 1 } }
            poll: { until: "${{ response.body.status == 'sold' }}", attempts: 3 }
          retried:
            request: { operation: pets.getPetById, path: { petId: 1 }, auth: { bearer: "${{ inputs.token }}" } }
            retry: 3
          guarded:
            if: ${{ steps.retried.status == 200 }}
            request:
              operation: pets.findPetsByTags
              query: { tags: ["${{ vars.tag }}", "$inputs.tags"] }
            expect:
              max_duration: 2s
              body:
                "[0].name": { type: string }
          computed:
            request: { operation: pets.getPetById, path: { petId: "${{ length(steps.retried.body.tags) }}" } }
        outputs:
          text: "pet ${{ steps.retried.body.id }}"
        """

    @Test func whatHasNoArazzoFormIsRefusedWithItsPlaceAndNothingIsWritten() async throws {
        let plan = try Self.planBesideTheDescription(Self.refused, name: "refused.yaml")
        let document = plan.deletingLastPathComponent().appendingPathComponent("refused.arazzo.yaml")
        let result = try await CommandRunner.run(
            ["export", "arazzo", plan.path, "-o", document.path, "--color", "never"], within: .seconds(60))
        #expect(result.status == 1)
        #expect(!FileManager.default.fileExists(atPath: document.path))
        let expected: [(code: String, line: Int, says: String)] = [
            ("RP1450", 8, "`vars` has no Arazzo form"),
            ("RP1450", 10, "a request not bound to an operation has no Arazzo form"),
            ("RP1450", 12, "`for_each` has no Arazzo form"),
            ("RP1450", 17, "`poll` has no Arazzo form"),
            ("RP1450", 19, "`auth` has no Arazzo form"),
            ("RP1450", 20, "`retry` has no Arazzo form"),
            ("RP1450", 22, "`if:` has no Arazzo form"),
            ("RP1451", 25, "`${{ vars.tag }}` has no Arazzo runtime expression"),
            ("RP1451", 25, "the text \"$inputs.tags\" would be read as a runtime expression"),
            ("RP1450", 27, "`max_duration` has no Arazzo form"),
            ("RP1450", 29, "this matcher of the body path `[0].name`"),
            ("RP1451", 31, "`${{ length(steps.retried.body.tags) }}` has no Arazzo runtime expression"),
            ("RP1450", 33, "output `text` has no Arazzo form"),
        ]
        let blocks = result.stderr.components(separatedBy: "error[").dropFirst()
        for item in expected {
            let found = blocks.contains {
                $0.hasPrefix(item.code + "]: ") && $0.contains(item.says) && $0.contains("refused.yaml:\(item.line):")
            }
            #expect(found, "\(item) not in: \(result.stderr)")
        }
        #expect(blocks.count == expected.count, "\(result.stderr)")
    }

    @Test func hostileNamesAndValuesAreWrittenAsTextThatReadsBackAsThemselves() async throws {
        let plan = try Self.planBesideTheDescription(
            """
            reqplan: 1
            name: "order \\e]0;owned\\a \\u202E pets"
            inputs:
              base_url: { default: "http://127.0.0.1:1" }
              note: { default: "line\\nbreak \\e[2J" }
            openapi:
              pets: { file: pet-coupons.openapi.yaml, base_url: "${{ inputs.base_url }}" }
            steps:
              order:
                request:
                  operation: pets.placeOrder
                  headers: { X-Note: "${{ inputs.note }}" }
                  json:
                    id: 18446744073709551615
                    petId: 99999999999999999999999
                    quantity: 7
                    status: "${{ '${{' }} placed"
                    couponCode: "${{ inputs.note }}"
            """, name: "hostile.yaml")
        let result = try await CommandRunner.run(["export", "arazzo", plan.path], within: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        let text = result.stdout
        #expect(!text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{7}" || $0 == "\u{202E}" }, "\(text)")
        #expect(text.contains(#"title: "order \x1B]0;owned\x07 \u202E pets""#), "\(text)")
        #expect(text.contains(#"default: "line\nbreak \x1B[2J""#), "\(text)")
        #expect(text.contains("id: 18446744073709551615") && text.contains("petId: 99999999999999999999999"), "\(text)")
        // `${{` written as text in the plan is text in the document: no runtime expression.
        #expect(text.contains(#"status: "${{ placed""#), "\(text)")
    }

    @Test func criteriaBodiesAndTemplatesTakeTheFormsArazzoHasAndReadBackInReqplan() async throws {
        let plan = try Self.planBesideTheDescription(
            """
            reqplan: 1
            inputs:
              base_url: { default: "http://127.0.0.1:1" }
              token: { secret: true }
              pet: { type: number, default: 7 }
            openapi:
              pets: { file: pet-coupons.openapi.yaml, base_url: "${{ inputs.base_url }}" }
            defaults:
              headers: { X-Trace: "run-${{ inputs.pet }}" }
            steps:
              rename:
                request:
                  operation: pets.updatePetWithForm
                  path: { petId: "${{ inputs.pet }}" }
                  headers: { X-Token: "Bearer ${{ inputs.token }}" }
                expect:
                  status: [200, 4xx]
                  headers: { content-type: { matches: "^application/json" }, x-kind: { equals: "a.b" } }
              fetch:
                request: { operation: pets.getPetById, path: { petId: "${{ inputs.pet }}" } }
                expect: { status: 200, body: { name: { matches: "^(doggie|cat)" } } }
              missing:
                request: { operation: pets.getPetById, path: { petId: "${{ steps.fetch.body.id }}" } }
                expect: { status: 4xx }
            outputs:
              status: ${{ steps.missing.status }}
              kind: ${{ steps.rename.headers.x-kind }}
            """, name: "criteria.yaml")
        let document = plan.deletingLastPathComponent().appendingPathComponent("criteria.arazzo.yaml")
        let result = try await CommandRunner.run(
            ["export", "arazzo", plan.path, "-o", document.path], within: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOf: document, encoding: .utf8)
        for expected in [
            #"- condition: "$statusCode == 200 || ($statusCode >= 400 && $statusCode < 500)""#,
            #"- condition: "$statusCode >= 400 && $statusCode < 500""#,
            #"- context: "$response.header.content-type""#, #"condition: "^application/json""#,
            #"condition: "^a\\.b$""#, #"- context: "$response.body#/name""#,
            #"value: "Bearer {$inputs.token}""#, #"value: "run-{$inputs.pet}""#,
            #"x-kind: "$response.header.x-kind""#, #"status: "$steps.missing.outputs.status""#,
            #"kind: "$steps.rename.outputs.x-kind""#,
            "format: password",
        ] {
            #expect(text.contains(expected), "\(expected) not in:\n\(text)")
        }
        let validate = try await CommandRunner.run(["validate", document.path], within: .seconds(60))
        #expect(validate.status == 0 && !validate.stdout.contains("error["), "\(validate.stdout)")
    }

    @Test func aPlanWithErrorsOrAnOutputThatIsThePlanWritesNothing() async throws {
        let plan = try Self.planBesideTheDescription(
            """
            reqplan: 1
            openapi:
              pets: { file: pet-coupons.openapi.yaml, base_url: "http://127.0.0.1:1" }
            steps:
              a:
                request: { operation: pets.noSuchOperation }
            """, name: "broken.yaml")
        let document = plan.deletingLastPathComponent().appendingPathComponent("broken.arazzo.yaml")
        let broken = try await CommandRunner.run(
            ["export", "arazzo", plan.path, "-o", document.path], within: .seconds(60))
        #expect(broken.status == 1 && broken.stderr.contains("error[RP0802]"), "\(broken.stderr)")
        #expect(!FileManager.default.fileExists(atPath: document.path))
        let before = try String(contentsOf: plan, encoding: .utf8)
        let clash = try await CommandRunner.run(["export", "arazzo", plan.path, "-o", plan.path], within: .seconds(60))
        #expect(clash.status == 64, "\(clash.stderr)")
        #expect(try String(contentsOf: plan, encoding: .utf8) == before)
        let format = try await CommandRunner.run(["export", "postman", plan.path], within: .seconds(60))
        #expect(format.status == 64 && format.stderr.contains("one of: arazzo"), "\(format.stderr)")
    }

    @Test func aDeepPayloadAndTwoDescriptionsAreWrittenWithoutRecursionAndQualified() async throws {
        let depth = 400
        let deep = String(repeating: "{ \"a\": ", count: depth) + "1" + String(repeating: " }", count: depth)
        let plan = try Self.planBesideTheDescription(
            """
            reqplan: 1
            openapi:
              store: { file: pet-coupons.openapi.yaml, base_url: "http://127.0.0.1:1" }
              pets: { file: pet-coupons.openapi.yaml, base_url: "http://127.0.0.1:1" }
            steps:
              order:
                request: { operation: store.placeOrder, json: { quantity: 1, extra: \(deep) } }
              pet:
                request: { operation: pets.getPetById, path: { petId: "${{ steps.order.body.petId }}" } }
            """, name: "deep.yaml")
        let document = plan.deletingLastPathComponent().appendingPathComponent("deep.arazzo.yaml")
        let result = try await CommandRunner.run(
            ["export", "arazzo", plan.path, "-o", document.path], within: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOf: document, encoding: .utf8)
        #expect(text.contains("operationId: \"$sourceDescriptions.store.placeOrder\""), "\(text)")
        #expect(text.contains("operationId: \"$sourceDescriptions.pets.getPetById\""), "\(text)")
        #expect(text.contains(String(repeating: " ", count: 2 * depth) + "a: 1"), "\(text.suffix(3000))")
        let validate = try await CommandRunner.run(["validate", document.path], within: .seconds(60))
        #expect(validate.status == 0 && !validate.stdout.contains("error["), "\(validate.stdout)")
    }

    @Test func aPlanOfTenThousandStepsExportsInLinearTime() async throws {
        var text = """
            reqplan: 1
            inputs:
              base_url: { default: "http://127.0.0.1:1" }
            openapi:
              pets: { file: pet-coupons.openapi.yaml, base_url: "${{ inputs.base_url }}" }
            steps:
              s0:
                request: { operation: pets.placeOrder, json: { quantity: 1 } }

            """
        for index in 1..<10_000 {
            text +=
                "  s\(index):\n    request: { operation: pets.getOrderById, path: { orderId: \"${{ steps.s\(index - 1).status }}\" } }\n"
        }
        let plan = try Self.planBesideTheDescription(text, name: "large.yaml")
        let started = ContinuousClock.now
        let result = try await CommandRunner.run(["export", "arazzo", plan.path], within: .seconds(120))
        #expect(result.status == 0, "\(result.stderr.prefix(2000))")
        #expect(result.stdout.components(separatedBy: "- stepId: ").count == 10_001)
        #expect(result.stdout.contains("value: \"$steps.s9998.outputs.status\""))
        #expect(ContinuousClock.now - started < .seconds(60))
    }
}
