import Foundation
import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax

extension SuiteReport {
    /// Combines JSON reports into one suite (`reqplan report merge`): the suite reports of the shards of
    /// one suite (`reqplan run --shard K/N --report json:…`), or any suite and plan reports.
    ///
    /// The plans are put in suite order (by file), so the result is the report of the whole suite run on
    /// one machine, apart from timings. What would make it wrong is an error (RP0711), each naming the
    /// report at fault: a file that is not a reqplan report, or not readable back (a field missing, of the
    /// wrong type, or a number out of its range: `JSONReportReader`, which names the field); shards of different
    /// suites (another N, another number of files); a shard missing or given twice; a plan in two reports;
    /// shards mixed with reports that are not shards.
    /// - Parameter documents: each report's path (for messages) and text.
    /// - Returns: the combined report, or every problem found (diagnostics without sources).
    public static func merging(_ documents: [(path: String, text: String)]) -> Result<
        SuiteReport, PlanRun.PreparationError
    > {
        var problems: [Diagnostic] = []
        func problem(_ message: String, _ path: String?, hint: String? = nil) {
            problems.append(Diagnostic(.error, .unmergeableReports, message, file: path, hint: hint))
        }
        var plans: [(file: String, report: Value, from: String)] = []
        var shards: [(info: ShardInfo, path: String)] = []
        var unsharded: [String] = []
        var start: Date?
        var end: Date?
        for document in documents {
            let value: Value
            do {
                value = try Value.parseJSON(document.text)
            } catch {
                problem(
                    "`\(document.path)` is not JSON: \(error)", document.path,
                    hint: "give the files `reqplan run --report json:PATH` wrote")
                continue
            }
            let planReports: [Value]
            // Whether the plans' reports are the `plans` of a suite's (their fields are named `plans[2].…`).
            let isSuite: Bool
            var shard: ShardInfo?
            switch value["format"] {
            case .string(SuiteReport.jsonFormat)?:
                guard case .list(let list)? = value["plans"] else {
                    problem("`\(document.path)`: `plans` is not a list", document.path)
                    continue
                }
                planReports = list
                isSuite = true
                switch value["shard"] {
                case nil, .null?:
                    unsharded.append(document.path)
                case let written?:
                    do {
                        shard = try ShardInfo(json: written)
                    } catch {
                        problem("`\(document.path)` cannot be read back: \(error.message)", document.path)
                        continue
                    }
                }
            case .string(RunReport.jsonFormat)?:
                planReports = [value]
                isSuite = false
                unsharded.append(document.path)
            default:
                problem(
                    "`\(document.path)` is not a reqplan report (its `format` is neither `\(SuiteReport.jsonFormat)` "
                        + "nor `\(RunReport.jsonFormat)`)", document.path,
                    hint: "give the files `reqplan run --report json:PATH` wrote")
                continue
            }
            var readable = true
            for (position, report) in planReports.enumerated() {
                do {
                    // Everything the reports written from it read: the JUnit facts, the counts and the graph the
                    // HTML page draws (reports written before it was kept have none), each number in its range.
                    let prefix = isSuite ? "plans[\(position)]." : ""
                    let plan = try JUnitPlan(json: report, at: prefix)
                    _ = try RunPage(json: report, plan: plan, at: prefix)
                    plans.append((plan.file, report, document.path))
                    start = min(start ?? plan.startedAt, plan.startedAt)
                    let planEnd = plan.startedAt.addingTimeInterval(Double(plan.duration.microseconds) / 1_000_000)
                    end = max(end ?? planEnd, planEnd)
                } catch {
                    problem("`\(document.path)` cannot be read back: \(error.message)", document.path)
                    readable = false
                }
            }
            if !readable { continue }
            if let shard { shards.append((shard, document.path)) }
            // A shard with no plan still counts its start.
            if planReports.isEmpty {
                do {
                    let date = try JSONReportReader().time(value["started_at"], "started_at")
                    start = min(start ?? date, date)
                    end = max(end ?? date, date)
                } catch {
                    problem("`\(document.path)` cannot be read back: \(error.message)", document.path)
                }
            }
        }
        // The shards are checked together once each could be read: one at fault is not also missing.
        if problems.isEmpty { checkShards(shards, unsharded: unsharded, plans: plans.count, report: problem) }
        var seen: [String: String] = [:]
        for plan in plans {
            if let first = seen[plan.file] {
                problem(
                    "the plan `\(plan.file)` is in two reports: `\(first)` and `\(plan.from)`", plan.from,
                    hint: "each plan file is run by one shard; merge the reports of one run of a suite")
            } else {
                seen[plan.file] = plan.from
            }
        }
        guard problems.isEmpty else { return .failure(PlanRun.PreparationError(diagnostics: problems, sources: [])) }
        let ordered = plans.sorted { SuiteFiles.inOrder($0.file, $1.file) }.map(\.report)
        let startedAt = start ?? Date()
        let duration = Duration.microseconds(
            Int64(((end ?? startedAt).timeIntervalSince(startedAt) * 1_000_000).rounded()))
        return .success(SuiteReport(merged: ordered, startedAt: startedAt, duration: duration))
    }

    /// Shards must be the N parts of one suite, each once, and not mixed with whole suites.
    private static func checkShards(
        _ shards: [(info: ShardInfo, path: String)], unsharded: [String], plans: Int,
        report: (String, String?, String?) -> Void
    ) {
        guard let first = shards.first else { return }
        if let whole = unsharded.first {
            report(
                "`\(whole)` is not a shard, but `\(first.path)` is (\(first.info.index)/\(first.info.count)): "
                    + "merge the shards of one suite", whole, nil)
        }
        for shard in shards.dropFirst()
        where shard.info.count != first.info.count || shard.info.files != first.info.files {
            report(
                "`\(shard.path)` is shard \(shard.info.index)/\(shard.info.count) of \(shard.info.files) files, but "
                    + "`\(first.path)` is shard \(first.info.index)/\(first.info.count) of \(first.info.files) files: "
                    + "they are not parts of one suite", shard.path, nil)
        }
        var byIndex: [Int: String] = [:]
        for shard in shards where shard.info.count == first.info.count {
            if let other = byIndex[shard.info.index] {
                report(
                    "shard \(shard.info.index)/\(shard.info.count) is given twice: `\(other)` and `\(shard.path)`",
                    shard.path, nil)
            }
            byIndex[shard.info.index] = shard.path
        }
        // At most `Shard.maxCount` (`ShardInfo(json:)`), a few of them named.
        let missing = (1...max(1, first.info.count)).filter { byIndex[$0] == nil }
        if !missing.isEmpty {
            let named = missing.count > 10 ? 5 : missing.count
            report(
                "shard\(missing.count == 1 ? "" : "s") "
                    + missing.prefix(named).map { "\($0)/\(first.info.count)" }.joined(separator: ", ")
                    + (named < missing.count ? " and \(missing.count - named) more" : "")
                    + " \(missing.count == 1 ? "is" : "are") missing: the merged report would lack "
                    + "\(missing.count == 1 ? "its" : "their") plans", nil,
                "a shard whose plans are invalid writes no report; merge only after every shard ran")
        } else if shards.count == first.info.count, plans != first.info.files {
            // Every shard says the same (checked above): the first is named.
            report(
                "the shards hold \(plans) plan\(plans == 1 ? "" : "s"), but `\(first.path)` says the suite had "
                    + "\(first.info.files) file\(first.info.files == 1 ? "" : "s") (`shard.files`)", first.path,
                "run every shard from the same files")
        }
    }

    /// A merged report: plans read back, no runs, no secrets known (the reports hid them).
    init(merged plans: [Value], startedAt: Date, duration: Duration) {
        self.init(
            plans: plans, startedAt: startedAt, duration: duration, shard: nil, runs: [])
    }
}

extension SuiteReport.ShardInfo {
    /// The `shard` of a suite's JSON report: `index` from 1 to `count`, `count` from 1 to `Shard.maxCount` (what
    /// `--shard` takes), `files` a count.
    /// - Throws: `ReportReadError` naming the first field missing, of the wrong type or out of its range.
    init(json shard: Value) throws(ReportReadError) {
        let reader = JSONReportReader()
        _ = try reader.object(shard, "shard")
        let count = try reader.int(shard["count"], "shard.count", in: 1...Shard.maxCount, "a number of shards")
        self.init(
            index: try reader.int(shard["index"], "shard.index", in: 1...count, "a shard"), count: count,
            files: try reader.count(shard["files"], "shard.files"))
    }
}
