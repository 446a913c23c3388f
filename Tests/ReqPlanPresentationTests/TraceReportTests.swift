import Foundation
import ReqPlanRuntime
import ReqPlanSyntax
import Testing

@testable import ReqPlanPresentation

/// A trace file read back: its complete events by process, and its lane names.
struct ParsedTrace {
    struct Event {
        var name: String
        var start: Int
        var end: Int
        var pid: Int
        var tid: Int
        var args: Value
    }

    var events: [Event] = []
    var laneNames: [Int: [Int: String]] = [:]

    init(_ text: String) throws {
        let json = try Value.parseJSON(text)
        #expect(json["displayTimeUnit"] == .string("ms"))
        guard case .list(let list) = json["traceEvents"] else {
            Issue.record("no traceEvents list")
            return
        }
        for event in list {
            guard case .string(let phase) = event["ph"], case .int(let pid) = event["pid"],
                case .int(let tid) = event["tid"]
            else {
                Issue.record("malformed event \(event.jsonText())")
                continue
            }
            if phase == "M", event["name"] == .string("thread_name"), case .string(let name) = event["args"]?["name"] {
                laneNames[pid, default: [:]][tid] = name
            } else if phase == "X", case .int(let ts) = event["ts"], case .int(let dur) = event["dur"],
                case .string(let name) = event["name"]
            {
                #expect(dur > 0 && ts >= 0)
                events.append(
                    Event(name: name, start: ts, end: ts + dur, pid: pid, tid: tid, args: event["args"] ?? .null))
            }
        }
    }

    func events(pid: Int) -> [Event] { events.filter { $0.pid == pid } }

    /// The most events of a process overlapping at one instant (intervals are half-open).
    func peakOverlap(pid: Int) -> Int {
        let points = events(pid: pid).flatMap { [($0.start, 1), ($0.end, -1)] }
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
        var current = 0
        var peak = 0
        for point in points {
            current += point.1
            peak = max(peak, current)
        }
        return peak
    }
}

@Suite("The trace report")
struct TraceReportTests {
    static let concurrentPlan = """
        reqplan: 1
        name: report-trace
        defaults: { base_url: "http://test" }
        steps:
          fan_out:
            group:
              left: { request: { url: "/s/left?delay=60" } }
              right: { request: { url: "/s/right?delay=30" } }
          batch:
            concurrency: 3
            for_each: [40, 10, 30, 20, 40, 10, 30, 20]
            request: { url: "/s/batch-${{ item }}?delay=${{ item }}" }
          retried: { request: { url: "/s/retried?fail=2" }, retry: { attempts: 3, backoff: 20ms } }
          chain:
            needs: [fan_out, batch]
            sequence:
              one: { request: { url: "/s/one?delay=5" } }
              two: { request: { url: "/s/two?delay=5" } }
        """

    @Test func requestLanesMatchPeakConcurrencyAndNeverOverlap() async throws {
        let run = try await runPlan(Self.concurrentPlan)
        #expect(run.result.exitCode == 0, "\(run.result.summaryText(graph: run.graph))")
        let trace = try ParsedTrace(run.report.traceJSON())
        let requests = trace.events(pid: 1)
        #expect(requests.count == 15)  // 2 in the group, 8 items, 3 attempts, 2 in the sequence
        let lanes = Set(requests.map(\.tid))
        let peak = trace.peakOverlap(pid: 1)
        #expect(peak >= 2)
        #expect(lanes == Set(1...peak), "lanes \(lanes.sorted()) for a peak of \(peak)")
        for lane in lanes {
            let inLane = requests.filter { $0.tid == lane }.sorted { $0.start < $1.start }
            for (earlier, later) in zip(inLane, inLane.dropFirst()) {
                #expect(earlier.end <= later.start, "\(earlier.name) and \(later.name) overlap in slot \(lane)")
            }
            #expect(trace.laneNames[1]?[lane] == "slot \(lane)")
        }
        // Each attempt carries its step, item, attempt number, status and the step's final state.
        let retried = requests.filter { $0.args["id"] == .string("retried") }
        #expect(retried.map { $0.args["attempt"] } == [.int(1), .int(2), .int(3)])
        #expect(retried.map { $0.args["status"] } == [.int(503), .int(503), .int(200)])
        #expect(retried.allSatisfy { $0.args["state"] == .string("succeeded") })
        let items = requests.filter { $0.args["step"] == .string("batch") }.compactMap { $0.args["item"]?.doubleValue }
        #expect(Set(items) == Set((0..<8).map(Double.init)))
    }

    @Test func collectionSpansHaveTheirOwnProcessAndNestOnlyInsideAncestors() async throws {
        let run = try await Scenario.mixed.run()
        let trace = try ParsedTrace(run.report.traceJSON())
        let spans = trace.events(pid: 2)
        #expect(
            Set(spans.map(\.name)) == [
                "bootstrap", "uploads", "checkout", "checkout[0]", "checkout[1]", "steps_in_order",
            ])
        var parents: [String: String] = [:]
        for step in run.report.allSteps { if let parent = step.parent { parents[step.id] = parent } }
        func isAncestor(_ a: String, of b: String) -> Bool {
            var current = parents[b]
            while let id = current {
                if id == a { return true }
                current = parents[id]
            }
            return false
        }
        for lane in Set(spans.map(\.tid)) {
            let inLane = spans.filter { $0.tid == lane }
            for a in inLane {
                for b in inLane where a.name != b.name {
                    let disjoint = a.end <= b.start || b.end <= a.start
                    let nested =
                        (isAncestor(a.name, of: b.name) && a.start <= b.start && b.end <= a.end)
                        || (isAncestor(b.name, of: a.name) && b.start <= a.start && a.end <= b.end)
                    #expect(disjoint || nested, "\(a.name) and \(b.name) overlap in lane \(lane)")
                }
            }
            #expect(trace.laneNames[2]?[lane] == "lane \(lane)")
        }
        // The two items of `checkout` overlap, so they are on different lanes.
        let items = spans.filter { $0.name.hasPrefix("checkout[") }
        #expect(Set(items.map(\.tid)).count == 2)
    }

    @Test func everyScenarioGivesAReadableTrace() async throws {
        for scenario in Scenario.all {
            let trace = try ParsedTrace(try await scenario.run().report.traceJSON())
            let lanes = Set(trace.events(pid: 1).map(\.tid))
            #expect(lanes.count == trace.peakOverlap(pid: 1), "\(scenario.name)")
        }
    }

    @Test func disjointLanesAreOptimalOnRandomIntervals() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let count = Int.random(in: 0...40, using: &generator)
            let intervals: [(start: Int64, end: Int64)] = (0..<count).map { _ in
                let start = Int64.random(in: 0...100, using: &generator)
                return (start, start + Int64.random(in: 1...30, using: &generator))
            }
            let lanes = TraceLanes.disjoint(intervals)
            var peak = 0
            for point in Set(intervals.map(\.start)) {
                peak = max(peak, intervals.filter { $0.start <= point && point < $0.end }.count)
            }
            #expect((lanes.max() ?? 0) == peak)
            for i in intervals.indices {
                for j in intervals.indices where i < j && lanes[i] == lanes[j] {
                    #expect(intervals[i].end <= intervals[j].start || intervals[j].end <= intervals[i].start)
                }
            }
        }
    }

    @Test func spanLanesNestOnlyInsideAncestors() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            // A random forest of spans: each inside its parent, siblings anywhere in it.
            let count = Int.random(in: 0...25, using: &generator)
            var intervals: [(start: Int64, end: Int64, parent: Int?)] = []
            for index in 0..<count {
                let parent =
                    index > 0 && Bool.random(using: &generator) ? Int.random(in: 0..<index, using: &generator) : nil
                let (low, high) = parent.map { (intervals[$0].start, intervals[$0].end) } ?? (0, 200)
                let start = Int64.random(in: low..<high, using: &generator)
                intervals.append((start, Int64.random(in: (start + 1)...high, using: &generator), parent))
            }
            func isAncestor(_ a: Int, of b: Int) -> Bool {
                var current = intervals[b].parent
                while let ancestor = current {
                    if ancestor == a { return true }
                    current = intervals[ancestor].parent
                }
                return false
            }
            let lanes = TraceLanes.nested(intervals)
            for i in intervals.indices {
                for j in intervals.indices where i < j && lanes[i] == lanes[j] {
                    let (a, b) = (intervals[i], intervals[j])
                    let disjoint = a.end <= b.start || b.end <= a.start
                    let nested =
                        (isAncestor(i, of: j) && a.start <= b.start && b.end <= a.end)
                        || (isAncestor(j, of: i) && b.start <= a.start && a.end <= b.end)
                    #expect(disjoint || nested, "\(a) and \(b) share lane \(lanes[i])")
                }
            }
        }
    }
}

@Suite("Secrets in reports")
struct ReportSecretTests {
    /// The secret as written and in every encoding a report could carry it.
    static let forms: [String] = {
        let secret = Scenario.secret
        return [
            secret,
            secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~")))
                ?? secret,
            String(Value.string(secret).jsonText().dropFirst().dropLast()),
            XMLWriter.escapeText(secret),
            XMLWriter.escapeAttribute(secret),
            "s3cr3t",
        ]
    }()

    @Test func noSecretAppearsInAnyReport() async throws {
        let run = try await Scenario.mixed.run()
        // The secret really was sent and echoed back into an output.
        #expect(run.result.outputs.first { $0.name == "token_seen" }?.value == .string(Scenario.secret))
        let login = run.result.results["login"]
        // The URL shows `***` exactly where the secret went in.
        #expect(login?.url?.hasSuffix("/s/login?token=***") == true)
        for report in [run.report, run.normalised.report] {
            for kind in ReportKind.allCases {
                let text = report.render(kind)
                for form in Self.forms {
                    #expect(!text.contains(form), "the \(kind) report contains the secret as \(form)")
                }
                // A HAR holds only the exchanges a recorder saw (`TrafficRecorder`, attached by the command
                // line when a HAR or a page is asked for); this run had none: the CLI tests cover its secrets.
                if kind != .har || !report.exchanges.isEmpty {
                    #expect(text.contains("***"), "the \(kind) report hides nothing")
                }
            }
            _ = try Value.parseJSON(report.jsonText())
            _ = try Value.parseJSON(report.traceJSON())
        }
    }
}
