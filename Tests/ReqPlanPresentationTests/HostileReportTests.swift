import Foundation
import ReqPlanSyntax
import Testing

@testable import ReqPlanPresentation

/// `report merge` reads reports written elsewhere, maybe edited by hand: every number is range-checked, the
/// graph is walked without recursion, and what does not fit is refused naming the file and the field, never a
/// crash (issue 37, HOSTILE.md).
@Suite("Hostile reports to merge")
struct HostileReportTests {
    /// One step of a path in a JSON document.
    enum Step: Hashable {
        case key(String)
        case index(Int)
    }

    /// The path as the reader names fields: `plans[0].steps[3].duration_ms`.
    static func text(_ path: [Step]) -> String {
        var text = ""
        for step in path {
            switch step {
            case .key(let key): text += (text.isEmpty ? "" : ".") + key
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    /// The path with its indices left out (`plans[].steps[].duration_ms`), to tell fields apart.
    static func field(_ path: [Step]) -> String {
        text(path.map { if case .index = $0 { .index(0) } else { $0 } }).replacingOccurrences(of: "[0]", with: "[]")
    }

    /// Every number and every `null` of `value` (a field a number may be written in), with its path.
    static func numberPlaces(in value: Value, at path: [Step] = []) -> [[Step]] {
        switch value {
        case .int, .double, .null: return [path]
        case .list(let items):
            return items.enumerated().flatMap { numberPlaces(in: $0.element, at: path + [.index($0.offset)]) }
        case .object(let fields):
            return fields.flatMap { numberPlaces(in: $0.value, at: path + [.key($0.key)]) }
        default: return []
        }
    }

    /// `value` with the value at `path` replaced.
    static func replacing(_ path: ArraySlice<Step>, in value: Value, with new: Value) -> Value {
        guard let first = path.first else { return new }
        switch (first, value) {
        case (.key(let key), .object(var fields)):
            guard let at = fields.firstIndex(where: { $0.key == key }) else { return value }
            fields[at].value = replacing(path.dropFirst(), in: fields[at].value, with: new)
            return .object(fields)
        case (.index(let index), .list(var items)):
            items[index] = replacing(path.dropFirst(), in: items[index], with: new)
            return .list(items)
        default: return value
        }
    }

    /// The report's text with `literal` (JSON text, as written: `1e400` is beyond a double) at `path`.
    static func text(of report: Value, with literal: String, at path: [Step]) -> String {
        let marker = "@@hostile@@"
        return replacing(path[...], in: report, with: .string(marker)).jsonText(pretty: true)
            .replacingOccurrences(of: "\"\(marker)\"", with: literal)
    }

    /// Numbers no field of a report takes: too large for any time, count, index or code, beyond `Int` or a
    /// double, or not numbers.
    static let outOfRange = [
        "9223372036854775807", "-9223372036854775807", "-9223372036854775808", "1e300", "-1e300", "1e400", "-1e400",
        "18446744073709551615", "99999999999999999999999", "\"NaN\"",
    ]
    /// Numbers some fields take and some do not.
    static let edges = ["-0", "-0.0", "1e-400", "0.5", "4e9", "-1"]

    /// The numeric fields the reader takes (the others, the sums of a suite report, are computed again).
    static let readFields: Set<String> = {
        var fields: Set<String> = [
            "shard.index", "shard.count", "shard.files", "plans[].duration_ms", "plans[].exit_code",
            "plans[].graph.nodes[].wave",
        ]
        for state in ["succeeded", "failed", "skipped", "cancelled"] { fields.insert("plans[].counts.\(state)") }
        var steps = ["plans[].steps[]"]
        for _ in 0..<3 { steps.append(steps[steps.count - 1] + ".children[]") }
        for step in steps {
            for name in [
                "item", "status", "response_size", "attempts[].number", "attempts[].poll", "attempts[].start_ms",
                "attempts[].duration_ms", "attempts[].status", "attempts[].retry_delay_ms", "timings.ready_ms",
                "timings.start_ms", "timings.end_ms",
            ] {
                fields.insert("\(step).\(name)")
            }
        }
        return fields
    }()

    /// A shard report of one suite of one plan: the mixed scenario (retries, items, members, skips).
    static func shardReport() async throws -> Value {
        let run = try await Scenario.mixed.run().normalised
        let text = SuiteReportTests.report([run], shard: .init(index: 1, count: 1, files: 1)).jsonText()
        return try Value.parseJSON(text)
    }

    /// Merges the report: a refusal must name the file (and the field, when the reader takes it and the number
    /// is out of every range); a merge must render every kind of report.
    static func check(
        _ text: String, path: [Step], literal: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        let place = Self.text(path)
        switch SuiteReport.merging([("shard-1.json", text)]) {
        case .success(let merged):
            if readFields.contains(field(path)) && outOfRange.contains(literal) {
                Issue.record("`\(place)`: \(literal) was merged", sourceLocation: sourceLocation)
            }
            for kind in [ReportKind.json, .junit, .html] { _ = merged.render(kind) }
            _ = merged.summaryText()
            _ = merged.exitCode
        case .failure(let failure):
            let messages = failure.diagnostics.map(\.message)
            #expect(
                failure.diagnostics.allSatisfy { $0.file == "shard-1.json" }, "\(place) = \(literal): \(messages)",
                sourceLocation: sourceLocation)
            if readFields.contains(field(path)) && outOfRange.contains(literal) {
                #expect(
                    messages.count == 1 && messages[0].hasPrefix("`shard-1.json` cannot be read back: `\(place)` "),
                    "\(place) = \(literal): \(messages)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func everyNumericFieldOutOfRangeIsRefusedNamingTheFileAndTheField() async throws {
        let report = try await Self.shardReport()
        let places = Self.numberPlaces(in: report)
        // The report has every field the reader takes (a member's, an item's, an attempt's, the graph's).
        let fields = Set(places.map(Self.field))
        #expect(Self.readFields.filter { !$0.contains("children[].children[]") }.isSubset(of: fields))
        // Each field once (the first step, member, item or try that has it), else the run takes minutes.
        var tried: Set<String> = []
        for path in places where tried.insert(Self.field(path)).inserted {
            for literal in Self.outOfRange + Self.edges {
                Self.check(Self.text(of: report, with: literal, at: path), path: path, literal: literal)
            }
        }
    }

    @Test func theMessageSaysWhatRangeIsAllowed() async throws {
        let report = try await Self.shardReport()
        func message(_ literal: String, at path: [Step]) -> String {
            switch SuiteReport.merging([("shard-1.json", Self.text(of: report, with: literal, at: path))]) {
            case .success: return "merged"
            case .failure(let failure): return failure.diagnostics.map(\.message).joined(separator: "\n")
            }
        }
        let plan: [Step] = [.key("plans"), .index(0)]
        let attempt = plan + [.key("steps"), .index(0), .key("attempts"), .index(0)]
        #expect(
            message("1e300", at: plan + [.key("duration_ms")])
                == "`shard-1.json` cannot be read back: `plans[0].duration_ms` is 1e+300, not a number of "
                + "milliseconds from 0 to 1000000000000")
        #expect(
            message("9e15", at: attempt + [.key("start_ms")])
                == "`shard-1.json` cannot be read back: `plans[0].steps[0].attempts[0].start_ms` is 9000000000000000, "
                + "not a number of milliseconds from 0 to 1000000000000")
        #expect(
            message("1e400", at: attempt + [.key("duration_ms")])
                == "`shard-1.json` cannot be read back: `plans[0].steps[0].attempts[0].duration_ms` is a number "
                + "too large to read, not a number of milliseconds from 0 to 1000000000000")
        #expect(
            message("9223372036854775807", at: plan + [.key("exit_code")])
                == "`shard-1.json` cannot be read back: `plans[0].exit_code` is 9223372036854775807, not an exit "
                + "code from 0 to 255")
        #expect(
            message("9223372036854775807", at: plan + [.key("graph"), .key("nodes"), .index(0), .key("wave")])
                .hasPrefix(
                    "`shard-1.json` cannot be read back: `plans[0].graph.nodes[0].wave` is 9223372036854775807, "
                        + "not a wave from 0 to "))
        #expect(
            message("4000000000", at: [.key("shard"), .key("count")])
                == "`shard-1.json` cannot be read back: `shard.count` is 4000000000, not a number of shards from 1 to "
                + "10000")
        #expect(
            message("18446744073709551615", at: plan + [.key("counts"), .key("failed")])
                == "`shard-1.json` cannot be read back: `plans[0].counts.failed` is 18446744073709551615, not a "
                + "whole number from 0 to 1000000000")
    }

    /// A plan report whose graph is a chain of `depth` collections, each the parent of the next and waiting
    /// for the one above it, around one request.
    static func chainReport(depth: Int) -> String {
        var nodes: [Value] = []
        for index in 0..<depth {
            nodes.append(
                .object([
                    .init("id", .string("s\(index)")), .init("kind", .string(index == depth - 1 ? "request" : "group")),
                    .init("parent", index == 0 ? .null : .string("s\(index - 1)")),
                    .init("wave", index == depth - 1 ? .int(0) : .null), .init("loop", .bool(false)),
                    .init(
                        "needs",
                        .list(
                            index == 0
                                ? []
                                : [.object([.init("step", .string("s\(index - 1)")), .init("data", .bool(false))])]
                        )),
                    .init("detail", .string("")),
                ]))
        }
        let report: Value = .object([
            .init("format", .string("reqplan-run/1")),
            .init("plan", .object([.init("name", .null), .init("file", .string("plans/deep.yaml"))])),
            .init("inputs", .object([])), .init("started_at", .string("2026-01-01T00:00:00.000Z")),
            .init("duration_ms", .int(5)), .init("exit_code", .int(0)), .init("interrupted", .bool(false)),
            .init("timed_out", .bool(false)),
            .init(
                "counts",
                .object(["succeeded", "failed", "skipped", "cancelled"].map { .init($0, .int(0)) })),
            .init("outputs", .object([])), .init("output_errors", .list([])), .init("steps", .list([])),
            .init(
                "graph",
                .object([.init("nodes", .list(nodes)), .init("critical_path", .list([.string("s\(depth - 1)")]))])),
        ])
        return report.jsonText()
    }

    @Test func aGraphNested50000DeepIsMergedAndDrawn() throws {
        let merged = try SuiteReport.merging([("deep.json", Self.chainReport(depth: 50_000))]).get()
        let page = try #require(merged.render(.html))
        #expect(page.components(separatedBy: "class=\"frame kind-group").count == 50_000)
        #expect(merged.summaryText().hasPrefix("✓ plans/deep.yaml"))
    }

    @Test func aHugeShardCountIsRefusedAndMissingShardsAreCountedNotListed() async throws {
        let report = try await Self.shardReport()
        for (literal, expected) in [
            ("4000000000", "`shard.count` is 4000000000, not a number of shards from 1 to 10000"),
            ("4e9", "`shard.count` is 4000000000, not a number of shards from 1 to 10000"),
            ("-9223372036854775808", "`shard.count` is -9223372036854775808, not a number of shards from 1 to 10000"),
        ] {
            let text = Self.text(of: report, with: literal, at: [.key("shard"), .key("count")])
            guard case .failure(let failure) = SuiteReport.merging([("shard-1.json", text)]) else {
                Issue.record("a shard count of \(literal) was merged")
                continue
            }
            #expect(failure.diagnostics.map(\.message) == ["`shard-1.json` cannot be read back: " + expected])
        }
        // The most shards a suite has: 9,999 missing are counted, a few named.
        let most = Self.text(of: report, with: "10000", at: [.key("shard"), .key("count")])
        guard case .failure(let failure) = SuiteReport.merging([("shard-1.json", most)]) else {
            Issue.record("9,999 missing shards were not missed")
            return
        }
        let message = failure.diagnostics.map(\.message).joined()
        #expect(
            message.hasPrefix("shards 2/10000, 3/10000, 4/10000, 5/10000, 6/10000 and 9994 more are missing"),
            "\(message)")
        #expect(message.count < 400, "\(message)")
    }

    @Test(arguments: [
        "0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z", "+99999-01-01T00:00:00Z",
        "-0001-01-01T00:00:00.000Z",
    ])
    func aStartAtEitherEndOfTimeIsMergedOrRefusedNamingIt(startedAt: String) async throws {
        let plan = try #require(
            try await Self.shardReport()["plans"].flatMap { if case .list(let plans) = $0 { plans.first } else { nil } }
        )
        let text = Self.text(of: plan, with: "\"\(startedAt)\"", at: [.key("started_at")])
        // Beside a plan that started in 2026: the suite's time runs from the earlier start to the later end.
        switch SuiteReport.merging([("a.json", text), ("b.json", Self.chainReport(depth: 2))]) {
        case .success(let merged):
            _ = merged.render(.json)
            _ = merged.summaryText()
        case .failure(let failure):
            #expect(
                failure.diagnostics.map(\.message) == [
                    "`a.json` cannot be read back: `started_at` is `\(startedAt)`, not an ISO 8601 time from "
                        + "0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z"
                ])
        }
    }
}
