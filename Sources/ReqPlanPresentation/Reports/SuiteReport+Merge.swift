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
    /// report at fault: a file that is not a reqplan report, or not readable back; shards of different
    /// suites (another N, another number of files); a shard missing or given twice; a plan in two reports;
    /// shards mixed with reports that are not shards.
    /// - Parameter documents: each report's path (for messages) and text.
    /// - Returns: the combined report, or every problem found (diagnostics without sources).
    public static func merging(_ documents: [(path: String, text: String)]) -> Result<SuiteReport, PlanRun.Failure> {
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
            switch value["format"] {
            case .string(SuiteReport.jsonFormat)?:
                guard case .list(let list)? = value["plans"] else {
                    problem("`\(document.path)`: `plans` is not a list", document.path)
                    continue
                }
                planReports = list
                switch value["shard"] {
                case nil, .null?:
                    unsharded.append(document.path)
                case let shard?:
                    guard case .int(let index)? = shard["index"], case .int(let count)? = shard["count"],
                        case .int(let files)? = shard["files"]
                    else {
                        problem("`\(document.path)`: `shard` is not `{ index, count, files }`", document.path)
                        continue
                    }
                    shards.append((ShardInfo(index: index, count: count, files: files), document.path))
                }
            case .string(RunReport.jsonFormat)?:
                planReports = [value]
                unsharded.append(document.path)
            default:
                problem(
                    "`\(document.path)` is not a reqplan report (its `format` is neither `\(SuiteReport.jsonFormat)` "
                        + "nor `\(RunReport.jsonFormat)`)", document.path,
                    hint: "give the files `reqplan run --report json:PATH` wrote")
                continue
            }
            var readable = true
            for report in planReports {
                do {
                    let plan = try JUnitPlan(json: report)
                    // The graph the HTML page draws (reports written before it was kept have none).
                    if let graph = report["graph"], graph != .null { _ = try GraphPicture(json: graph, title: "") }
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
            // A shard with no plan still counts its start.
            if planReports.isEmpty, case .string(let text)? = value["started_at"], let date = RunReport.time(from: text)
            {
                start = min(start ?? date, date)
                end = max(end ?? date, date)
            }
        }
        checkShards(shards, unsharded: unsharded, plans: plans.count, report: problem)
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
        guard problems.isEmpty else { return .failure(PlanRun.Failure(diagnostics: problems, sources: [])) }
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
        let missing = (1...max(1, first.info.count)).filter { byIndex[$0] == nil }
        if !missing.isEmpty {
            report(
                "shard\(missing.count == 1 ? "" : "s") "
                    + missing.map { "\($0)/\(first.info.count)" }.joined(separator: ", ")
                    + " \(missing.count == 1 ? "is" : "are") missing: the merged report would lack "
                    + "\(missing.count == 1 ? "its" : "their") plans", nil,
                "a shard whose plans are invalid writes no report; merge only after every shard ran")
        } else if shards.count == first.info.count, plans != first.info.files {
            report(
                "the shards hold \(plans) plans, but the suite had \(first.info.files) files", nil,
                "run every shard from the same files")
        }
    }

    /// A merged report: plans read back, no runs, no secrets known (the reports hid them).
    init(merged plans: [Value], startedAt: Date, duration: Duration) {
        self.init(
            plans: plans, startedAt: startedAt, duration: duration, shard: nil, runs: [])
    }
}
