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
    /// - Throws: `ReportReadError` naming the first field missing or of the wrong type.
    init(json report: Value) throws(ReportReadError) {
        let reader = JSONReportReader()
        let plan = try reader.object(report["plan"], "plan")
        let file = try reader.string(plan["file"], "plan.file")
        let name: String?
        if case .string(let text)? = plan["name"] { name = text } else { name = nil }
        let startedText = try reader.string(report["started_at"], "started_at")
        guard let startedAt = RunReport.time(from: startedText) else {
            throw ReportReadError("`started_at` is not an ISO 8601 time: `\(startedText)`")
        }
        var steps: [ReportStep] = []
        for (position, step) in try reader.list(report["steps"], "steps").enumerated() {
            steps.append(try reader.step(step, at: "steps[\(position)]", parentPath: []))
        }
        self.init(
            label: RunReport.label(name: name, file: file), file: file, startedAt: startedAt,
            exitCode: try reader.int(report["exit_code"], "exit_code"),
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

/// Reads the fields of a JSON report, with errors that name the field.
struct JSONReportReader {
    func object(_ value: Value?, _ field: String) throws(ReportReadError) -> Value {
        guard case .object? = value, let value else { throw ReportReadError("`\(field)` is not an object") }
        return value
    }

    func fields(_ value: Value?, _ field: String) throws(ReportReadError) -> [(name: String, value: Value)] {
        guard case .object(let fields)? = value else { throw ReportReadError("`\(field)` is not an object") }
        return fields.map { ($0.key, $0.value) }
    }

    func list(_ value: Value?, _ field: String) throws(ReportReadError) -> [Value] {
        guard case .list(let items)? = value else { throw ReportReadError("`\(field)` is not a list") }
        return items
    }

    func string(_ value: Value?, _ field: String) throws(ReportReadError) -> String {
        guard case .string(let text)? = value else { throw ReportReadError("`\(field)` is not a string") }
        return text
    }

    func optionalString(_ value: Value?, _ field: String) throws(ReportReadError) -> String? {
        if value == nil || value == .null { return nil }
        return try string(value, field)
    }

    func bool(_ value: Value?, _ field: String) throws(ReportReadError) -> Bool {
        guard case .bool(let flag)? = value else { throw ReportReadError("`\(field)` is not a boolean") }
        return flag
    }

    func int(_ value: Value?, _ field: String) throws(ReportReadError) -> Int {
        guard case .int(let number)? = value else { throw ReportReadError("`\(field)` is not a whole number") }
        return number
    }

    func optionalInt(_ value: Value?, _ field: String) throws(ReportReadError) -> Int? {
        if value == nil || value == .null { return nil }
        return try int(value, field)
    }

    /// Milliseconds with microsecond precision, as reports write times.
    func duration(_ value: Value?, _ field: String) throws(ReportReadError) -> Duration {
        guard let milliseconds = value?.doubleValue else { throw ReportReadError("`\(field)` is not a number") }
        return .microseconds(Int64((milliseconds * 1000).rounded()))
    }

    func optionalDuration(_ value: Value?, _ field: String) throws(ReportReadError) -> Duration? {
        if value == nil || value == .null { return nil }
        return try duration(value, field)
    }

    /// A step of a report, its members and items nested (`itemPath` from its parents; no graph node).
    func step(_ value: Value, at field: String, parentPath: [Int]) throws(ReportReadError) -> ReportStep {
        let id = try string(value["id"], "\(field).id")
        let item = try optionalInt(value["item"], "\(field).item")
        let kindText = try string(value["kind"], "\(field).kind")
        guard let kind = ReportStep.Kind(rawValue: kindText) else {
            throw ReportReadError("`\(field).kind` is `\(kindText)`, not a kind of step")
        }
        let stateText = try string(value["state"], "\(field).state")
        guard let state = StepState(rawValue: stateText) else {
            throw ReportReadError("`\(field).state` is `\(stateText)`, not a state")
        }
        var result = StepResult(id: try string(value["step"], "\(field).step"), state: state)
        var failedExpectation: String?
        result.itemIndex = item
        if let reason = value["reason"], reason != .null {
            let kindName = try string(reason["kind"], "\(field).reason.kind")
            guard let reasonKind = StepReason.Kind(rawValue: kindName) else {
                throw ReportReadError("`\(field).reason.kind` is `\(kindName)`, not a reason")
            }
            result.reason = StepReason(reasonKind, try string(reason["message"], "\(field).reason.message"))
            failedExpectation = try optionalString(reason["at"], "\(field).reason.at")
        }
        result.causedByFailure = try bool(value["caused_by_failure"], "\(field).caused_by_failure")
        result.method = try optionalString(value["method"], "\(field).method")
        result.url = try optionalString(value["url"], "\(field).url")
        result.status = try optionalInt(value["status"], "\(field).status")
        result.responseSize = try optionalInt(value["response_size"], "\(field).response_size")
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
                number: try int(attempt["number"], "\(at).number"),
                start: try duration(attempt["start_ms"], "\(at).start_ms"),
                duration: try duration(attempt["duration_ms"], "\(at).duration_ms"))
            record.poll = try optionalInt(attempt["poll"], "\(at).poll")
            record.status = try optionalInt(attempt["status"], "\(at).status")
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
}
