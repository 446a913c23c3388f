import Foundation
import ReqPlanRuntime
import ReqPlanSyntax

/// A report of a load, and where to write it: `--report json:PATH`, `openmetrics:PATH` or `html:PATH`.
public struct LoadReportDestination: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of load report.
    public enum Kind: String, Sendable, CaseIterable {
        /// The result with every histogram whole (`LoadResult`'s JSON form), which `report merge` adds up.
        case json
        /// OpenMetrics text, for Prometheus to scrape or a Pushgateway to take.
        case openmetrics
        /// A self-contained page with the figures and charts of latency over time and of the percentile
        /// distribution.
        case html
    }

    /// The report.
    public var kind: Kind
    /// The file to write.
    public var path: String

    /// Parses `KIND:PATH`; the path is everything after the first colon.
    public init(parsing text: String) throws(ReportDestination.ParseError) {
        let kinds = Kind.allCases.map { "`\($0.rawValue):PATH`" }.joined(separator: ", ")
        guard let colon = text.firstIndex(of: ":"), let kind = Kind(rawValue: text[..<colon].lowercased()) else {
            throw ReportDestination.ParseError(message: "--report `\(text)` is not of the form \(kinds)")
        }
        let path = String(text[text.index(after: colon)...])
        guard !path.isEmpty else { throw ReportDestination.ParseError(message: "--report `\(text)` names no file") }
        self.kind = kind
        self.path = path
    }

    public var description: String { "\(kind.rawValue):\(path)" }
}

extension LoadResult {
    /// The report of `kind`, with the objectives' outcomes.
    public func report(_ kind: LoadReportDestination.Kind, outcomes: [ObjectiveOutcome]) -> String {
        switch kind {
        case .json: jsonReport(outcomes: outcomes)
        case .openmetrics: openMetrics(outcomes: outcomes)
        case .html: htmlReport(outcomes: outcomes)
        }
    }

    /// Writes the report `destination` names.
    public func write(to destination: LoadReportDestination, outcomes: [ObjectiveOutcome])
        throws(OutputFile.WriteError)
    {
        try OutputFile.write(report(destination.kind, outcomes: outcomes), toPath: destination.path)
    }

    /// The result's JSON form on one line, with an `objectives` list: each limit, what was measured and whether it was met.
    public func jsonReport(outcomes: [ObjectiveOutcome]) -> String {
        let encoder = JSONEncoder()
        // One line: the histograms' thousands of `[value, count]` pairs would take a line each when pretty.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let document = Document(result: self, objectives: outcomes.map(ObjectiveEntry.init))
        guard let data = try? encoder.encode(document) else { return "{}\n" }
        return (String(data: data, encoding: .utf8) ?? "{}") + "\n"
    }

    /// The result and the objectives, as one JSON object.
    private struct Document: Encodable {
        var result: LoadResult
        var objectives: [ObjectiveEntry]

        enum CodingKeys: String, CodingKey { case objectives }

        func encode(to encoder: any Encoder) throws {
            try result.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(objectives, forKey: .objectives)
        }
    }

    private struct ObjectiveEntry: Encodable {
        var subject: String
        var limit: String
        var measured: String?
        var met: Bool

        init(_ outcome: ObjectiveOutcome) {
            switch outcome.subject {
            case .iteration: subject = "iteration"
            case .step(let id): subject = "step \(id.value)"
            }
            limit =
                "\(outcome.limit.key.value) \(outcome.limit.comparison.rawValue) \(ObjectiveOutcome.thresholdText(outcome.limit))"
            measured = outcome.measured
            met = outcome.met
        }
    }

    /// The text formats the metrics are written in: the same families, samples and labels in each.
    public enum MetricsFormat: Sendable {
        /// OpenMetrics 1.0 (`--report openmetrics:`): a counter's family is named without `_total`, and the
        /// text ends with `# EOF`.
        case openMetrics
        /// The Prometheus text format 0.0.4, the one a Pushgateway takes (`--push`): a counter's `# TYPE` and
        /// `# HELP` name its samples (`_total`), and there is no `# EOF` (which 0.0.4 reads as a comment, but
        /// OpenMetrics' other lines it would refuse).
        case prometheusText
    }

    /// OpenMetrics text (the Prometheus exposition format's standard): counters of iterations, runs, requests
    /// and bytes, and a summary of latency quantiles, for the iteration and for each step (label `step`).
    public func openMetrics(outcomes: [ObjectiveOutcome]) -> String {
        metrics(outcomes: outcomes, format: .openMetrics)
    }

    /// The metrics of `openMetrics(outcomes:)` in `format`.
    public func metrics(outcomes: [ObjectiveOutcome], format: MetricsFormat) -> String {
        var out = ""
        let subjects = [("", iteration)] + steps.map { ($0.id, $0.figures) }
        func family(_ name: String, _ type: String, _ help: String) {
            // OpenMetrics names a counter's family without the `_total` its samples have; 0.0.4 by the samples.
            let named = format == .prometheusText && type == "counter" ? name + "_total" : name
            out += "# TYPE \(named) \(type)\n# HELP \(named) \(help)\n"
        }
        func labels(_ step: String, _ extra: [(String, String)] = []) -> String {
            let pairs = (step.isEmpty ? [("subject", "iteration")] : [("subject", "step"), ("step", step)]) + extra
            return "{" + pairs.map { "\($0.0)=\"\(Self.escapedLabel($0.1))\"" }.joined(separator: ",") + "}"
        }
        family("reqplan_load_runs", "counter", "Runs of the iteration or a step, by outcome.")
        for (step, figures) in subjects {
            out += "reqplan_load_runs_total\(labels(step, [("outcome", "succeeded")])) \(figures.succeeded)\n"
            out += "reqplan_load_runs_total\(labels(step, [("outcome", "failed")])) \(figures.failed)\n"
        }
        family("reqplan_load_requests", "counter", "Requests sent, retries included.")
        for (step, figures) in subjects { out += "reqplan_load_requests_total\(labels(step)) \(figures.requests)\n" }
        family("reqplan_load_response_bytes", "counter", "Bytes of response bodies received.")
        for (step, figures) in subjects { out += "reqplan_load_response_bytes_total\(labels(step)) \(figures.bytes)\n" }
        family("reqplan_load_latency_seconds", "summary", "Latency of the iteration or a step.")
        for (step, figures) in subjects where figures.latency.count > 0 {
            for quantile in [0.5, 0.9, 0.95, 0.99, 0.999] {
                let value = figures.latency.latency(atPercentile: quantile * 100).seconds
                out += "reqplan_load_latency_seconds\(labels(step, [("quantile", "\(quantile)")])) \(value)\n"
            }
            let sum = figures.latency.mean.seconds * Double(figures.latency.count)
            out += "reqplan_load_latency_seconds_sum\(labels(step)) \(sum)\n"
            out += "reqplan_load_latency_seconds_count\(labels(step)) \(figures.latency.count)\n"
        }
        family("reqplan_load_iterations", "counter", "Iterations by what became of them.")
        for (name, count) in [
            ("started", started), ("warm_up", warmUp), ("late", late), ("dropped", dropped),
            ("interrupted", interrupted),
        ] {
            out += "reqplan_load_iterations_total{state=\"\(name)\"} \(count)\n"
        }
        if !outcomes.isEmpty {
            family("reqplan_load_objective_met", "gauge", "1 when the plan's slo limit was met, else 0.")
            for outcome in outcomes {
                let step: String =
                    switch outcome.subject {
                    case .iteration: ""
                    case .step(let id): id.value
                    }
                let limit =
                    "\(outcome.limit.key.value) \(outcome.limit.comparison.rawValue) \(ObjectiveOutcome.thresholdText(outcome.limit))"
                out += "reqplan_load_objective_met\(labels(step, [("limit", limit)])) \(outcome.met ? 1 : 0)\n"
            }
        }
        if format == .openMetrics { out += "# EOF\n" }
        return out
    }

    /// A label value with `\`, `"` and line breaks escaped, as OpenMetrics requires.
    static func escapedLabel(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
