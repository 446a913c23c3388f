import ReqPlanPlanner
import ReqPlanRuntime

extension RunReport {
    /// The run on one time axis, as a self-contained SVG picture (`RunPage.waterfallSVG`).
    public func waterfallSVG(width: Double = 1100) -> String {
        page.waterfallSVG(width: width)
    }

    /// The stretches of `[0, total)` no interval covers, each at least 1 % of the run.
    public static func idleStretches(_ intervals: [(start: Int64, end: Int64)], until total: Int64) -> [(
        start: Int64, end: Int64
    )] {
        var gaps: [(start: Int64, end: Int64)] = []
        var covered: Int64 = 0
        for interval in intervals.sorted(by: { $0.start < $1.start }) {
            if interval.start > covered { gaps.append((covered, interval.start)) }
            covered = max(covered, interval.end)
        }
        return gaps.filter { ($0.end - $0.start) * 100 >= total }
    }

    /// A round step of time for about eight ticks over `total` microseconds.
    static func tickStep(_ total: Int64) -> Int64 {
        let rough = max(1, total / 8)
        var step: Int64 = 1
        while step * 10 <= rough { step *= 10 }
        for factor: Int64 in [1, 2, 5, 10] where step * factor >= rough { return step * factor }
        return step * 10
    }

    /// Microseconds as people read them: `850 µs`, `12.4 ms`, `1.25 s`.
    static func durationText(_ micros: Int64) -> String {
        if micros < 1000 { return "\(micros) µs" }
        if micros < 1_000_000 {
            let ms = Double(micros) / 1000
            return ms < 100 ? "\((ms * 10).rounded() / 10) ms" : "\(Int(ms.rounded())) ms"
        }
        return "\((Double(micros) / 10_000).rounded() / 100) s"
    }

    static let waterfallStyle = """
        .tick { stroke: #e5e7eb; stroke-width: 1; }
        .tick-label, .lane { fill: #6b7280; }
        .idle { fill: #fde68a; }
        .bar .span { fill: #e5e7eb; }
        .bar .try { fill: #60a5fa; }
        .bar.succeeded .try { fill: #22c55e; }
        .bar.failed .try { fill: #ef4444; }
        .bar.cancelled .try { fill: #f59e0b; }
        .bar.critical .span { stroke: #111827; stroke-width: 1.5; }
        .queued { stroke: #9ca3af; stroke-width: 1; stroke-dasharray: 2 2; }
        .label { fill: #374151; }
        .label.inside { fill: #ffffff; font-weight: 600; }
        """
}

extension RunPage {
    /// One request of the run (a request step, or an item of a for_each over one) on the waterfall.
    struct WaterfallBar {
        var step: ReportStep
        /// From its first try's start to its last try's end, in microseconds since the run started.
        var start: Int64
        var end: Int64
        /// When it became ready (what it waited for had ended), if before `start`: the time it queued.
        var ready: Int64?
        /// Each try, as `[start, end)`.
        var attempts: [(start: Int64, end: Int64, status: Int?)]
        /// The lane, from 0: bars in one lane never overlap, and there are as many lanes as requests ever
        /// ran at once.
        var lane = 0
    }

    /// The requests that sent something, with their lanes, in the order they started.
    func waterfallBars() -> [WaterfallBar] {
        var bars: [WaterfallBar] = []
        for step in allSteps where step.kind == .request {
            let attempts = step.result.attempts.map { attempt in
                let start = attempt.start.microseconds
                return (
                    start: start, end: max(start + 1, (attempt.start + attempt.duration).microseconds),
                    status: attempt.status
                )
            }
            guard let first = attempts.map(\.start).min(), let last = attempts.map(\.end).max() else { continue }
            let ready = step.result.ready.map(\.microseconds).flatMap { $0 < first ? $0 : nil }
            bars.append(WaterfallBar(step: step, start: first, end: last, ready: ready, attempts: attempts))
        }
        bars.sort { ($0.start, $0.end) < ($1.start, $1.end) }
        let lanes = TraceLanes.disjoint(bars.map { ($0.start, $0.end) })
        for index in bars.indices { bars[index].lane = lanes[index] - 1 }
        return bars
    }

    /// The run on one time axis, as a self-contained SVG picture: each request a bar from its first try to
    /// its last (each try drawn solid, the waits between retries and polls light), in lanes that show what
    /// ran at once, coloured by the state it ended in; the steps of the plan's critical path outlined; the
    /// time a request queued after it was ready as a thin line before its bar; stretches where nothing ran
    /// shaded on the axis; each bar's timings on hover.
    func waterfallSVG(width: Double = 1100) -> String {
        let bars = waterfallBars()
        let total = max(1, bars.map(\.end).max() ?? 1)
        let laneCount = (bars.map(\.lane).max() ?? -1) + 1
        let (left, top, laneHeight) = (150.0, 34.0, 22.0)
        let plot = width - left - 16
        func x(_ micros: Int64) -> Double { left + plot * Double(micros) / Double(total) }
        let height = top + Double(max(laneCount, 1)) * laneHeight + 16
        let critical = Set(graph.critical.map { graph.nodes[$0].id })
        var xml = XMLWriter()
        xml.start(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("class", "reqplan-waterfall"),
                ("width", SVG.number(width)), ("height", SVG.number(height)),
                ("viewBox", "0 0 \(SVG.number(width)) \(SVG.number(height))"),
                ("font-family", "-apple-system, Segoe UI, Helvetica, Arial, sans-serif"), ("font-size", "11"),
            ])
        xml.element("title", content: "reqplan: \(label), \(bars.count) requests over \(RunReport.durationText(total))")
        xml.element("style", content: RunReport.waterfallStyle)
        // The axis: a tick at each round step of time, and the idle stretches.
        let tick = RunReport.tickStep(total)
        var at: Int64 = 0
        while at <= total {
            xml.element(
                "line",
                [
                    ("x1", SVG.number(x(at))), ("x2", SVG.number(x(at))), ("y1", "22"),
                    ("y2", SVG.number(height - 12)), ("class", "tick"),
                ])
            xml.element(
                "text", [("x", SVG.number(x(at) + 2)), ("y", "16"), ("class", "tick-label")],
                content: RunReport.durationText(at))
            at += tick
        }
        for gap in RunReport.idleStretches(bars.map { ($0.start, $0.end) }, until: total) {
            xml.start(
                "rect",
                [
                    ("x", SVG.number(x(gap.start))), ("y", "22"),
                    ("width", SVG.number(max(1, x(gap.end) - x(gap.start)))), ("height", "6"), ("class", "idle"),
                ])
            xml.element("title", content: "nothing ran for \(RunReport.durationText(gap.end - gap.start))")
            xml.end()
        }
        for lane in 0..<laneCount {
            xml.element(
                "text", [("x", "8"), ("y", SVG.number(top + Double(lane) * laneHeight + 14)), ("class", "lane")],
                content: "lane \(lane + 1)")
        }
        // Where the next bar of each bar's lane starts, for its label.
        var nextStart: [String: Int64] = [:]
        for lane in Dictionary(grouping: bars, by: \.lane).values {
            for (first, second) in zip(lane, lane.dropFirst()) { nextStart[first.step.id] = second.start }
        }
        for bar in bars {
            let y = top + Double(bar.lane) * laneHeight
            let step = bar.step
            var classes = ["bar", step.result.state.rawValue]
            if critical.contains(step.step) { classes.append("critical") }
            xml.start("g", [("class", classes.joined(separator: " ")), ("data-step", step.id)])
            var lines = [
                step.id + (step.result.method.map { " · " + $0 } ?? "") + (step.result.url.map { " " + $0 } ?? ""),
                "\(step.result.state.rawValue)" + (step.result.status.map { ", status \($0)" } ?? ""),
                "started at \(RunReport.durationText(bar.start)), took \(RunReport.durationText(bar.end - bar.start))",
            ]
            if let ready = bar.ready {
                lines.append("queued \(RunReport.durationText(bar.start - ready)) after it was ready")
            }
            if bar.attempts.count > 1 { lines.append("\(bar.attempts.count) tries") }
            if let reason = step.result.reason?.message, step.result.state != .succeeded { lines.append(reason) }
            xml.element("title", content: lines.joined(separator: "\n"))
            if let ready = bar.ready {
                xml.element(
                    "line",
                    [
                        ("x1", SVG.number(x(ready))), ("x2", SVG.number(x(bar.start))),
                        ("y1", SVG.number(y + 9)), ("y2", SVG.number(y + 9)), ("class", "queued"),
                    ])
            }
            // At least 1.5 units wide, so that a short request shows, but never into the next bar of its lane.
            let limit = nextStart[bar.step.id].map(x) ?? width
            func drawnWidth(_ start: Int64, _ end: Int64) -> Double {
                max(0, min(max(1.5, x(end) - x(start)), limit - x(start)))
            }
            xml.element(
                "rect",
                [
                    ("x", SVG.number(x(bar.start))), ("y", SVG.number(y + 2)),
                    ("width", SVG.number(drawnWidth(bar.start, bar.end))), ("height", "14"),
                    ("class", "span"),
                ])
            for attempt in bar.attempts {
                xml.element(
                    "rect",
                    [
                        ("x", SVG.number(x(attempt.start))), ("y", SVG.number(y + 2)),
                        ("width", SVG.number(drawnWidth(attempt.start, attempt.end))), ("height", "14"),
                        ("class", "try"),
                    ])
            }
            // The id inside the bar when it fits, else after it when the lane is free there; else on hover only.
            let label = Double(step.id.count) * 6.2 + 6
            if x(bar.end) - x(bar.start) >= label {
                xml.element(
                    "text",
                    [
                        ("x", SVG.number(x(bar.start) + 3)), ("y", SVG.number(y + 13)),
                        ("class", "label inside"),
                    ], content: step.id)
            } else if (nextStart[bar.step.id].map { x($0) } ?? width) - x(bar.end) >= label {
                xml.element(
                    "text",
                    [
                        ("x", SVG.number(x(bar.end) + 3)), ("y", SVG.number(y + 13)),
                        ("class", "label"),
                    ], content: step.id)
            }
            xml.end()
        }
        xml.end()
        return xml.text
    }
}
