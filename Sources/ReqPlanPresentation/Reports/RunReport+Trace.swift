import ReqPlanRuntime
import ReqPlanSyntax

// Chrome trace-event JSON (`--report trace:PATH`), the "JSON Object Format" Perfetto
// (ui.perfetto.dev) and chrome://tracing open:
//
//     {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}
//
// Process 1, "requests": one complete event (`"ph": "X"`, `ts`/`dur` in microseconds since the
// run started) per request attempt. Attempts are laid out on lanes (`tid`) named `slot 1`,
// `slot 2`, …: taken in order of start, each goes to the lowest-numbered lane that is free
// when it starts. Overlapping attempts therefore never share a lane, and because a new lane is
// opened only when every existing lane is busy, the number of lanes equals the peak number of
// attempts in flight at once (interval-graph colouring). Retries are separate events on
// whatever lane is free then; the wait between attempts occupies no lane.
//
// Process 2, "groups, sequences, for_each": one complete event per group, sequence, for_each
// and item of a for_each over a group, from its start to its end. A lane may hold a span and
// spans of its members and items inside it (drawn as a stack, as a flame graph): each span goes
// to the lowest lane where everything has ended by its start, or where the innermost span still
// open is one of its ancestors and lasts until it ends. Spans that overlap without one being the
// other's ancestor never share a lane.

extension RunReport {
    /// The run as Chrome trace-event JSON (`--report trace:PATH`), one event per line.
    public func traceJSON() -> String {
        let events = traceEvents()
        let otherData = Value.object([
            .init("format", .string("reqplan-trace/1")),
            .init("plan", .string(planLabel)),
            .init("file", .string(graph.plan.source.path)),
            .init("started_at", .string(startedAtText)),
            .init("duration_ms", result.duration.millisecondsValue),
            .init("exit_code", .int(Int(result.exitCode))),
        ])
        let net = self.net
        let lines = events.map { "  " + net.redact($0).jsonText() }.joined(separator: ",\n")
        let text =
            "{\"traceEvents\": [\n" + lines + "\n],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": "
            + otherData.jsonText() + "}\n"
        return text
    }

    /// The trace's events: metadata, then complete events by start. A suite's trace puts each plan's
    /// events in processes of its own: `firstPid` and the next one, named after the plan (`prefix`), its
    /// times moved by `offset` (microseconds from the suite's start to the plan's).
    func traceEvents(offset: Int64 = 0, firstPid: Int = 1, prefix: String = "") -> [Value] {
        let attempts = traceAttempts()
        let requestLanes = TraceLanes.disjoint(attempts.map { ($0.start, $0.end) })
        let spans = traceSpans()
        let spanLanes = TraceLanes.nested(spans.map { ($0.start, $0.end, $0.parent) })

        var events: [Value] = []
        func metadata(_ name: String, pid: Int, tid: Int, _ key: String, _ value: Value) {
            events.append(
                .object([
                    .init("name", .string(name)), .init("ph", .string("M")), .init("pid", .int(pid)),
                    .init("tid", .int(tid)), .init("args", .object([.init(key, value)])),
                ]))
        }
        metadata("process_name", pid: firstPid, tid: 0, "name", .string(prefix + "requests"))
        metadata("process_sort_index", pid: firstPid, tid: 0, "sort_index", .int(firstPid))
        for lane in stride(from: 1, through: requestLanes.max() ?? 0, by: 1) {
            metadata("thread_name", pid: firstPid, tid: lane, "name", .string("slot \(lane)"))
            metadata("thread_sort_index", pid: firstPid, tid: lane, "sort_index", .int(lane))
        }
        if let spanLaneCount = spanLanes.max() {
            metadata("process_name", pid: firstPid + 1, tid: 0, "name", .string(prefix + "groups, sequences, for_each"))
            metadata("process_sort_index", pid: firstPid + 1, tid: 0, "sort_index", .int(firstPid + 1))
            for lane in 1...spanLaneCount {
                metadata("thread_name", pid: firstPid + 1, tid: lane, "name", .string("lane \(lane)"))
                metadata("thread_sort_index", pid: firstPid + 1, tid: lane, "sort_index", .int(lane))
            }
        }

        var complete: [(start: Int64, pid: Int, tid: Int, order: Int, event: Value)] = []
        for (index, attempt) in attempts.enumerated() {
            complete.append(
                (
                    attempt.start, 1, requestLanes[index], index,
                    completeEvent(
                        attempt.name, category: "request", attempt.start + offset,
                        attempt.end + offset, pid: firstPid, tid: requestLanes[index],
                        args: attempt.args)
                ))
        }
        for (index, span) in spans.enumerated() {
            complete.append(
                (
                    span.start, 2, spanLanes[index], index,
                    completeEvent(
                        span.name, category: span.category, span.start + offset, span.end + offset,
                        pid: firstPid + 1, tid: spanLanes[index], args: span.args)
                ))
        }
        complete.sort { ($0.start, $0.pid, $0.tid, $0.order) < ($1.start, $1.pid, $1.tid, $1.order) }
        events += complete.map(\.event)
        return events
    }

    private func completeEvent(
        _ name: String, category: String, _ start: Int64, _ end: Int64, pid: Int, tid: Int,
        args: Value
    ) -> Value {
        .object([
            .init("name", .string(name)), .init("cat", .string(category)), .init("ph", .string("X")),
            .init("ts", .int(Int(start))), .init("dur", .int(Int(end - start))), .init("pid", .int(pid)),
            .init("tid", .int(tid)), .init("args", args),
        ])
    }

    /// An attempt or a span as an interval in whole microseconds (at least 1 µs long).
    struct TraceInterval {
        var name: String
        var category: String
        var start: Int64
        var end: Int64
        var args: Value
        /// For a span, the index of the span of its nearest enclosing step that has one.
        var parent: Int?
    }

    /// Every attempt of every request, in document order.
    func traceAttempts() -> [TraceInterval] {
        var list: [TraceInterval] = []
        for step in allSteps where step.kind == .request {
            let stepResult = step.result
            var triesPerPoll: [Int: Int] = [:]
            for attempt in stepResult.attempts { if let poll = attempt.poll { triesPerPoll[poll, default: 0] += 1 } }
            for attempt in stepResult.attempts {
                let start = attempt.start.microseconds
                let end = max(start + 1, (attempt.start + attempt.duration).microseconds)
                let name = Self.attemptName(
                    step.id, attempt, attempts: stepResult.attempts.count,
                    triesInPoll: attempt.poll.flatMap { triesPerPoll[$0] } ?? 1)
                var fields: [Value.Field] = [
                    .init("id", .string(step.id)),
                    .init("step", .string(step.step)),
                    .init("parent", step.parent.map(Value.string) ?? .null),
                    .init("item", step.itemPath.last.map(Value.int) ?? .null),
                    .init("attempt", .int(attempt.number)),
                    .init("poll", attempt.poll.map(Value.int) ?? .null),
                    .init("visit", attempt.visit.map(Value.int) ?? .null),
                    .init("status", attempt.status.map(Value.int) ?? .null),
                    .init("state", .string(stepResult.state.rawValue)),
                    .init("error", attempt.error.map(Value.string) ?? .null),
                    .init("retry_delay_ms", attempt.retryDelay?.millisecondsValue ?? .null),
                    .init("method", stepResult.method.map(Value.string) ?? .null),
                    .init("url", stepResult.url.map(Value.string) ?? .null),
                ]
                // The last try of a request that failed: what came back, and the expectation it did not meet.
                if attempt.number == stepResult.attempts.count, stepResult.state == .failed {
                    fields.append(.init("response_excerpt", stepResult.responseExcerpt.map(Value.string) ?? .null))
                    fields.append(.init("expectation", step.failedExpectation.map(Value.string) ?? .null))
                }
                let args = Value.object(fields)
                list.append(TraceInterval(name: name, category: "request", start: start, end: end, args: args))
            }
        }
        return list
    }

    /// Every group, sequence, for_each and item of a for_each over a group that started, in document order.
    func traceSpans() -> [TraceInterval] {
        var list: [TraceInterval] = []
        var indexOf: [String: Int] = [:]
        var parentOf: [String: String] = [:]
        for step in allSteps {
            if let parent = step.parent { parentOf[step.id] = parent }
        }
        for step in allSteps where step.kind != .request {
            guard let start = step.result.start, let end = step.result.end else { continue }
            var ancestor = step.parent
            while let id = ancestor, indexOf[id] == nil { ancestor = parentOf[id] }
            let startMicros = start.microseconds
            let endMicros = max(startMicros + 1, end.microseconds)
            let category = step.isItem ? "item" : step.kind.rawValue
            let args = Value.object([
                .init("id", .string(step.id)),
                .init("step", .string(step.step)),
                .init("parent", step.parent.map(Value.string) ?? .null),
                .init("item", step.itemPath.last.map(Value.int) ?? .null),
                .init("kind", .string(category)),
                .init("state", .string(step.result.state.rawValue)),
                .init("reason", step.result.reason.map { .string($0.message) } ?? .null),
            ])
            indexOf[step.id] = list.count
            list.append(
                TraceInterval(
                    name: step.id, category: category, start: startMicros, end: endMicros,
                    args: args, parent: ancestor.flatMap { indexOf[$0] }))
        }
        return list
    }
}

/// Lane assignment for trace events.
enum TraceLanes {
    /// Lanes (1-based, in input order) for half-open intervals `[start, end)` such that no two
    /// overlapping intervals share a lane, using as many lanes as the most intervals overlapping
    /// at one instant: intervals are taken by start, each into the lowest lane free at its start.
    static func disjoint(_ intervals: [(start: Int64, end: Int64)]) -> [Int] {
        let order = intervals.indices.sorted {
            (intervals[$0].start, intervals[$0].end, $0) < (intervals[$1].start, intervals[$1].end, $1)
        }
        var lanes = [Int](repeating: 0, count: intervals.count)
        var busy = Heap<(end: Int64, lane: Int)> { ($0.end, $0.lane) < ($1.end, $1.lane) }
        var free = Heap<Int>(by: <)
        var opened = 0
        for index in order {
            let interval = intervals[index]
            while let first = busy.peek, first.end <= interval.start {
                _ = busy.pop()
                free.push(first.lane)
            }
            let lane: Int
            if let reused = free.pop() {
                lane = reused
            } else {
                opened += 1
                lane = opened
            }
            lanes[index] = lane
            busy.push((interval.end, lane))
        }
        return lanes
    }

    /// Lanes (1-based, in input order) for spans that may nest inside their ancestors (`parent`:
    /// the index of the enclosing span). A span goes to the lowest lane where, once the spans
    /// there that ended by its start are closed, nothing is open, or the innermost open span is
    /// one of its ancestors and does not end before it. Overlapping spans share a lane only
    /// nested, and only inside an ancestor.
    static func nested(_ intervals: [(start: Int64, end: Int64, parent: Int?)]) -> [Int] {
        // Outer spans first when they start together, so that inner ones find them open.
        let order = intervals.indices.sorted {
            (intervals[$0].start, -intervals[$0].end, $0) < (intervals[$1].start, -intervals[$1].end, $1)
        }
        func isAncestor(_ candidate: Int, of index: Int) -> Bool {
            var current = intervals[index].parent
            while let ancestor = current {
                if ancestor == candidate { return true }
                current = intervals[ancestor].parent
            }
            return false
        }
        var lanes = [Int](repeating: 0, count: intervals.count)
        var stacks: [[Int]] = []
        for index in order {
            let interval = intervals[index]
            var chosen: Int?
            for lane in stacks.indices {
                while let top = stacks[lane].last, intervals[top].end <= interval.start { stacks[lane].removeLast() }
                if let top = stacks[lane].last, intervals[top].end < interval.end || !isAncestor(top, of: index) {
                    continue
                }
                chosen = lane
                break
            }
            let lane =
                chosen
                ?? {
                    stacks.append([])
                    return stacks.count - 1
                }()
            stacks[lane].append(index)
            lanes[index] = lane + 1
        }
        return lanes
    }
}

/// A binary min-heap under a given ordering.
struct Heap<Element> {
    private var items: [Element] = []
    private let less: (Element, Element) -> Bool

    init(by less: @escaping (Element, Element) -> Bool) {
        self.less = less
    }

    var peek: Element? { items.first }

    mutating func push(_ element: Element) {
        items.append(element)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(items[child], items[parent]) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Element? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count, less(items[left], items[smallest]) { smallest = left }
            if right < items.count, less(items[right], items[smallest]) { smallest = right }
            if smallest == parent { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}

extension RunReport {
    /// A request attempt's event name: the report id alone for a single attempt; with `(attempt N)`
    /// after retries; with `(poll N)` for a polled request (`(poll N, attempt M)` for a retry within a poll).
    static func attemptName(_ id: String, _ attempt: AttemptRecord, attempts: Int, triesInPoll: Int) -> String {
        guard let poll = attempt.poll else {
            return attempts > 1 ? "\(id) (attempt \(attempt.number))" : id
        }
        return "\(id) (poll \(poll)" + (triesInPoll > 1 ? ", attempt \(attempt.number))" : ")")
    }
}
