/// One item of a plan's `slo:` list: the limits a load run (`reqplan load`) holds a step, or the whole
/// iteration, to. `validate` checks the names, units and percentiles; a load run checks the figures it
/// measured against them, exits 1 when one is missed and names it.
///
/// ```yaml
/// slo:
///   - step: checkout
///     p95: 300ms
///     error_rate: "< 1%"
///   - p99: 2s          # no `step`: the whole iteration
/// ```
public struct ServiceLevelObjective: Sendable {
    /// What the limits apply to.
    public enum Subject: Sendable, Equatable {
        /// A whole iteration (one run of the plan's DAG): no `step:` written.
        case iteration
        /// The step of this id (`step:`), a request, a group, a sequence or a for_each, at any depth.
        case step(Located<String>)
    }

    /// One limit: a figure, how it compares and the threshold.
    public struct Limit: Sendable {
        /// The figure a limit is about.
        public enum Measure: Sendable, Equatable, Hashable {
            /// `pNN` (`p50`, `p95`, `p99.9`): the latency at that percentile, 0 < NN < 100.
            case percentile(Double)
            /// `max`: the longest latency.
            case max
            /// `mean`: the mean latency.
            case mean
            /// `error_rate`: the share of the subject's runs that failed, 0…1.
            case errorRate
        }

        /// How the figure measured must compare with the threshold to pass.
        public enum Comparison: String, Sendable, Equatable {
            case lessThan = "<"
            case atMost = "<="
        }

        /// The figure.
        public var measure: Measure
        /// How it must compare: a latency written bare (`p95: 300ms`) and a rate written bare (`1%`) are
        /// upper bounds, `<=`.
        public var comparison: Comparison
        /// The threshold: a latency for the latency figures, else `nil`.
        public var latency: PlanDuration?
        /// The threshold: a fraction (0…1) for `error_rate`, else `nil`.
        public var fraction: Double?
        /// The key as written (`p95`, `error_rate`), for messages.
        public var key: Located<String>
        /// The value as written (`300ms`, `< 1%`), for messages.
        public var text: Located<String>

        /// Creates a limit.
        public init(
            measure: Measure, comparison: Comparison, latency: PlanDuration? = nil, fraction: Double? = nil,
            key: Located<String>, text: Located<String>
        ) {
            self.measure = measure
            self.comparison = comparison
            self.latency = latency
            self.fraction = fraction
            self.key = key
            self.text = text
        }
    }

    /// What the limits apply to.
    public var subject: Subject
    /// The limits, in the order written.
    public var limits: [Limit]
    /// The item's range.
    public var range: SourceRange

    /// Creates an objective.
    public init(subject: Subject, limits: [Limit], range: SourceRange) {
        self.subject = subject
        self.limits = limits
        self.range = range
    }
}
