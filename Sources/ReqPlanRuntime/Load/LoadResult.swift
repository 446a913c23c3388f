import Foundation

/// What a load (`reqplan load`) measured: the figures of every iteration and every step, the counts of the
/// iterations that started late or never, and one entry per second for charts. Its JSON form keeps the
/// histograms whole (`LatencyHistogram`), so shards' results add up exactly (`merged`).
public struct LoadResult: Sendable, Equatable {
    /// The JSON form's version.
    public static let formatVersion = 1
    /// The most steps given figures of their own (each holds a histogram of about 190 kB); the steps of a
    /// plan beyond them count in the iteration's figures only. A report with more is refused.
    public static let maxSteps = 1000
    /// The most seconds a report's series may hold (eleven days).
    public static let maxSeconds = 1_000_000

    /// The plan file.
    public var plan: String
    /// `open` or `closed`.
    public var model: String
    /// What was asked, as the command line says it (`500/s for 30s`, `50 users for 1m`).
    public var target: String
    /// When the load started (wall clock).
    public var startedAt: Date
    /// From the start to the end of the last iteration.
    public var elapsed: Duration = .zero
    /// The window the rates are over: `elapsed` without the warm-up.
    public var measured: Duration = .zero
    /// The iterations counted (not those of the warm-up).
    public var iteration = LoadFigures()
    /// Each step's figures, in the plan's order.
    public var steps: [StepLoadFigures] = []
    /// Iterations started, warm-up included.
    public var started: UInt64 = 0
    /// Iterations of the warm-up (run, not counted).
    public var warmUp: UInt64 = 0
    /// Iterations that had to wait for a slot under the cap on iterations in flight (open model).
    public var late: UInt64 = 0
    /// Iterations due by the schedule that never started: the load ended while they waited for a slot.
    public var dropped: UInt64 = 0
    /// Iterations cancelled before they ended (Ctrl-C, `--abort-on-fail`, the grace after the end ran out).
    public var interrupted: UInt64 = 0
    /// How long after it was due each iteration started (open model): the scheduler's own lag, and the wait
    /// of late iterations.
    public var startDelay = LatencyHistogram()
    /// Connections the HTTP client opened, when it counts them.
    public var connections: UInt64?
    /// One entry per second of the load.
    public var series: [LoadSecond] = []
    /// Why the load ended before its schedule did, if it did: interrupted, aborted (a missed `slo`), or the
    /// data file ran out.
    public var stopped: String?
    /// How many shards were merged into this result (1 for a run on its own).
    public var shards: Int = 1
    /// The part of a sharded load this result is (`--shard K/N`): K and N; `nil` for a whole load, and for
    /// the merge of all the shards.
    public var shard: ShardPart?
    /// The step the iterations ran with what it needs (`--scenario`); `nil` for the whole plan. The merge
    /// checks the `slo:` of the same scenario.
    public var scenario: String?

    /// Part K of N of a load.
    public struct ShardPart: Sendable, Equatable, Codable {
        /// K, from 1.
        public var index: Int
        /// N.
        public var count: Int

        /// Part `index` of `count`.
        public init(index: Int, count: Int) {
            self.index = index
            self.count = count
        }
    }

    /// A result with no figures yet.
    public init(plan: String, model: String, target: String, startedAt: Date) {
        self.plan = plan
        self.model = model
        self.target = target
        self.startedAt = startedAt
    }

    /// Iterations ended per second over the measured window.
    public var iterationRate: Double { rate(iteration.runs) }

    /// Requests sent per second over the measured window.
    public var requestRate: Double { rate(requests) }

    /// Requests sent by the iterations counted.
    public var requests: UInt64 { iteration.requests }

    private func rate(_ count: UInt64) -> Double {
        let seconds = measured.seconds
        return seconds > 0 ? Double(count) / seconds : 0
    }

    /// The figures of the step `id`, if it ran.
    public func figures(ofStep id: String) -> LoadFigures? {
        steps.first { $0.id == id }?.figures
    }

    /// The results of several shards of one load as one: figures, histograms and counts added (exact: the
    /// percentiles are those of one run of the same total load, within the histograms' precision); the
    /// windows are the longest shard's, as the shards ran side by side; the series added second by second,
    /// each second's percentiles the highest of the shards' (charts only).
    /// - Returns: `nil` for no result.
    public static func merged(_ results: [LoadResult]) -> LoadResult? {
        guard var merged = results.first else { return nil }
        if let part = merged.shard {
            merged.target =
                merged.target.replacing(", shard \(part.index)/\(part.count)", with: "")
                + ", \(part.count) shards merged"
        }
        merged.shard = nil
        for other in results.dropFirst() {
            merged.startedAt = min(merged.startedAt, other.startedAt)
            merged.elapsed = max(merged.elapsed, other.elapsed)
            merged.measured = max(merged.measured, other.measured)
            merged.iteration.add(other.iteration)
            for step in other.steps {
                if let index = merged.steps.firstIndex(where: { $0.id == step.id }) {
                    merged.steps[index].figures.add(step.figures)
                } else if merged.steps.count < maxSteps {
                    merged.steps.append(step)
                }
            }
            merged.started &+= other.started
            merged.warmUp &+= other.warmUp
            merged.late &+= other.late
            merged.dropped &+= other.dropped
            merged.interrupted &+= other.interrupted
            merged.startDelay.add(other.startDelay)
            if let count = other.connections { merged.connections = (merged.connections ?? 0) &+ count }
            merged.series = mergedSeries(merged.series, other.series)
            merged.stopped = merged.stopped ?? other.stopped
            merged.shards += other.shards
        }
        return merged
    }

    /// Why `results` are not the shards of one load, if they are not: shards of different plans or of a
    /// different count, a shard given twice or missing, a shard with a whole load.
    public static func mergeProblem(_ results: [LoadResult]) -> String? {
        guard let first = results.first else { return "no load result to merge" }
        if let other = results.first(where: { $0.plan != first.plan }) {
            return "results of different plans: `\(first.plan)` and `\(other.plan)`"
        }
        if let other = results.first(where: { $0.scenario != first.scenario }) {
            func named(_ scenario: String?) -> String { scenario.map { "scenario `\($0)`" } ?? "the whole plan" }
            return "results of different scenarios: \(named(first.scenario)) and \(named(other.scenario))"
        }
        if countsOverflow(results) {
            return "their counts add up beyond what can be counted (\(Int64.max)): a report was not written by a load"
        }
        let parts = results.compactMap(\.shard)
        guard !parts.isEmpty else { return nil }
        guard parts.count == results.count else { return "the shards of a load mixed with a whole load" }
        let count = parts[0].count
        if let other = parts.first(where: { $0.count != count }) {
            return "shards of different loads: of \(count) and of \(other.count)"
        }
        var seen = Set<Int>()
        for part in parts where !seen.insert(part.index).inserted {
            return "shard \(part.index)/\(count) given twice"
        }
        let missing = (1...count).filter { !seen.contains($0) }
        if !missing.isEmpty {
            return "shard\(missing.count == 1 ? "" : "s") "
                + missing.prefix(10).map { "\($0)/\(count)" }.joined(separator: ", ") + " missing"
        }
        return nil
    }

    /// Whether some count of `results` (iterations, requests, bytes, a histogram's, a reason's, a second's) adds up
    /// beyond `Int64.max`, the most a report's histogram may hold: a merge would show it wrapped round to a small
    /// number. Each kind is added over every result at once (a reason's counts, a second's, all of them), which
    /// bounds each sum the merge makes; no load comes near.
    static func countsOverflow(_ results: [LoadResult]) -> Bool {
        func overflows<S: Sequence<UInt64>>(_ counts: S) -> Bool {
            var total: UInt64 = 0
            for count in counts {
                let (sum, overflow) = total.addingReportingOverflow(count)
                if overflow || sum > UInt64(Int64.max) { return true }
                total = sum
            }
            return false
        }
        let figures = results.flatMap { [$0.iteration] + $0.steps.map(\.figures) }
        let kinds: [(LoadFigures) -> UInt64] = [\.succeeded, \.failed, \.requests, \.bytes, \.latency.count, \.runs]
        if kinds.contains(where: { kind in overflows(figures.lazy.map(kind)) })
            || overflows(figures.lazy.flatMap(\.errors.values))
        {
            return true
        }
        let counts: [(LoadResult) -> UInt64] = [
            \.started, \.warmUp, \.late, \.dropped, \.interrupted, \.startDelay.count, { $0.connections ?? 0 },
        ]
        if counts.contains(where: { count in overflows(results.lazy.map(count)) }) { return true }
        let seconds = results.lazy.flatMap(\.series)
        return overflows(seconds.map(\.iterations)) || overflows(seconds.map(\.failed))
            || overflows(seconds.map(\.requests))
    }

    private static func mergedSeries(_ left: [LoadSecond], _ right: [LoadSecond]) -> [LoadSecond] {
        var bySecond: [Int: LoadSecond] = [:]
        for entry in left + right {
            guard var existing = bySecond[entry.second] else {
                bySecond[entry.second] = entry
                continue
            }
            existing.iterations &+= entry.iterations
            existing.failed &+= entry.failed
            existing.requests &+= entry.requests
            existing.p50 = Swift.max(existing.p50, entry.p50)
            existing.p90 = Swift.max(existing.p90, entry.p90)
            existing.p99 = Swift.max(existing.p99, entry.p99)
            existing.max = Swift.max(existing.max, entry.max)
            bySecond[entry.second] = existing
        }
        return bySecond.values.sorted { $0.second < $1.second }
    }
}

extension LoadResult: Codable {
    private enum CodingKeys: String, CodingKey {
        case format = "reqplan_load", plan, model, target
        case startedAt = "started_at", elapsedSeconds = "elapsed_s", measuredSeconds = "measured_s"
        case iteration, steps, started, warmUp = "warm_up", late, dropped, interrupted
        case startDelay = "start_delay", connections, series, stopped, shards, shard, scenario
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.formatVersion, forKey: .format)
        try container.encode(plan, forKey: .plan)
        try container.encode(model, forKey: .model)
        try container.encode(target, forKey: .target)
        try container.encode(startedAt.timeIntervalSince1970, forKey: .startedAt)
        try container.encode(elapsed.seconds, forKey: .elapsedSeconds)
        try container.encode(measured.seconds, forKey: .measuredSeconds)
        try container.encode(iteration, forKey: .iteration)
        try container.encode(steps, forKey: .steps)
        try container.encode(started, forKey: .started)
        try container.encode(warmUp, forKey: .warmUp)
        try container.encode(late, forKey: .late)
        try container.encode(dropped, forKey: .dropped)
        try container.encode(interrupted, forKey: .interrupted)
        try container.encode(startDelay, forKey: .startDelay)
        try container.encodeIfPresent(connections, forKey: .connections)
        try container.encode(series, forKey: .series)
        try container.encodeIfPresent(stopped, forKey: .stopped)
        try container.encode(shards, forKey: .shards)
        try container.encodeIfPresent(shard, forKey: .shard)
        try container.encodeIfPresent(scenario, forKey: .scenario)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let format = try container.decode(Int.self, forKey: .format)
        guard format == Self.formatVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .format, in: container,
                debugDescription: "a load result of format \(format): this reqplan reads format \(Self.formatVersion)")
        }
        plan = try container.decode(String.self, forKey: .plan)
        model = try container.decode(String.self, forKey: .model)
        target = try container.decode(String.self, forKey: .target)
        startedAt = Date(timeIntervalSince1970: try Self.seconds(container, .startedAt))
        elapsed = .seconds(try Self.seconds(container, .elapsedSeconds))
        measured = .seconds(try Self.seconds(container, .measuredSeconds))
        iteration = try container.decode(LoadFigures.self, forKey: .iteration)
        steps = try container.decode([StepLoadFigures].self, forKey: .steps)
        try Self.require(steps.count <= Self.maxSteps, .steps, container, "more than \(Self.maxSteps) steps")
        started = try container.decode(UInt64.self, forKey: .started)
        warmUp = try container.decode(UInt64.self, forKey: .warmUp)
        late = try container.decode(UInt64.self, forKey: .late)
        dropped = try container.decode(UInt64.self, forKey: .dropped)
        interrupted = try container.decode(UInt64.self, forKey: .interrupted)
        startDelay = try container.decode(LatencyHistogram.self, forKey: .startDelay)
        connections = try container.decodeIfPresent(UInt64.self, forKey: .connections)
        series = try container.decode([LoadSecond].self, forKey: .series)
        try Self.require(series.count <= Self.maxSeconds, .series, container, "more than \(Self.maxSeconds) seconds")
        stopped = try container.decodeIfPresent(String.self, forKey: .stopped)
        shards = try container.decode(Int.self, forKey: .shards)
        try Self.require((1...100_000).contains(shards), .shards, container, "`shards` is not from 1 to 100000")
        shard = try container.decodeIfPresent(ShardPart.self, forKey: .shard)
        scenario = try container.decodeIfPresent(String.self, forKey: .scenario)
        if let shard {
            try Self.require(
                (1...100_000).contains(shard.count) && (1...shard.count).contains(shard.index), .shard, container,
                "`shard` is not part K of N, 1 ≤ K ≤ N ≤ 100000")
        }
    }

    /// Throws a decoding error at `key` with `message` unless `condition` holds.
    private static func require(
        _ condition: Bool, _ key: CodingKeys, _ container: KeyedDecodingContainer<CodingKeys>, _ message: String
    ) throws {
        guard !condition else { return }
        throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: message)
    }

    /// A count of seconds from the JSON form: finite, from 0 to a year from 1970's or the load's start.
    private static func seconds(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Double {
        let value = try container.decode(Double.self, forKey: key)
        try require(
            value.isFinite && value >= 0 && value < 1e11, key, container,
            "`\(key.stringValue)` is not a count of seconds")
        return value
    }
}
