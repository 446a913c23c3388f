import Foundation
import ReqPlanSyntax

/// A plan's `slo:` limits checked against what a load measured.
public struct ObjectiveOutcome: Sendable {
    /// What the limit applies to: the whole iteration, or a step.
    public var subject: ServiceLevelObjective.Subject
    /// The limit.
    public var limit: ServiceLevelObjective.Limit
    /// The figure measured, as text (`412ms`, `1.3%`); `nil` when the subject never ran.
    public var measured: String?
    /// Whether the limit was met. A step that never ran misses every limit: a load where it never ran did
    /// not show it meets them.
    public var met: Bool

    /// The subject as messages name it: `the iteration`, or `` step `checkout` ``.
    public var subjectName: String {
        switch subject {
        case .iteration: "the iteration"
        case .step(let id): "step `\(id.value)`"
        }
    }

    /// One line saying what was measured against what: `` p95 of step `checkout`: 412ms, over < 300ms ``.
    public var summary: String {
        let measure = limit.key.value
        guard let measured else { return "\(measure) of \(subjectName): it never ran" }
        let bound = "\(limit.comparison.rawValue) \(Self.thresholdText(limit))"
        return "\(measure) of \(subjectName): \(measured) (limit \(bound))"
    }

    /// The threshold as text.
    public static func thresholdText(_ limit: ServiceLevelObjective.Limit) -> String {
        if let latency = limit.latency { return latency.description }
        if let fraction = limit.fraction { return ObjectiveCheck.percent(fraction) }
        return limit.text.value
    }
}

/// Checks `slo:` limits against a load's figures.
public enum ObjectiveCheck {
    /// Every limit of `objectives`, in the order written, checked against `result`.
    public static func check(_ objectives: [ServiceLevelObjective], against result: LoadResult) -> [ObjectiveOutcome] {
        objectives.flatMap { objective in
            let figures: LoadFigures? =
                switch objective.subject {
                case .iteration: result.iteration
                case .step(let id): result.figures(ofStep: id.value)
                }
            return objective.limits.map { limit in
                guard let figures, figures.runs > 0 else {
                    return ObjectiveOutcome(subject: objective.subject, limit: limit, measured: nil, met: false)
                }
                let (value, text) = measure(limit.measure, of: figures)
                let bound = limit.latency.map { Double($0.milliseconds) / 1000 } ?? limit.fraction ?? 0
                let met =
                    switch limit.comparison {
                    case .lessThan: value < bound
                    case .atMost: value <= bound
                    }
                return ObjectiveOutcome(subject: objective.subject, limit: limit, measured: text, met: met)
            }
        }
    }

    /// The figure `measure` of `figures`: seconds for a latency, a fraction for a rate; and as text.
    static func measure(_ measure: ServiceLevelObjective.Limit.Measure, of figures: LoadFigures) -> (Double, String) {
        let latency: Duration
        switch measure {
        case .errorRate: return (figures.errorRate, percent(figures.errorRate))
        case .percentile(let percentile): latency = figures.latency.latency(atPercentile: percentile)
        case .max: latency = figures.latency.max
        case .mean: latency = figures.latency.mean
        }
        return (latency.seconds, milliseconds(latency))
    }

    /// A latency as milliseconds with up to three decimals (`412ms`, `0.153ms`), or seconds from 10 s.
    public static func milliseconds(_ latency: Duration) -> String {
        let seconds = latency.seconds
        if seconds >= 10 { return trimmed(String(format: "%.2f", seconds)) + "s" }
        let millis = seconds * 1000
        let text =
            millis >= 100 ? String(format: "%.0f", millis) : String(format: millis >= 1 ? "%.2f" : "%.3f", millis)
        return trimmed(text) + "ms"
    }

    /// A fraction as a percentage (`1.25%`, `0%`).
    public static func percent(_ fraction: Double) -> String {
        trimmed(String(format: "%.3f", fraction * 100)) + "%"
    }

    private static func trimmed(_ text: String) -> String {
        guard text.contains(".") else { return text }
        var text = text
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

extension ObjectiveOutcome {
    /// The error of a missed limit (RP0519), located at the limit in `file` (the plan); `nil` when it was met.
    public func diagnostic(file: String) -> Diagnostic? {
        guard !met else { return nil }
        let hint =
            measured == nil
            ? "the step never ran in this load: check the `if:` and the failures above it"
            : "the limit is the plan's `slo:`; the whole distribution is in `--report json:PATH`"
        return Diagnostic(
            .error, .objectiveMissed, "load objective missed: \(summary)", file: file, at: limit.key.range, hint: hint)
    }
}
