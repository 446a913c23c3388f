/// `poll:` — send a request again and again until a condition on its response holds (grammar.md
/// "Polling: `poll`"). A class, so the many steps without one cost only a pointer.
///
/// A poll is one request with its `retry:`; between polls the step waits `every` and holds no
/// concurrency slot. Polling ends when `until` holds (the step's result is that response), when the
/// bound runs out (`attempts` polls, or `timeout` since the first poll started: the step fails with
/// reason `timeout`), or when a response is neither accepted by `until` nor by `expect.status`.
public final class PollPolicy: Sendable {
    /// The most polls a step may make (`attempts:`, and anything else that repeats a request, such as Arazzo's
    /// `retryLimit`).
    public static let attemptsRange = 1...10_000
    /// `until:` — the condition; it reads the latest response as `response`.
    public let until: Expression
    /// `every:` — the wait between polls.
    public let every: Located<PollInterval>?
    /// `timeout:` — the longest time polling may take, from the start of the first poll.
    public let timeout: Located<PlanDuration>?
    /// `attempts:` — the most polls.
    public let attempts: Located<Int>?
    /// `unsafe:` — allow polling methods that are not idempotent (`POST`, `PATCH`).
    public let unsafe: Located<Bool>?
    /// Where `poll:` was written (its key).
    public let range: SourceRange

    /// Creates a polling policy.
    public init(
        until: Expression, every: Located<PollInterval>?, timeout: Located<PlanDuration>?, attempts: Located<Int>?,
        unsafe: Located<Bool>?, range: SourceRange
    ) {
        self.until = until
        self.every = every
        self.timeout = timeout
        self.attempts = attempts
        self.unsafe = unsafe
        self.range = range
    }

    /// The wait when `every` is not written.
    public static let defaultInterval = PollInterval.fixed(PollInterval.defaultInitial)

    /// The interval in force.
    public var interval: PollInterval { every?.value ?? Self.defaultInterval }

    /// The fields of `response` inside `until` (a request result's, for the latest response).
    public static let responseFields = ["status", "headers", "body", "cookies", "duration", "url"]
}

/// `every:` — how long a poll waits after the one before it.
public enum PollInterval: Sendable, Hashable, CustomStringConvertible {
    /// `every: 2s` — the same wait each time.
    case fixed(PlanDuration)
    /// `every: { initial: 200ms, factor: 2, max: 5s }` — the first wait is `initial`, each later one
    /// `factor` times the one before, at most `max`.
    case backoff(initial: PlanDuration, factor: Double, max: PlanDuration)

    /// The wait when `every` is not written, and the default of `initial` in the mapping form.
    public static let defaultInitial = PlanDuration(milliseconds: 1000)
    /// The default of `factor` in the mapping form.
    public static let defaultFactor = 2.0
    /// The default of `max` in the mapping form.
    public static let defaultMax = PlanDuration(milliseconds: 30_000)

    /// The wait before poll `number` (2 for the second poll: the first wait).
    public func wait(before number: Int) -> Duration {
        switch self {
        case .fixed(let interval):
            return interval.duration
        case .backoff(let initial, let factor, let max):
            var milliseconds = Double(initial.milliseconds)
            for _ in 0..<Swift.max(0, number - 2) where milliseconds < Double(max.milliseconds) {
                milliseconds *= factor
            }
            return .milliseconds(Int64(Swift.min(milliseconds, Double(max.milliseconds))))
        }
    }

    public var description: String {
        switch self {
        case .fixed(let interval): "\(interval)"
        case .backoff(let initial, let factor, let max): "\(initial) × \(factor), at most \(max)"
        }
    }
}
