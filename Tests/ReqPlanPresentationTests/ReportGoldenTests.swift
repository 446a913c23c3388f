import Foundation
import ReqPlanPresentation
import ReqPlanRuntime
import ReqPlanSyntax
import Testing

/// Each scenario's three reports, with times normalised, against `Golden/<scenario>.{json,junit.xml,trace.json}`.
/// Run with `RECORD_GOLDEN=1` to rewrite the golden files from the current output (the recording run fails).
@Suite("Run reports against golden files")
struct ReportGoldenTests {
    @Test("golden reports", arguments: Scenario.all)
    func goldenReports(_ scenario: Scenario) async throws {
        let run = try await scenario.run()
        #expect(run.result.exitCode == scenario.expectedExitCode, "\(run.result.summaryText(graph: run.graph))")
        let report = run.normalised.report
        try ReportGolden.check(report.jsonText(), against: "\(scenario.name).json")
        try ReportGolden.check(report.junitXML(), against: "\(scenario.name).junit.xml")
        try ReportGolden.check(report.traceJSON(), against: "\(scenario.name).trace.json")
    }

    @Test func everyGoldenFileBelongsToAScenario() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: ReportGolden.directory.path)
        let expected = Set(
            Scenario.all.flatMap { ["\($0.name).json", "\($0.name).junit.xml", "\($0.name).trace.json"] })
        for file in files { #expect(expected.contains(file), "\(file) is not produced by any scenario") }
    }
}

@Suite("The JSON report")
struct JSONReportTests {
    @Test func describesTheRunAndEveryStepInDocumentOrder() async throws {
        let run = try await Scenario.mixed.run()
        let report = run.report
        let json = try Value.parseJSON(report.jsonText())
        #expect(json["format"] == .string("reqplan-run/1"))
        #expect(json["plan"]?["name"] == .string("report-mixed"))
        #expect(json["plan"]?["file"] == .string("plans/mixed.yaml"))
        #expect(json["inputs"] == .object([.init("token", .string("***")), .init("region", .string("eu"))]))
        #expect(json["exit_code"] == .int(1))
        #expect(json["interrupted"] == .bool(false))
        #expect(json["timed_out"] == .bool(false))
        guard case .string(let started) = json["started_at"] else {
            Issue.record("started_at is not a string")
            return
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try #require(formatter.date(from: started))
        #expect(abs(date.timeIntervalSince(run.result.startedAt)) < 0.002)

        // Every step once, in document order, each naming its parent; ids are unique.
        var ids: [String] = []
        var parents: [String: String?] = [:]
        func visit(_ value: Value, parent: String?) {
            guard case .string(let id) = value["id"] else { return }
            ids.append(id)
            if case .string(let named) = value["parent"] { parents[id] = named } else { parents[id] = .some(nil) }
            #expect(parents[id] == .some(parent), "\(id)")
            if case .list(let children) = value["children"] { children.forEach { visit($0, parent: id) } }
        }
        if case .list(let steps) = json["steps"] { steps.forEach { visit($0, parent: nil) } }
        #expect(
            ids == [
                "login", "bootstrap", "config", "flaky", "broken", "after_bootstrap", "optional",
                "uploads", "uploads[0]", "uploads[1]", "uploads[2]",
                "checkout", "checkout[0]", "add[0]", "pay[0]", "checkout[1]", "add[1]", "pay[1]",
                "steps_in_order", "first", "second",
            ])
        #expect(Set(ids).count == ids.count)
    }

    @Test func timingsAndAttemptsAreConsistent() async throws {
        let run = try await Scenario.mixed.run()
        let json = try Value.parseJSON(run.report.jsonText())
        func number(_ value: Value?) -> Double? { value?.doubleValue }
        func visit(_ step: Value) {
            let timings = step["timings"]
            if let ready = number(timings?["ready_ms"]), let start = number(timings?["start_ms"]) {
                let wait = number(timings?["queue_wait_ms"]) ?? -1
                #expect(abs(wait - (start - ready)) < 0.0015, "\(step["id"] ?? .null)")
            }
            if let start = number(timings?["start_ms"]), let end = number(timings?["end_ms"]) {
                let duration = number(timings?["duration_ms"]) ?? -1
                #expect(abs(duration - (end - start)) < 0.0015, "\(step["id"] ?? .null)")
                #expect(end >= start)
            }
            if case .list(let children) = step["children"] { children.forEach(visit) }
        }
        if case .list(let steps) = json["steps"] { steps.forEach(visit) }

        let flaky = try #require(run.report.allSteps.first { $0.id == "flaky" })
        #expect(flaky.result.attempts.map(\.status) == [503, 200])
        let steps = try #require(json["steps"])
        guard case .list(let roots) = steps, case .list(let members) = roots[1]["children"] else {
            Issue.record("no bootstrap members")
            return
        }
        let attempts = members[1]["attempts"]
        guard case .list(let list) = attempts else {
            Issue.record("no attempts")
            return
        }
        #expect(list.count == 2)
        #expect(list.first?["status"] == .int(503))
        #expect(list.first?["retry_delay_ms"]?.doubleValue != nil)
        #expect(list.last?["retry_delay_ms"] == .null)
        #expect(members[2]["reason"]?["kind"] == .string("expectation"))
        #expect(roots[2]["reason"]?["kind"] == .string("dependency"))
        #expect(roots[3]["reason"]?["kind"] == .string("condition"))
    }
}

@Suite("The --report option")
struct ReportDestinationTests {
    @Test func parsesKindAndPath() throws {
        #expect(
            try ReportDestination(parsing: "json:out/run.json") == ReportDestination(kind: .json, path: "out/run.json"))
        #expect(try ReportDestination(parsing: "junit:C:/reports/a.xml").path == "C:/reports/a.xml")
        #expect(try ReportDestination(parsing: "TRACE:t.json").kind == .trace)
    }

    @Test(arguments: ["json", "xml:out.xml", "junit:", "junit:  ", ":out.json"])
    func rejectsMalformedValues(_ text: String) {
        #expect(throws: ReportDestination.ParseError.self) { try ReportDestination(parsing: text) }
    }

    @Test func unknownKindsNameTheKnownOnes() {
        do {
            _ = try ReportDestination(parsing: "pdf:report.pdf")
            Issue.record("pdf was accepted")
        } catch {
            #expect(error.message.contains("unknown report kind `pdf`"))
            #expect(error.message.contains("`json:PATH`, `junit:PATH`, `trace:PATH`, `har:PATH`, `html:PATH`"))
        }
    }

    @Test func writesCreateMissingFolders() async throws {
        let run = try await Scenario.planTimeout.run()
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for kind in ReportKind.allCases {
            let path = folder.appendingPathComponent("nested/\(kind.rawValue)/report").path
            try run.report.write(to: ReportDestination(kind: kind, path: path))
            let written = try String(contentsOfFile: path, encoding: .utf8)
            #expect(written == run.report.render(kind))
        }
    }
}
