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
        let scale = WaterfallScale(
            total: max(1, bars.map(\.end).max() ?? 1), laneCount: (bars.map(\.lane).max() ?? -1) + 1,
            width: SVG.Unit(width))
        let critical = Set(graph.critical.map { graph.nodes[$0].id })
        // Where the next bar of each bar's lane starts, for its label.
        var nextStart: [String: Int64] = [:]
        for lane in Dictionary(grouping: bars, by: \.lane).values {
            for (first, second) in zip(lane, lane.dropFirst()) { nextStart[first.step.id] = second.start }
        }
        let lanes: [any SVGElement] = (0..<scale.laneCount).map { lane in
            SVG.Text(at: scale.laneLabel(lane), className: "lane", content: "lane \(lane + 1)")
        }
        let drawn: [any SVGElement] = bars.map { bar in
            bar.picture(on: scale, critical: critical.contains(bar.step.step), nextStart: nextStart[bar.step.id])
        }
        return SVG.Document(
            width: scale.width, height: scale.height, className: "reqplan-waterfall", fontSize: 11,
            title: "reqplan: \(label), \(bars.count) requests over \(RunReport.durationText(scale.total))",
            style: RunReport.waterfallStyle, children: scale.axis(idle: bars.map { ($0.start, $0.end) }) + lanes + drawn
        ).text
    }
}

/// The waterfall's one scale: time (microseconds since the run started) to x, a lane to y; and what follows
/// from it alone, the axis.
struct WaterfallScale {
    /// The run's length, at least 1 µs.
    var total: Int64
    var laneCount: Int
    var width: SVG.Unit
    /// Where time 0 is drawn (the lanes' names are to its left), and the room after the run's end.
    var left: SVG.Unit = 150
    var right: SVG.Unit = 16
    /// Where the first lane starts, under the axis, and each lane's height.
    var top: SVG.Unit = 34
    var laneHeight: SVG.Unit = 22
    /// The axis's ticks start at `axisTop` and its idle stretches are drawn from there, `idleHeight` high.
    var axisTop: SVG.Unit = 22
    var idleHeight: SVG.Unit = 6
    /// Each bar's height and its place in its lane, and the baseline of its label and of the lane's name.
    var barHeight: SVG.Unit = 14
    var barInset: SVG.Unit = 2
    var labelBaseline: SVG.Unit = 13
    var laneBaseline: SVG.Unit = 14
    /// The room under the last lane, into which the ticks reach `tickOverhang`.
    var bottom: SVG.Unit = 16
    var tickOverhang: SVG.Unit = 4

    var height: SVG.Unit { top + laneHeight * Double(max(laneCount, 1)) + bottom }

    /// Where `micros` is on the axis.
    func x(_ micros: Int64) -> SVG.Unit { left + (width - left - right) * (Double(micros) / Double(total)) }

    /// The top of `lane`.
    func y(lane: Int) -> SVG.Unit { top + laneHeight * Double(lane) }

    /// Where the name of `lane` is written.
    func laneLabel(_ lane: Int) -> SVG.Point { SVG.Point(x: 8, y: y(lane: lane) + laneBaseline) }

    /// A tick at each round step of time with its label, and the stretches of `intervals` where nothing ran.
    func axis(idle intervals: [(start: Int64, end: Int64)]) -> [any SVGElement] {
        var drawn: [any SVGElement] = []
        let step = RunReport.tickStep(total)
        for at in stride(from: Int64(0), through: total, by: Int(step)) {
            drawn.append(
                SVG.Line(
                    from: SVG.Point(x: x(at), y: axisTop), to: SVG.Point(x: x(at), y: height - bottom + tickOverhang),
                    className: "tick"))
            drawn.append(
                SVG.Text(
                    at: SVG.Point(x: x(at) + 2, y: axisTop - 6), className: "tick-label",
                    content: RunReport.durationText(at)))
        }
        for gap in RunReport.idleStretches(intervals, until: total) {
            drawn.append(
                SVG.Rect(
                    x: x(gap.start), y: axisTop, width: max(1, x(gap.end) - x(gap.start)), height: idleHeight,
                    className: "idle", title: "nothing ran for \(RunReport.durationText(gap.end - gap.start))"))
        }
        return drawn
    }
}

extension RunPage.WaterfallBar {
    /// The bar on `scale`: a group with its timings as title, the time it queued, its span, each try and its
    /// label. `nextStart` is where the next bar of its lane starts, if any: nothing of this one is drawn into
    /// it.
    func picture(on scale: WaterfallScale, critical: Bool, nextStart: Int64?) -> SVG.Group {
        let y = scale.y(lane: lane)
        let result = step.result
        var drawn: [any SVGElement] = []
        if let ready {
            let line = y + scale.barInset + scale.barHeight * 0.5
            drawn.append(
                SVG.Line(
                    from: SVG.Point(x: scale.x(ready), y: line), to: SVG.Point(x: scale.x(start), y: line),
                    className: "queued"))
        }
        // At least 1.5 units wide, so that a short request shows, but never into the next bar of its lane.
        let limit = nextStart.map(scale.x) ?? scale.width
        func rect(_ from: Int64, _ to: Int64, _ className: String) -> SVG.Rect {
            let width = max(0, min(max(1.5, scale.x(to) - scale.x(from)), limit - scale.x(from)))
            return SVG.Rect(
                x: scale.x(from), y: y + scale.barInset, width: width, height: scale.barHeight,
                className: className)
        }
        drawn.append(rect(start, end, "span"))
        drawn += attempts.map { rect($0.start, $0.end, "try") }
        // The id inside the bar when it fits, else after it when the lane is free there; else on hover only.
        let label = SVG.Unit(Double(step.id.count) * 6.2 + 6)
        let baseline = y + scale.labelBaseline
        if scale.x(end) - scale.x(start) >= label {
            drawn.append(
                SVG.Text(at: SVG.Point(x: scale.x(start) + 3, y: baseline), className: "label inside", content: step.id)
            )
        } else if limit - scale.x(end) >= label {
            drawn.append(
                SVG.Text(at: SVG.Point(x: scale.x(end) + 3, y: baseline), className: "label", content: step.id))
        }
        return SVG.Group(
            className: (["bar", result.state.rawValue] + (critical ? ["critical"] : [])).joined(separator: " "),
            data: [("step", step.id)], title: timings.joined(separator: "\n"), children: drawn)
    }

    /// What the bar's title says: the request, how it ended, when it started and how long it took, how long it
    /// queued, its tries, and why it did not succeed.
    var timings: [String] {
        let result = step.result
        var lines = [
            step.id + (result.method.map { " · " + $0 } ?? "") + (result.url.map { " " + $0 } ?? ""),
            result.state.rawValue + (result.status.map { ", status \($0)" } ?? ""),
            "started at \(RunReport.durationText(start)), took \(RunReport.durationText(end - start))",
        ]
        if let ready { lines.append("queued \(RunReport.durationText(start - ready)) after it was ready") }
        if attempts.count > 1 { lines.append("\(attempts.count) tries") }
        if let reason = result.reason?.message, result.state != .succeeded { lines.append(reason) }
        return lines
    }
}
