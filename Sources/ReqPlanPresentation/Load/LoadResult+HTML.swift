import Foundation
import ReqPlanRuntime
import ReqPlanSyntax

extension LoadResult {
    /// The load as a self-contained HTML page (`--report html:PATH`): the facts, the table of figures, the
    /// `slo:` outcomes, and two charts drawn as inline SVG: the latency percentiles and the rate second by
    /// second, and each subject's percentile distribution (HdrHistogram's plot: the x axis spreads the tail,
    /// 90 %, 99 %, 99.9 %… evenly).
    public func htmlReport(outcomes: [ObjectiveOutcome]) -> String {
        var body = "<header><h1>\(HTMLPage.escape(plan))</h1><dl class=\"facts\">"
        body += HTMLPage.fact("model", "\(model), \(target)")
        body += HTMLPage.fact(
            "iterations",
            "\(iteration.runs) in \(ObjectiveCheck.milliseconds(measured)) (\(Self.rate(iterationRate))/s), "
                + "\(iteration.failed) failed, \(late) late, \(dropped) dropped, \(interrupted) interrupted")
        body += HTMLPage.fact(
            "requests", "\(requests) (\(Self.rate(requestRate))/s), \(Self.bytes(iteration.bytes)) received")
        if let stopped { body += HTMLPage.fact("stopped", stopped) }
        body += "</dl></header>\n"
        if !outcomes.isEmpty {
            body += "<section><h2>Objectives</h2><ul class=\"objectives\">"
            for outcome in outcomes {
                body += "<li class=\"\(outcome.met ? "met" : "missed")\">\(outcome.met ? "✓" : "✗") "
                body += HTMLPage.escape(outcome.summary) + "</li>"
            }
            body += "</ul></section>\n"
        }
        body += "<section><h2>Figures</h2>\(figuresTable())</section>\n"
        body += "<section><h2>Latency over time</h2>\(HTMLPage.inline(timeChart().text))</section>\n"
        body += "<section><h2>Percentile distribution</h2>\(HTMLPage.inline(distributionChart().text))</section>\n"
        return HTMLPage(title: "reqplan load: \(plan)", body: body).text
    }

    /// The table of the text summary, as HTML.
    private func figuresTable() -> String {
        let header = ["", "runs", "err%"] + Self.columns.map(\.name) + ["max"]
        var out = "<table class=\"load\"><thead><tr>"
        out += header.map { "<th>\(HTMLPage.escape($0))</th>" }.joined() + "</tr></thead><tbody>"
        for (name, figures) in subjects {
            let cells =
                [name, "\(figures.runs)", ObjectiveCheck.percent(figures.errorRate)]
                + Self.columns.map { ObjectiveCheck.milliseconds(figures.latency.latency(atPercentile: $0.percentile)) }
                + [ObjectiveCheck.milliseconds(figures.latency.max)]
            out += "<tr>" + cells.map { "<td>\(HTMLPage.escape($0))</td>" }.joined() + "</tr>"
        }
        return out + "</tbody></table>"
    }

    /// The iteration's figures, then each step's, by name.
    private var subjects: [(name: String, figures: LoadFigures)] {
        [("(iteration)", iteration)] + steps.map { ($0.id, $0.figures) }
    }

    // MARK: Charts

    private static let chartWidth = 880.0
    private static let chartHeight = 300.0
    private static let margin = (left: 64.0, right: 16.0, top: 16.0, bottom: 40.0)
    private static let chartStyle = """
        .axis{stroke:#888;stroke-width:1}.grid{stroke:#ddd;stroke-width:1}.label{fill:#555}
        .p50{fill:none;stroke:#2a7ae2;stroke-width:2}.p90{fill:none;stroke:#e2a72a;stroke-width:2}
        .p99{fill:none;stroke:#d9453d;stroke-width:2}.max{fill:none;stroke:#888;stroke-width:1;stroke-dasharray:4 3}
        .rate{fill:#cfe3f7}.s0{fill:none;stroke:#222;stroke-width:2.5}.s1{fill:none;stroke:#2a7ae2;stroke-width:1.5}
        .s2{fill:none;stroke:#d9453d;stroke-width:1.5}.s3{fill:none;stroke:#3aa55d;stroke-width:1.5}
        .s4{fill:none;stroke:#e2a72a;stroke-width:1.5}.s5{fill:none;stroke:#8a4fd0;stroke-width:1.5}
        .l0{fill:#222}.l1{fill:#2a7ae2}.l2{fill:#d9453d}.l3{fill:#3aa55d}.l4{fill:#e2a72a}.l5{fill:#8a4fd0}
        """

    /// Latency percentiles (p50, p90, p99, max) of the iterations that ended in each second, over bars of the
    /// iterations per second.
    func timeChart() -> SVG.Document {
        let m = Self.margin
        let plotWidth = Self.chartWidth - m.left - m.right
        let plotHeight = Self.chartHeight - m.top - m.bottom
        let seconds = max(series.count, 1)
        let highest = Double(series.map(\.p99).max() ?? 0) / 1000
        let top = Self.niceCeiling(max(highest, 1))
        let rateTop = Double(series.map(\.iterations).max() ?? 0)
        let x = { (second: Double) in SVG.Unit(m.left + plotWidth * second / Double(seconds)) }
        let y = { (millis: Double) in SVG.Unit(m.top + plotHeight * (1 - min(millis, top) / top)) }
        var children: [any SVGElement] = []
        children += Self.grid(plotWidth: plotWidth, plotHeight: plotHeight, top: top, unit: "ms")
        if rateTop > 0 {
            let barWidth = plotWidth / Double(seconds)
            children += series.map { entry in
                let height = plotHeight * Double(entry.iterations) / rateTop * 0.35
                return SVG.Rect(
                    x: x(Double(entry.second)), y: SVG.Unit(m.top + plotHeight - height),
                    width: SVG.Unit(max(barWidth - 1, 0.5)), height: SVG.Unit(height), className: "rate",
                    title: "second \(entry.second): \(entry.iterations) iterations, \(entry.failed) failed")
            }
        }
        for (name, value) in [
            ("max", { (entry: LoadSecond) in entry.max }), ("p50", { $0.p50 }), ("p90", { $0.p90 }),
            ("p99", { $0.p99 }),
        ] as [(String, (LoadSecond) -> UInt64)] {
            let points = series.filter { $0.iterations > 0 }.map {
                SVG.Point(x: x(Double($0.second) + 0.5), y: y(Double(value($0)) / 1000))
            }
            if points.count > 1 { children.append(SVG.Path(points: points, className: name, title: name)) }
        }
        children.append(
            SVG.Text(
                at: SVG.Point(x: SVG.Unit(m.left), y: SVG.Unit(Self.chartHeight - 8)), className: "label",
                content: "seconds from the start (0 to \(seconds)); lines p50, p90, p99 and max (dashed); "
                    + "bars: iterations per second (highest \(Int(rateTop)))"))
        return SVG.Document(
            width: SVG.Unit(Self.chartWidth), height: SVG.Unit(Self.chartHeight), className: "load-time",
            fontSize: 11, title: "Latency over time", style: Self.chartStyle, children: children)
    }

    /// Each subject's latency at percentiles from 0 to 99.99, on HdrHistogram's axis: `log10(1 / (1 − p))`,
    /// which puts 90 %, 99 %, 99.9 % and 99.99 % at equal steps.
    func distributionChart() -> SVG.Document {
        let m = Self.margin
        let plotWidth = Self.chartWidth - m.left - m.right
        let plotHeight = Self.chartHeight - m.top - m.bottom
        let percentiles = stride(from: 0.0, through: 4.0, by: 0.05).map { 100 * (1 - pow(10, -$0)) }
        let drawn = Array(subjects.filter { $0.figures.latency.count > 0 }.prefix(6))
        let highest =
            drawn.map { $0.figures.latency.latency(atPercentile: 99.99).seconds * 1000 }.max() ?? 1
        let top = Self.niceCeiling(max(highest, 1))
        let x = { (percentile: Double) in
            SVG.Unit(m.left + plotWidth * log10(1 / max(1 - percentile / 100, 1e-4)) / 4)
        }
        let y = { (millis: Double) in SVG.Unit(m.top + plotHeight * (1 - min(millis, top) / top)) }
        var children: [any SVGElement] = Self.grid(plotWidth: plotWidth, plotHeight: plotHeight, top: top, unit: "ms")
        for (label, at) in [("0%", 0.0), ("90%", 90), ("99%", 99), ("99.9%", 99.9), ("99.99%", 99.99)] {
            // Each label starts at its mark; the last ends there, inside the picture.
            let shift = at == 99.99 ? SVG.Unit(-40) : SVG.Unit(0)
            children.append(
                SVG.Text(
                    at: SVG.Point(x: x(at) + shift, y: SVG.Unit(m.top + plotHeight + 14)), className: "label",
                    content: label))
        }
        for (index, subject) in drawn.enumerated() {
            let points = percentiles.map {
                SVG.Point(x: x($0), y: y(subject.figures.latency.latency(atPercentile: $0).seconds * 1000))
            }
            children.append(SVG.Path(points: points, className: "s\(index)", title: subject.name))
            children.append(
                SVG.Text(
                    at: SVG.Point(x: SVG.Unit(m.left + 8), y: SVG.Unit(m.top + 14 + 14 * Double(index))),
                    className: "l\(index)", content: subject.name))
        }
        let hidden = subjects.count - drawn.count
        if hidden > 0 {
            children.append(
                SVG.Text(
                    at: SVG.Point(x: SVG.Unit(m.left), y: SVG.Unit(Self.chartHeight - 8)), className: "label",
                    content: "the first \(drawn.count) subjects; \(hidden) more in the table"))
        }
        return SVG.Document(
            width: SVG.Unit(Self.chartWidth), height: SVG.Unit(Self.chartHeight), className: "load-distribution",
            fontSize: 11, title: "Percentile distribution", style: Self.chartStyle, children: children)
    }

    /// The axes and four horizontal grid lines, labelled in `unit`, of a plot whose top is `top`.
    private static func grid(plotWidth: Double, plotHeight: Double, top: Double, unit: String) -> [any SVGElement] {
        let m = margin
        var elements: [any SVGElement] = []
        for step in 0...4 {
            let value = top * Double(step) / 4
            let level = SVG.Unit(m.top + plotHeight * (1 - Double(step) / 4))
            elements.append(
                SVG.Line(
                    from: SVG.Point(x: SVG.Unit(m.left), y: level),
                    to: SVG.Point(x: SVG.Unit(m.left + plotWidth), y: level),
                    className: step == 0 ? "axis" : "grid"))
            elements.append(
                SVG.Text(
                    at: SVG.Point(x: SVG.Unit(4), y: level + 4), className: "label",
                    content: SVG.number(value) + " " + unit))
        }
        elements.append(
            SVG.Line(
                from: SVG.Point(x: SVG.Unit(m.left), y: SVG.Unit(m.top)),
                to: SVG.Point(x: SVG.Unit(m.left), y: SVG.Unit(m.top + plotHeight)), className: "axis"))
        return elements
    }

    /// The smallest of 1, 2 and 5 times a power of ten that is at least `value`.
    static func niceCeiling(_ value: Double) -> Double {
        guard value.isFinite, value > 0 else { return 1 }
        let power = pow(10, floor(log10(value)))
        for factor in [1.0, 2, 5, 10] where factor * power >= value { return factor * power }
        return 10 * power
    }
}
