import ReqPlanSyntax

/// How `reqplan load` runs a plan's iterations: the workload model, how long, and what is counted.
public struct LoadProfile: Sendable {
    /// The workload model.
    public enum Model: Sendable {
        /// Iterations start on a schedule (`--rate`, or stages of rates), whether or not earlier ones have
        /// ended: a slow server cannot slow the test down and so hide its own latency.
        case open(ArrivalSchedule)
        /// A number of users (`--users`, or stages of user counts), each running one iteration after another,
        /// with `think` between them.
        case closed(UserSchedule, think: Duration)
    }

    /// The model.
    public var model: Model
    /// The most iterations started in all, if capped (`--iterations`).
    public var iterations: UInt64?
    /// Iterations started before this point are run but not counted (`--warm-up`).
    public var warmUp: Duration = .zero
    /// The most iterations in flight at once (open model): a due iteration waits for a slot, and is counted
    /// late.
    public var maxInFlight: Int = 10_000
    /// How long iterations still running when the load ends may go on before they are cancelled.
    public var grace: Duration = .seconds(30)
    /// Whether every iteration shares one cookie jar (else each has its own, as a user would).
    public var sharesCookies = false
    /// Whether every iteration shares OAuth 2.0 tokens (else each iteration asks for its own).
    public var sharesTokens = false

    /// A profile.
    public init(model: Model, iterations: UInt64? = nil) {
        self.model = model
        self.iterations = iterations
    }

    /// How long the load lasts by its schedule; `nil` when only `iterations` ends it.
    public var duration: Duration? {
        switch model {
        case .open(let schedule): schedule.duration
        case .closed(let users, _): users.duration
        }
    }
}

/// One stage of a load: over `duration`, the target (a rate per second, or a number of users) moves in a
/// straight line from where the previous stage left it to `target`.
public struct LoadStage: Sendable, Equatable {
    /// How long the stage lasts.
    public var duration: Duration
    /// The rate per second (open model) or the number of users (closed model) at the stage's end.
    public var target: Double

    /// A stage.
    public init(duration: Duration, target: Double) {
        self.duration = duration
        self.target = target
    }

    /// Parses `DURATION:TARGET` (`30s:500/s` for a rate, `1m:50` for users), as `--stage` gives it.
    /// - Parameter rate: whether the target is a rate (`N/s`, `N/m`, `N/h`) or a count of users.
    public static func parse(_ text: String, rate: Bool) -> Result<LoadStage, LoadSettingError> {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            return .failure(LoadSettingError("`\(text)` is not of the form DURATION:TARGET, such as 30s:500/s"))
        }
        let duration: PlanDuration
        do {
            duration = try PlanDuration.parse(String(parts[0]))
        } catch {
            return .failure(LoadSettingError("`\(parts[0])` is not a duration such as 30s or 2m"))
        }
        guard duration.milliseconds > 0 else { return .failure(LoadSettingError("a stage lasts longer than 0s")) }
        let target: Double
        if rate {
            switch LoadRate.parse(String(parts[1]), allowZero: true) {
            case .success(let value): target = value
            case .failure(let error): return .failure(error)
            }
        } else {
            guard let users = Int(parts[1]), users >= 0, users <= LoadLimits.maxUsers else {
                return .failure(
                    LoadSettingError("`\(parts[1])` is not a number of users from 0 to \(LoadLimits.maxUsers)"))
            }
            target = Double(users)
        }
        return .success(LoadStage(duration: duration.duration, target: target))
    }
}

/// The bounds of a load's settings, so no arithmetic on them can overflow.
public enum LoadLimits {
    /// The highest rate, per second.
    public static let maxRate = 1_000_000.0
    /// The most users.
    public static let maxUsers = 100_000
    /// The most iterations in flight.
    public static let maxInFlight = 1_000_000
}

/// Why a load setting cannot be used.
public struct LoadSettingError: Error, Sendable, Equatable {
    /// The reason, naming the text given.
    public var message: String
    /// An error.
    public init(_ message: String) { self.message = message }
}

/// A rate of iterations: `500/s`, `30000/m`, `10/h`.
public enum LoadRate {
    /// The rate per second of `text`.
    /// - Parameter allowZero: whether `0/s` is allowed (a stage may ramp down to nothing).
    public static func parse(_ text: String, allowZero: Bool = false) -> Result<Double, LoadSettingError> {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let unit = parts.count == 2 ? parts[1] : ""
        let seconds: Double? =
            switch unit {
            case "s": 1
            case "m": 60
            case "h": 3600
            default: nil
            }
        guard let seconds,
            let count = Double(parts[0]), parts[0].allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") })
        else {
            return .failure(LoadSettingError("`\(text)` is not a rate such as 500/s, 3000/m or 10/h"))
        }
        let perSecond = count / seconds
        guard perSecond.isFinite, perSecond <= LoadLimits.maxRate, allowZero || perSecond > 0 else {
            return .failure(
                LoadSettingError(
                    "`\(text)` is outside the rates allowed: more than 0 and at most \(Int(LoadLimits.maxRate))/s"))
        }
        return .success(perSecond)
    }
}

/// When the iterations of the open model start: a rate that holds, or moves in straight lines from one
/// stage's target to the next (k6's `ramping-arrival-rate`). Iteration `n` (from 0) starts when the
/// integral of the rate from the start reaches `n`; at a constant rate `r`, at `n / r`.
public struct ArrivalSchedule: Sendable, Equatable {
    /// The rate at the start, per second.
    public var initialRate: Double
    /// The stages, in order.
    public var stages: [LoadStage]

    /// A schedule: `initialRate` moving through `stages`.
    public init(initialRate: Double, stages: [LoadStage]) {
        self.initialRate = initialRate
        self.stages = stages
    }

    /// A constant `rate` for `duration` (or with no end, when `nil`: the iteration count ends the load).
    public init(rate: Double, duration: Duration?) {
        self.init(
            initialRate: rate, stages: [LoadStage(duration: duration ?? .seconds(3_600 * 24 * 365), target: rate)])
        if duration == nil { unbounded = true }
    }

    /// Whether only the iteration count ends it.
    private var unbounded = false

    /// The schedule's length; `nil` when unbounded.
    public var duration: Duration? {
        unbounded ? nil : stages.reduce(Duration.zero) { $0 + $1.duration }
    }

    /// When iteration `n` is due, from the start; `nil` when the schedule ends first.
    public func offset(of n: UInt64) -> Duration? {
        var before = 0.0
        var elapsed = 0.0
        var rate = initialRate
        let wanted = Double(n)
        for stage in stages {
            let length = stage.duration.seconds
            let count = (rate + stage.target) / 2 * length
            if wanted < before + count || (wanted == 0 && count > 0) {
                // count(t) = rate·t + a·t², a = (target − rate) / (2·length); solved for k in the stable form.
                let k = wanted - before
                let a = (stage.target - rate) / (2 * length)
                let root = (rate * rate + 4 * a * k).squareRoot()
                let denominator = rate + root
                let t = denominator > 0 ? 2 * k / denominator : 0
                return .seconds(elapsed + min(max(t, 0), length))
            }
            before += count
            elapsed += length
            rate = stage.target
        }
        return nil
    }

    /// How many iterations are due in the first `duration` of the schedule (for the count of those never
    /// started).
    public func count(within duration: Duration) -> UInt64 {
        var total = 0.0
        var elapsed = 0.0
        var rate = initialRate
        let limit = duration.seconds
        for stage in stages {
            let length = stage.duration.seconds
            let span = min(length, max(limit - elapsed, 0))
            let a = (stage.target - rate) / (2 * length)
            total += rate * span + a * span * span
            elapsed += length
            rate = stage.target
            if elapsed >= limit { break }
        }
        guard total.isFinite, total > 0 else { return 0 }
        return total >= Double(UInt64.max / 2) ? UInt64.max / 2 : UInt64(total.rounded(.up))
    }
}

/// How many users the closed model runs over time: a number that holds, or moves in straight lines from one
/// stage's target to the next (k6's `ramping-vus`).
public struct UserSchedule: Sendable, Equatable {
    /// Users at the start.
    public var initialUsers: Int
    /// The stages, in order.
    public var stages: [LoadStage]
    /// Whether only the iteration count ends it.
    private var unbounded = false

    /// A schedule: `initialUsers` moving through `stages`.
    public init(initialUsers: Int, stages: [LoadStage]) {
        self.initialUsers = initialUsers
        self.stages = stages
    }

    /// `users` for `duration` (or with no end, when `nil`: the iteration count ends the load).
    public init(users: Int, duration: Duration?) {
        self.init(
            initialUsers: users,
            stages: [LoadStage(duration: duration ?? .seconds(3_600 * 24 * 365), target: Double(users))])
        if duration == nil { unbounded = true }
    }

    /// The schedule's length; `nil` when unbounded.
    public var duration: Duration? {
        unbounded ? nil : stages.reduce(Duration.zero) { $0 + $1.duration }
    }

    /// The most users at any time.
    public var peak: Int { Int(stages.map(\.target).reduce(Double(initialUsers), max)) }

    /// The users wanted at `time` from the start (rounded to the nearest); 0 after the end.
    public func users(at time: Duration) -> Int {
        var elapsed = 0.0
        var from = Double(initialUsers)
        let now = time.seconds
        for stage in stages {
            let length = stage.duration.seconds
            if now < elapsed + length {
                return Int((from + (stage.target - from) * (now - elapsed) / length).rounded())
            }
            elapsed += length
            from = stage.target
        }
        return 0
    }
}

extension LoadProfile {
    /// Shard `index` (1…`count`) of this load, for `--shard K/N`: `1/count` of the rate at every stage
    /// (open), or every `count`-th user, from user `index − 1` (closed; the users of the shards add up to
    /// the whole), and of the iterations cap likewise. The shards run side by side; their JSON reports merge
    /// (`report merge`) into the figures of one run of the whole load.
    public func shard(index: Int, count: Int) -> LoadProfile {
        guard count > 1, (1...count).contains(index) else { return self }
        var part = self
        let share = { (whole: Int) -> Int in whole / count + (index - 1 < whole % count ? 1 : 0) }
        switch model {
        case .open(let schedule):
            var scaled = schedule
            scaled.initialRate /= Double(count)
            scaled.stages = schedule.stages.map { LoadStage(duration: $0.duration, target: $0.target / Double(count)) }
            part.model = .open(scaled)
            part.maxInFlight = max(1, share(maxInFlight))
        case .closed(let users, let think):
            var scaled = users
            scaled.initialUsers = share(users.initialUsers)
            scaled.stages = users.stages.map {
                LoadStage(duration: $0.duration, target: Double(share(Int($0.target.rounded()))))
            }
            part.model = .closed(scaled, think: think)
        }
        if let iterations {
            let whole = iterations / UInt64(count)
            part.iterations = whole + (UInt64(index - 1) < iterations % UInt64(count) ? 1 : 0)
        }
        return part
    }
}
