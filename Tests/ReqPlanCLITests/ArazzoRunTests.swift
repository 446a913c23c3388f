import Foundation
import ReqPlanTestSupport
import Testing

/// `reqplan run` on Arazzo documents, end to end: the built binary runs a workflow of the OpenAPI
/// Initiative's examples against connexion's mock of its OpenAPI description (PyPI, `--mock=all`).
@Suite("Running Arazzo workflows", .timeSensitive)
struct ArazzoRunTests {
    /// `Tests/Fixtures/arazzo/run/pet-coupons.arazzo.yaml`: the pet-coupons example, corrected.
    static let petCoupons = CommandRunner.packageRoot.appendingPathComponent(
        "Tests/Fixtures/arazzo/run/pet-coupons.arazzo.yaml")
    static let petCouponsDescription = CommandRunner.packageRoot.appendingPathComponent(
        "Tests/Fixtures/arazzo/examples/pet-coupons.openapi.yaml")

    @Test(
        "a workflow with a sub-workflow runs against connexion's mock, its outputs carried from step to step",
        ExternalServers.needed(.connexion))
    func petCouponsRunsAgainstConnexion() async throws {
        let mock = try await ConnexionMock.start(serving: Self.petCouponsDescription)
        defer { mock.stop() }
        let arguments = [
            "run", Self.petCoupons.path, "--workflow", "apply-coupon", "--server", "pet-coupons=\(mock.url)",
            "--input", "my_pet_tags=dog", "--output", "json", "--progress", "none",
        ]
        // connexion's mock fills a property without an example with null, which the description does not
        // allow: the response check reports it, located at the step.
        let checked = try await CommandRunner.run(arguments, environment: ["no_proxy": "*"], within: .seconds(60))
        #expect(checked.status == 1, "\(checked.stderr)")
        #expect(
            checked.stderr.contains("at `/0/photoUrls/0`: expected a string, found null")
                && checked.stderr.contains("pet-coupons.arazzo.yaml:26:17"), "\(checked.stderr)")
        let junit = FileManager.default.temporaryDirectory.appendingPathComponent("arazzo-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: junit) }
        let result = try await CommandRunner.run(
            arguments + ["--no-response-schema-check", "--report", "junit:\(junit.path)"],
            environment: ["no_proxy": "*"],
            within: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        // JUnit: a test suite per workflow (the one run, then the one its step runs), a test case per step.
        let xml = try String(contentsOf: junit, encoding: .utf8)
        let suites = xml.matches(of: #/<testsuite name="([^"]+)"/#).map { String($0.1) }
        let cases = xml.matches(of: #/<testcase name="([^"]+)"/#).map { String($0.1) }
        #expect(suites == ["apply-coupon", "apply-coupon/place-order"], "\(xml)")
        #expect(cases == ["find-pet", "find-coupons", "place-order/place-order"], "\(xml)")
        let outputs = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        // The mock answers with the description's examples: the order's id is the Order schema's example.
        #expect(outputs["apply_coupon_pet_order_id"] as? Int == 10, "\(result.stdout)")
        let log = mock.process.read("connexion.console.log")
        for request in ["GET /pet/findByTags?tags=dog", "GET /pet/10/coupons", "POST /store/order"] {
            #expect(log.contains("\"\(request) HTTP/1.1\" 200"), "\(request) not in the mock's log: \(log)")
        }
    }

    @Test(
        "goto and end move control: the steps skipped send nothing, and the run still succeeds; a workflow of another document runs as a sub-plan",
        ExternalServers.needed(.connexion))
    func gotoAndEndSkipSteps() async throws {
        let mock = try await ConnexionMock.start(serving: Self.petCouponsDescription)
        defer { mock.stop() }
        let document = CommandRunner.packageRoot.appendingPathComponent("Tests/Fixtures/arazzo/run/goto.arazzo.yaml")
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("goto-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: report) }
        let result = try await CommandRunner.run(
            [
                "run", document.path, "--server", "petstore=\(mock.url)", "--input", "tags=dog", "--output", "json",
                "--progress", "none", "--no-response-schema-check", "--report", "json:\(report.path)",
            ], environment: ["no_proxy": "*"], within: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        let outputs = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        #expect(outputs["order_id"] as? Int == 10, "\(result.stdout)")
        #expect(outputs["coupon"] is NSNull, "\(result.stdout)")
        #expect(outputs["order_url"] as? String == "\(mock.url)/store/order", "\(result.stdout)")
        #expect(outputs["pet_name"] as? String == "doggie", "\(result.stdout)")
        #expect(outputs["first_pet_name"] as? String == "doggie", "\(result.stdout)")
        // `find-pet` found pet 10 and went to `place-order`; the order came back `approved`, which ends it.
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let steps = try #require(json["steps"] as? [[String: Any]], "\(json)")
        let states = Dictionary(
            uniqueKeysWithValues: steps.compactMap { step in
                (step["id"] as? String).map { ($0, step["state"] as? String ?? "") }
            })
        #expect(
            states == [
                "find-pet": "succeeded", "find-coupons": "skipped", "place-order": "succeeded",
                "check-order": "skipped",
            ], "\(steps)")
        let log = mock.process.read("connexion.console.log")
        #expect(log.contains("\"GET /pet/findByTags?tags=dog HTTP/1.1\" 200"), "\(log)")
        #expect(log.contains("\"POST /store/order HTTP/1.1\" 200"), "\(log)")
        #expect(!log.contains("/coupons") && !log.contains("GET /store/order/"), "\(log)")

        // `type: arazzo`: `order` runs pet-coupons.arazzo.yaml's `place-order`, the server given by the name
        // that document gives its description.
        let external = CommandRunner.packageRoot.appendingPathComponent(
            "Tests/Fixtures/arazzo/run/external.arazzo.yaml")
        let ordered = try await CommandRunner.run(
            [
                "run", external.path, "--server", "pet-coupons=\(mock.url)", "--output", "json", "--progress", "none",
                "--no-response-schema-check",
            ], environment: ["no_proxy": "*"], within: .seconds(60))
        #expect(ordered.status == 0, "\(ordered.stderr)")
        #expect(ordered.stdout.contains("\"order_id\": 10"), "\(ordered.stdout)")
        let after = mock.process.read("connexion.console.log")
        #expect(after.contains("\"GET /pet/10 HTTP/1.1\" 200"), "\(after)")
        #expect(after.components(separatedBy: "\"POST /store/order HTTP/1.1\" 200").count == 3, "\(after)")

        // `dependsOn: [$sourceDescriptions.orders.place-order]`: that workflow of the other document runs first,
        // with the inputs it declares, then the one that depends on it.
        let dependent = CommandRunner.packageRoot.appendingPathComponent(
            "Tests/Fixtures/arazzo/run/depends-on-external.arazzo.yaml")
        let depended = try await CommandRunner.run(
            [
                "run", dependent.path, "--server", "pet-coupons=\(mock.url)", "--input", "pet_id=10", "--input",
                "quantity=1", "--input", "coupon_code=SUMMERSALE", "--output", "json", "--progress", "none",
                "--no-response-schema-check",
            ], environment: ["no_proxy": "*"], within: .seconds(60))
        #expect(depended.status == 0, "\(depended.stderr)")
        let last = String(mock.process.read("connexion.console.log").dropFirst(after.count))
        let order = last.range(of: "\"POST /store/order HTTP/1.1\" 200")
        let pet = last.range(of: "\"GET /pet/10 HTTP/1.1\" 200")
        #expect(order != nil && pet != nil && order!.lowerBound < pet!.lowerBound, "\(last)")
        #expect(last.components(separatedBy: "\" 200").count - 1 == 2, "exactly the two requests: \(last)")
    }

    @Test(
        "what published documents use runs: a querystring parameter, a replacement into a payload given at run time, a workflow step judged by its criteria",
        ExternalServers.needed(.connexion))
    func publishedConstructsRun() async throws {
        let document = CommandRunner.packageRoot.appendingPathComponent(
            "Tests/Fixtures/arazzo/run/published.arazzo.yaml")
        let mock = try await ConnexionMock.start(serving: Self.petCouponsDescription)
        defer { mock.stop() }
        let har = FileManager.default.temporaryDirectory.appendingPathComponent("published-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: har) }
        func run(expecting id: Int) async throws -> CommandRunner.Output {
            try await CommandRunner.run(
                [
                    "run", document.path, "--workflow", "order-from-a-template", "--server", "pet-coupons=\(mock.url)",
                    "--input", #"order={"petId": 10, "quantity": 1, "status": "placed"}"#, "--input",
                    "expected_id=\(id)", "--output", "json", "--progress", "none", "--no-response-schema-check",
                    "--report", "har:\(har.path)",
                ], environment: ["no_proxy": "*"], within: .seconds(60))
        }
        let passed = try await run(expecting: 10)
        #expect(passed.status == 0, "\(passed.stderr)")
        #expect(passed.stdout.contains("\"order_id\": 10"), "\(passed.stdout)")
        let log = mock.process.read("connexion.console.log")
        // `in: querystring`: the whole query string as written.
        #expect(log.contains("\"GET /pet/findByTags?tags=cat HTTP/1.1\" 200"), "\(log)")
        #expect(log.components(separatedBy: "\"POST /store/order HTTP/1.1\" 200").count - 1 == 2, "\(log)")
        // The replacement set `/quantity` in the payload the input gave, at run time.
        let entries = try #require(
            ((try JSONSerialization.jsonObject(with: Data(contentsOf: har)) as? [String: Any])?["log"]
                as? [String: Any])?["entries"] as? [[String: Any]])
        let posted = entries.compactMap { entry -> String? in
            guard let request = entry["request"] as? [String: Any], request["method"] as? String == "POST" else {
                return nil
            }
            return (request["postData"] as? [String: Any])?["text"] as? String
        }
        #expect(posted.count == 2, "\(entries)")
        let first = try #require(
            posted.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(first["quantity"] as? Int == 2 && first["petId"] as? Int == 10, "\(posted)")
        // The workflow step's criterion reads the workflow's output: another id fails the step, naming it.
        let failed = try await run(expecting: 11)
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(failed.stderr.contains("placed"), "\(failed.stderr)")
    }

    @Test(
        "a document in other runners' shorthands validates with a warning at each, and runs as the specification's forms",
        ExternalServers.needed(.connexion))
    func otherRunnersShorthandsRun() async throws {
        let document = CommandRunner.packageRoot.appendingPathComponent(
            "Tests/Fixtures/arazzo/run/other-runners.arazzo.yaml")
        let validated = try CommandRunner.run(["validate", document.path])
        #expect(validated.status == 0, "\(validated.stdout)")
        #expect(validated.stdout.components(separatedBy: "warning[RP1014]").count - 1 == 4, "\(validated.stdout)")
        #expect(!validated.stdout.contains("error["), "\(validated.stdout)")
        let mock = try await ConnexionMock.start(serving: Self.petCouponsDescription)
        defer { mock.stop() }
        let result = try await CommandRunner.run(
            [
                "run", document.path, "--server", "pet-coupons=\(mock.url)", "--input", "tags=dog", "--output", "json",
                "--progress", "none", "--no-response-schema-check",
            ], environment: ["no_proxy": "*"], within: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"order_id\": 10"), "\(result.stdout)")
        let log = mock.process.read("connexion.console.log")
        for request in ["GET /pet/findByTags?tags=dog", "GET /pet/10/coupons", "GET /pet/10", "POST /store/order"] {
            #expect(log.contains("\"\(request) HTTP/1.1\" 200"), "\(request) not in the mock's log: \(log)")
        }
    }

    @Test(
        "a success criterion that does not hold fails the step, naming it and the value seen; a retry action sends it again",
        ExternalServers.needed(.connexion))
    func failedCriterionIsNamed() async throws {
        let mock = try await ConnexionMock.start(serving: Self.petCouponsDescription)
        defer { mock.stop() }
        let folder = try ExternalServers.makeTemporaryFolder("arazzo")
        let document = try String(contentsOf: Self.petCoupons, encoding: .utf8)
            .replacingOccurrences(
                of: "url: ../examples/pet-coupons.openapi.yaml", with: "url: \(Self.petCouponsDescription.path)"
            )
            .replacingOccurrences(
                of: "outputs:\n          my_coupon_code",
                with:
                    "  - condition: $response.body#/couponCode == 'WINTERSALE'\n        outputs:\n          my_coupon_code"
            )
        let file = folder.appendingPathComponent("pet-coupons.arazzo.yaml")
        try document.write(to: file, atomically: true, encoding: .utf8)
        let arguments = [
            "run", file.path, "--workflow", "apply-coupon", "--server", "pet-coupons=\(mock.url)",
            "--input", "my_pet_tags=dog", "--progress", "none", "--allow-files-outside", "--no-response-schema-check",
        ]
        let result = try await CommandRunner.run(arguments, environment: ["no_proxy": "*"], within: .seconds(60))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains("criterion `$response.body#/couponCode == 'WINTERSALE'` does not hold"),
            "\(result.stderr)")
        #expect(result.stderr.contains("SUMMERSALE"), "\(result.stderr)")

        // With a `retry` action, the request is sent again until the criteria hold or the limit is reached.
        let retrying = document.replacingOccurrences(
            of: "'WINTERSALE'\n        outputs:",
            with: "'WINTERSALE'\n        onFailure:\n          - name: again\n            type: retry\n"
                + "            retryAfter: 0.1\n            retryLimit: 2\n        outputs:")
        #expect(retrying != document)
        try retrying.write(to: file, atomically: true, encoding: .utf8)
        let retried = try await CommandRunner.run(arguments, environment: ["no_proxy": "*"], within: .seconds(60))
        #expect(retried.status == 1, "\(retried.stderr)")
        #expect(retried.stderr.contains("after 3 polls"), "\(retried.stderr)")
        let log = mock.process.read("connexion.console.log")
        // One request for the first run, three for the second.
        #expect(log.components(separatedBy: "\"GET /pet/10/coupons HTTP/1.1\" 200").count - 1 == 4, "\(log)")
    }

    /// Requests a mock's log holds, by request line (`GET /pet/10/coupons`), counted.
    static func requests(in log: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for match in log.matches(of: /"([A-Z]+ [^ ]+) HTTP\/1\.1"/) { counts[String(match.1), default: 0] += 1 }
        return counts
    }

    @Test(
        "control flow runs as a state machine: a loop bounded at 100 visits, a handled failure, a goto to a workflow, end on failure; the mock's log holds exactly the requests each makes",
        ExternalServers.needed(.connexion))
    func controlFlowRunsAsAStateMachine() async throws {
        let document = CommandRunner.packageRoot.appendingPathComponent("Tests/Fixtures/arazzo/run/flow.arazzo.yaml")
        let expected: [(workflow: String, status: Int32, requests: [String: Int], summary: [String])] = [
            (
                "loop", 1, ["GET /pet/findByTags?tags=dog": 100, "GET /pet/10/coupons": 100],
                ["(100 visits)  control came back to step `find-pet` after 100 visits"]
            ),
            (
                "handled", 0,
                ["GET /pet/10/coupons": 1, "GET /pet/findByTags?tags=cat": 1, "POST /store/order": 1],
                ["(handled: goto `fallback` to `fallback`)", "- never-reached", "✓ fallback goto order"]
            ),
            ("end-on-failure", 0, ["GET /pet/10/coupons": 1], ["(handled: end `stop`)", "1 failed (1 handled)"]),
        ]
        for (workflow, status, requests, summary) in expected {
            // A mock of its own for each, so that its log holds that run's requests only.
            let mock = try await ConnexionMock.start(serving: Self.petCouponsDescription)
            defer { mock.stop() }
            let result = try await CommandRunner.run(
                [
                    "run", document.path, "--workflow", workflow, "--server", "petstore=\(mock.url)", "--progress",
                    "none",
                    "--no-response-schema-check",
                ], environment: ["no_proxy": "*"], within: .seconds(120))
            #expect(result.status == status, "\(workflow): \(result.stdout)\(result.stderr)")
            for line in summary { #expect(result.stdout.contains(line), "\(workflow): \(line) in \(result.stdout)") }
            #expect(
                Self.requests(in: mock.process.read("connexion.console.log")) == requests,
                "\(workflow): \(mock.process.read("connexion.console.log"))")
        }
    }
}
