import Foundation
import ReqPlanRuntime
import ReqPlanSyntax

/// Why a JSON report cannot be read back (`reqplan report merge`).
public struct ReportReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the field.
    public var message: String
    /// The message.
    public var description: String { message }

    init(_ message: String) {
        self.message = message
    }
}

extension JUnitPlan {
    /// The JUnit facts of a plan, read back from its JSON report (`reqplan-run/1`): what the report
    /// holds is what the JUnit report says, so a suite's JUnit file written from the JSON reports of its
    /// shards is the JUnit file of the whole suite. The plan's `timeout` is not in the JSON report: a
    /// plan timeout says "the plan timed out" without the limit.
    /// - Parameters:
    ///   - report: the plan's JSON report.
    ///   - prefix: where the report is in the document read, put before the fields errors name (`plans[2].`).
    /// - Throws: `ReportReadError` naming the first field missing, of the wrong type or out of its range.
    init(json report: Value, at prefix: String = "") throws(ReportReadError) {
        let reader = JSONReportReader(prefix: prefix)
        let plan = try reader.object(report["plan"], "plan")
        let file = try reader.string(plan["file"], "plan.file")
        let name: String?
        if case .string(let text)? = plan["name"] { name = text } else { name = nil }
        let startedAt = try reader.time(report["started_at"], "started_at")
        var steps: [ReportStep] = []
        for (position, step) in try reader.list(report["steps"], "steps").enumerated() {
            steps.append(try reader.step(step, at: "steps[\(position)]", parentPath: []))
        }
        self.init(
            label: RunReport.label(name: name, file: file), file: file, startedAt: startedAt,
            exitCode: try reader.int(report["exit_code"], "exit_code", in: JSONReportReader.exitCodes, "an exit code"),
            interrupted: try reader.bool(report["interrupted"], "interrupted"),
            timedOut: try reader.bool(report["timed_out"], "timed_out"), timeout: nil,
            duration: try reader.duration(report["duration_ms"], "duration_ms"),
            inputs: try reader.fields(report["inputs"], "inputs"),
            outputs: try reader.fields(report["outputs"], "outputs"),
            outputErrors: try reader.list(report["output_errors"], "output_errors").enumerated().map {
                (position, value) throws(ReportReadError) in try reader.string(value, "output_errors[\(position)]")
            },
            steps: steps)
    }
}

/// Reads the fields of a JSON report, with errors that name the field by its JSON path (`steps[3].duration_ms`,
/// after `prefix`: `plans[2].` in a suite's report) and, for a number, the range it must be in.
///
/// A report is input like any other: `report merge` reads what other machines wrote, maybe edited by hand. So
/// every number is checked against its range before it is used, and the ranges leave room for what is done with
/// it later (a time in microseconds, an end from a start and a duration, the sums of a suite), so that nothing
/// overflows. Steps nest as deep as JSON does (`Value.parseJSON`: 512 levels, so at most 255 steps deep).
struct JSONReportReader {
    /// Put before every field named: where the report is in the document read.
    var prefix = ""

    /// The longest time a report holds, in milliseconds: 10^12, about 31 years. In microseconds, times and sums
    /// of a few of them stay far from `Int64`'s limit.
    static let maxMilliseconds = 1_000_000_000_000
    /// The largest count or position a report holds (steps, items, tries, polls, files): 10^9.
    static let maxCount = 1_000_000_000
    /// The largest size in bytes: 2^53 - 1, the largest integer every JSON reader keeps exactly.
    static let maxBytes = (1 << 53) - 1
    /// The exit codes of a process.
    static let exitCodes = 0...255
    /// HTTP statuses: three digits.
    static let statuses = 0...999
    /// The times a report's start may be at: years 1 to 9999, as ISO 8601 writes them (so that the time from
    /// the earliest start to the latest end, in microseconds, stays within `Int64`). Read as reports are read:
    /// the calendar of year 1 is Foundation's.
    static let times: ClosedRange<Date> = {
        let first = RunReport.time(from: "0001-01-01T00:00:00.000Z") ?? Date(timeIntervalSince1970: -62_135_596_800)
        let last = RunReport.time(from: "9999-12-31T23:59:59.999Z") ?? Date(timeIntervalSince1970: 253_402_300_799)
        return first...last
    }()
    /// `times`, as errors say it.
    static let timesText = "from 0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z"

    /// A field that does not fit: `` `plans[2].steps[3].duration_ms` is … ``.
    func problem(_ field: String, _ text: String) -> ReportReadError {
        ReportReadError("`\(prefix)\(field)` \(text)")
    }

    func object(_ value: Value?, _ field: String) throws(ReportReadError) -> Value {
        guard case .object? = value, let value else { throw problem(field, "is not an object") }
        return value
    }

    func fields(_ value: Value?, _ field: String) throws(ReportReadError) -> [(name: String, value: Value)] {
        guard case .object(let fields)? = value else { throw problem(field, "is not an object") }
        return fields.map { ($0.key, $0.value) }
    }

    func list(_ value: Value?, _ field: String) throws(ReportReadError) -> [Value] {
        guard case .list(let items)? = value else { throw problem(field, "is not a list") }
        return items
    }

    func string(_ value: Value?, _ field: String) throws(ReportReadError) -> String {
        guard case .string(let text)? = value else { throw problem(field, "is not a string") }
        return text
    }

    func optionalString(_ value: Value?, _ field: String) throws(ReportReadError) -> String? {
        if value == nil || value == .null { return nil }
        return try string(value, field)
    }

    func bool(_ value: Value?, _ field: String) throws(ReportReadError) -> Bool {
        guard case .bool(let flag)? = value else { throw problem(field, "is not a boolean") }
        return flag
    }

    /// A whole number in `range`; `what` says what it is (`an exit code`), for the error.
    func int(_ value: Value?, _ field: String, in range: ClosedRange<Int>, _ what: String) throws(ReportReadError)
        -> Int
    {
        let number: Int?
        switch value {
        case .int(let whole)?: number = whole
        // `-0.0` or `4e9`: a whole number written as a double.
        case .double(let double)? where double.isFinite && double == double.rounded():
            number = Int(exactly: double)
        case .double?, .largeInt?: number = nil
        default: throw problem(field, "is not a whole number")
        }
        guard let number, range.contains(number) else {
            throw problem(
                field, "is \(Self.shown(value)), not \(what) from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// A count or a position: a whole number from `lowest` (0 or 1) to `maxCount`.
    func count(_ value: Value?, _ field: String, from lowest: Int = 0) throws(ReportReadError) -> Int {
        try int(value, field, in: lowest...Self.maxCount, "a whole number")
    }

    func optionalCount(_ value: Value?, _ field: String, from lowest: Int = 0) throws(ReportReadError) -> Int? {
        if value == nil || value == .null { return nil }
        return try count(value, field, from: lowest)
    }

    /// Milliseconds with microsecond precision, as reports write times: from 0 to `maxMilliseconds`.
    func duration(_ value: Value?, _ field: String) throws(ReportReadError) -> Duration {
        guard let milliseconds = value?.doubleValue else { throw problem(field, "is not a number") }
        guard milliseconds.isFinite, milliseconds >= 0, milliseconds <= Double(Self.maxMilliseconds) else {
            throw problem(
                field, "is \(Self.shown(value)), not a number of milliseconds from 0 to \(Self.maxMilliseconds)")
        }
        return .microseconds(Int64((milliseconds * 1000).rounded()))
    }

    func optionalDuration(_ value: Value?, _ field: String) throws(ReportReadError) -> Duration? {
        if value == nil || value == .null { return nil }
        return try duration(value, field)
    }

    /// A time as reports write it (ISO 8601 in UTC), in `times`.
    func time(_ value: Value?, _ field: String) throws(ReportReadError) -> Date {
        let text = try string(value, field)
        guard let time = RunReport.time(from: text), Self.times.contains(time) else {
            throw problem(field, "is `\(text.prefix(64))`, not an ISO 8601 time \(Self.timesText)")
        }
        return time
    }

    /// A number as an error shows it: its digits when it is whole and not too long, else as Swift writes a
    /// double (`1e+300`), or what it is when it is too large to read.
    private static func shown(_ value: Value?) -> String {
        guard case .double(let double)? = value else { return value?.jsonText() ?? "missing" }
        guard double.isFinite else { return "a number too large to read" }
        if double == double.rounded(), abs(double) < 1e18, let whole = Int(exactly: double) { return String(whole) }
        return String(double)
    }

    /// A step of a report, its members and items nested (`itemPath` from its parents; no graph node).
    func step(_ value: Value, at field: String, parentPath: [Int]) throws(ReportReadError) -> ReportStep {
        let id = try string(value["id"], "\(field).id")
        let item = try optionalCount(value["item"], "\(field).item")
        let kindText = try string(value["kind"], "\(field).kind")
        guard let kind = ReportStep.Kind(rawValue: kindText) else {
            throw problem("\(field).kind", "is `\(kindText)`, not a kind of step")
        }
        let stateText = try string(value["state"], "\(field).state")
        guard let state = StepState(rawValue: stateText) else {
            throw problem("\(field).state", "is `\(stateText)`, not a state")
        }
        var result = StepResult(id: try string(value["step"], "\(field).step"), state: state)
        var failedExpectation: String?
        result.itemIndex = item
        if let reason = value["reason"], reason != .null {
            let kindName = try string(reason["kind"], "\(field).reason.kind")
            guard let reasonKind = StepReason.Kind(rawValue: kindName) else {
                throw problem("\(field).reason.kind", "is `\(kindName)`, not a reason")
            }
            result.reason = StepReason(reasonKind, try string(reason["message"], "\(field).reason.message"))
            failedExpectation = try optionalString(reason["at"], "\(field).reason.at")
        }
        result.causedByFailure = try bool(value["caused_by_failure"], "\(field).caused_by_failure")
        // Reports written before control flows had neither.
        result.handledBy = try optionalString(value["handled_by"], "\(field).handled_by")
        result.visits = try optionalCount(value["visits"], "\(field).visits", from: 1)
        result.method = try optionalString(value["method"], "\(field).method")
        result.url = try optionalString(value["url"], "\(field).url")
        result.status = try optionalStatus(value["status"], "\(field).status")
        if let size = value["response_size"], size != .null {
            result.responseSize = try int(size, "\(field).response_size", in: 0...Self.maxBytes, "a number of bytes")
        }
        // Reports written before excerpts were kept have none.
        result.responseExcerpt = try optionalString(value["response_excerpt"], "\(field).response_excerpt")
        // Reports written before every expectation was listed have none.
        var expectations: [ReportExpectation] = []
        if let listed = value["expectations"], listed != .null {
            for (position, expectation) in try list(listed, "\(field).expectations").enumerated() {
                let at = "\(field).expectations[\(position)]"
                expectations.append(
                    ReportExpectation(
                        text: try string(expectation["expectation"], "\(at).expectation"),
                        at: try optionalString(expectation["at"], "\(at).at"),
                        problems: try list(expectation["problems"], "\(at).problems").enumerated().map {
                            (index, problem) throws(ReportReadError) in
                            try string(problem, "\(at).problems[\(index)]")
                        }))
            }
        }
        for (position, attempt) in try list(value["attempts"], "\(field).attempts").enumerated() {
            let at = "\(field).attempts[\(position)]"
            var record = AttemptRecord(
                number: try count(attempt["number"], "\(at).number", from: 1),
                start: try duration(attempt["start_ms"], "\(at).start_ms"),
                duration: try duration(attempt["duration_ms"], "\(at).duration_ms"))
            record.poll = try optionalCount(attempt["poll"], "\(at).poll", from: 1)
            record.visit = try optionalCount(attempt["visit"], "\(at).visit", from: 1)
            record.status = try optionalStatus(attempt["status"], "\(at).status")
            record.error = try optionalString(attempt["error"], "\(at).error")
            record.retryDelay = try optionalDuration(attempt["retry_delay_ms"], "\(at).retry_delay_ms")
            result.attempts.append(record)
        }
        if let timings = value["timings"], timings != .null {
            result.ready = try optionalDuration(timings["ready_ms"], "\(field).timings.ready_ms")
            result.start = try optionalDuration(timings["start_ms"], "\(field).timings.start_ms")
            result.end = try optionalDuration(timings["end_ms"], "\(field).timings.end_ms")
        }
        let path = parentPath + (item.map { [$0] } ?? [])
        var children: [ReportStep] = []
        for (position, child) in try list(value["children"], "\(field).children").enumerated() {
            children.append(try step(child, at: "\(field).children[\(position)]", parentPath: path))
        }
        // A for_each that did not get to its items has none (`children` is empty in the report).
        let noItems = kind == .forEach && children.isEmpty && state != .succeeded
        result.children = kind == .request || noItems ? nil : children.map(\.result)
        return ReportStep(
            id: id, step: result.id, item: item, kind: kind,
            parent: try optionalString(value["parent"], "\(field).parent"),
            result: result, children: children, itemPath: path, nodeID: -1,
            operation: try optionalString(value["operation"], "\(field).operation"),
            failedExpectation: failedExpectation, expectations: expectations)
    }

    /// An HTTP status, or nothing.
    private func optionalStatus(_ value: Value?, _ field: String) throws(ReportReadError) -> Int? {
        if value == nil || value == .null { return nil }
        return try int(value, field, in: Self.statuses, "an HTTP status")
    }
}
