import Foundation
import ReqPlanSyntax
import ReqPlanTransport
import Testing

@testable import ReqPlanRuntime

/// The arithmetic of `reqplan load`'s schedules, shards, figures and reports.
struct LoadScheduleTests {
    /// At a constant rate `r`, iteration `n` is due at `n / r`, and the schedule ends with its duration.
    @Test func aConstantRateDuesIterationNAtNOverR() throws {
        let schedule = ArrivalSchedule(rate: 500, duration: .seconds(2))
        #expect(schedule.offset(of: 0) == .zero)
        for n: UInt64 in [1, 7, 250, 999] {
            let offset = try #require(schedule.offset(of: n))
            #expect(abs(offset.seconds - Double(n) / 500) < 1e-9)
        }
        #expect(schedule.offset(of: 1000) == nil, "1000 iterations fill 2 s at 500/s")
        #expect(schedule.count(within: .seconds(2)) == 1000)
        #expect(schedule.count(within: .milliseconds(500)) == 250)
    }

    /// A ramp from 0 to `r` over `D` dues iteration `n` where `r·t²/(2D) = n`; a ramp down mirrors it, and the
    /// iterations of the stages add up.
    @Test func aRampDuesIterationsWhereTheIntegralOfTheRateReachesThem() throws {
        let schedule = ArrivalSchedule(
            initialRate: 0,
            stages: [LoadStage(duration: .seconds(2), target: 400), LoadStage(duration: .seconds(1), target: 0)])
        #expect(schedule.count(within: .seconds(3)) == 600)
        for n: UInt64 in [1, 100, 399] {
            let offset = try #require(schedule.offset(of: n)).seconds
            #expect(abs(offset - (2 * 2 * Double(n) / 400).squareRoot()) < 1e-9, "n = \(n)")
        }
        // The ramp down: 400 − 200·t² over its second; iteration 500 is where 100 of its 200 are due.
        let down = try #require(schedule.offset(of: 500)).seconds - 2
        #expect(abs(400 * down - 200 * down * down - 100) < 1e-6)
        #expect(schedule.offset(of: 600) == nil)
        var previous = -1.0
        for n in stride(from: UInt64(0), to: 600, by: 7) {
            let offset = try #require(schedule.offset(of: n)).seconds
            #expect(offset >= previous)
            previous = offset
        }
    }

    /// Users move in straight lines between stages, and nobody runs after the end.
    @Test func usersMoveInStraightLinesBetweenStages() {
        let users = UserSchedule(
            initialUsers: 0,
            stages: [LoadStage(duration: .seconds(10), target: 20), LoadStage(duration: .seconds(10), target: 20)])
        #expect(users.users(at: .zero) == 0)
        #expect(users.users(at: .seconds(5)) == 10)
        #expect(users.users(at: .seconds(15)) == 20)
        #expect(users.users(at: .seconds(20)) == 0)
        #expect(users.peak == 20)
    }

    /// The shards of a load add up to it: the rates to the rate, the users to the users, the iterations to
    /// the iterations, whatever the remainder.
    @Test(arguments: [1, 2, 3, 7])
    func theShardsOfALoadAddUpToIt(count: Int) {
        let open = LoadProfile(model: .open(ArrivalSchedule(rate: 1000, duration: .seconds(10))), iterations: 10_001)
        let closed = LoadProfile(model: .closed(UserSchedule(users: 50, duration: .seconds(10)), think: .zero))
        var rates = 0.0
        var iterations: UInt64 = 0
        var users = 0
        for index in 1...count {
            if case .open(let schedule) = open.shard(index: index, count: count).model {
                rates += schedule.initialRate
            }
            iterations += open.shard(index: index, count: count).iterations ?? 0
            if case .closed(let part, _) = closed.shard(index: index, count: count).model {
                users += part.initialUsers
            }
        }
        #expect(abs(rates - 1000) < 1e-9)
        #expect(iterations == 10_001)
        #expect(users == 50)
    }

    /// Rates and stages as the command line gives them; hostile numbers are refused with a reason, never a
    /// trap.
    @Test func ratesAndStagesAreReadAndHostileOnesRefused() throws {
        #expect(try LoadRate.parse("500/s").get() == 500)
        #expect(try LoadRate.parse("30000/m").get() == 500)
        #expect(try LoadRate.parse("3600/h").get() == 1)
        #expect(try LoadRate.parse("0.5/s").get() == 0.5)
        for hostile in [
            "0/s", "-1/s", "1e300/s", "nan/s", "inf/s", "18446744073709551615/s", "99999999999999999999999/s",
            "500", "500/d", "/s", "", "5 /s", "1e3/s", "0x10/s",
        ] {
            #expect(throws: LoadSettingError.self, "\(hostile)") { try LoadRate.parse(hostile).get() }
        }
        #expect(try LoadStage.parse("30s:500/s", rate: true).get() == LoadStage(duration: .seconds(30), target: 500))
        #expect(try LoadStage.parse("1m:0/s", rate: true).get().target == 0)
        #expect(try LoadStage.parse("1m:50", rate: false).get() == LoadStage(duration: .seconds(60), target: 50))
        for hostile in ["0s:5/s", "5s", ":5/s", "5s:", "9999999999h:5/s", "5s:-1", "5s:100001", "5s:1e3"] {
            #expect(throws: LoadSettingError.self, "\(hostile)") {
                try LoadStage.parse(hostile, rate: !hostile.hasSuffix("1") && hostile.contains("/")).get()
            }
        }
    }

    // MARK: Figures

    /// The shards' histograms add exactly: the merge of three results holds the same buckets, percentiles and
    /// counts as one result that recorded every latency itself.
    @Test func mergedShardsEqualOneRunOfTheWholeLoad() throws {
        var generator = SystemRandomNumberGenerator()
        var whole = LoadResult(plan: "p.yaml", model: "open", target: "300/s", startedAt: Date())
        var parts = (1...3).map { index in
            var part = LoadResult(plan: "p.yaml", model: "open", target: "100/s, shard \(index)/3", startedAt: Date())
            part.shard = LoadResult.ShardPart(index: index, count: 3)
            return part
        }
        for sample in 0..<30_000 {
            // A long-tailed latency: mostly milliseconds, a few seconds.
            let micros = Int64.random(in: 200...5_000, using: &generator) * (sample % 97 == 0 ? 1000 : 1)
            let failed = sample % 53 == 0
            for index in [sample % 3] {
                for result in [0, 1] {
                    var figures = result == 0 ? whole.iteration : parts[index].iteration
                    figures.latency.record(.microseconds(micros))
                    if failed {
                        figures.failed += 1
                        figures.countError("expectation: status 503")
                    } else {
                        figures.succeeded += 1
                    }
                    if result == 0 { whole.iteration = figures } else { parts[index].iteration = figures }
                }
            }
        }
        let merged = try #require(LoadResult.merged(parts))
        #expect(LoadResult.mergeProblem(parts) == nil)
        #expect(merged.iteration == whole.iteration)
        for percentile in [50.0, 90, 95, 99, 99.9, 100] {
            #expect(
                merged.iteration.latency.latency(atPercentile: percentile)
                    == whole.iteration.latency.latency(atPercentile: percentile))
        }
        #expect(merged.shards == 3 && merged.shard == nil)
        #expect(merged.target == "100/s, 3 shards merged")
        #expect(LoadResult.mergeProblem([parts[0], parts[0], parts[2]]) == "shard 1/3 given twice")
        #expect(LoadResult.mergeProblem([parts[0], parts[2]]) == "shard 2/3 missing")
        var other = parts[1]
        other.plan = "q.yaml"
        #expect(LoadResult.mergeProblem([parts[0], other, parts[2]])?.hasPrefix("results of different plans") == true)
        var narrowed = parts[1]
        narrowed.scenario = "checkout"
        #expect(
            LoadResult.mergeProblem([parts[0], narrowed, parts[2]])
                == "results of different scenarios: the whole plan and scenario `checkout`")
    }

    /// A result's JSON form reads back equal, and forms that would hold too much are refused.
    @Test func aResultReadsBackEqualAndHostileFormsAreRefused() throws {
        var result = LoadResult(
            plan: "p.yaml", model: "closed", target: "4 users", startedAt: Date(timeIntervalSince1970: 1e9))
        result.elapsed = .milliseconds(2500)
        result.measured = .seconds(2)
        for micros in [150, 151, 90_000, 3_000_000] { result.iteration.latency.record(.microseconds(micros)) }
        result.iteration.succeeded = 4
        result.steps = [StepLoadFigures(id: "login", figures: result.iteration)]
        result.series = [
            LoadSecond(
                second: 0, iterations: 4, failed: 0, requests: 4, p50: 151, p90: 3_000_000, p99: 3_000_000,
                max: 3_000_000)
        ]
        result.connections = 4
        result.scenario = "checkout"
        let data = try JSONEncoder().encode(result)
        let read = try JSONDecoder().decode(LoadResult.self, from: data)
        #expect(read == result)

        let text = String(decoding: data, as: UTF8.self)
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let steps = try #require(object["steps"] as? [Any])
        object["steps"] = Array(repeating: steps[0], count: LoadResult.maxSteps + 1)
        let tooManySteps = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(LoadResult.self, from: tooManySteps) }
        object["steps"] = steps
        object["series"] = Array(repeating: try #require(object["series"] as? [Any])[0], count: 3)
        #expect(throws: Never.self) {
            try JSONDecoder().decode(LoadResult.self, from: try JSONSerialization.data(withJSONObject: object))
        }
        for (field, hostile) in [
            (#""elapsed_s":2.5"#, #""elapsed_s":1e300"#), (#""elapsed_s":2.5"#, #""elapsed_s":-1"#),
            (#""shards":1"#, #""shards":0"#), (#""reqplan_load":1"#, #""reqplan_load":2"#),
        ] {
            let changed = text.replacing(field, with: hostile)
            #expect(changed != text, "\(field) is in the form")
            #expect(throws: (any Error).self, "\(hostile)") {
                try JSONDecoder().decode(LoadResult.self, from: Data(changed.utf8))
            }
        }
    }

    /// A histogram's JSON form with more pairs than such a histogram has buckets is refused at the first extra
    /// one, before the rest is held.
    @Test func aHistogramFormWithMoreBucketsThanItCanHaveIsRefused() {
        let pairs = Array(repeating: "[5,1]", count: LatencyHistogram.maxBuckets + 1).joined(separator: ",")
        let text =
            #"{"unit":"us","significant_digits":3,"highest":3600000000,"min":5,"max":5,"buckets":["#
            + pairs + "]}"
        #expect(throws: LatencyHistogram.FormError.self) {
            try JSONDecoder().decode(LatencyHistogram.self, from: Data(text.utf8))
        }
    }

    /// Failure reasons are kept up to a bound, the rest counted together: a server that puts a new id in
    /// every error message cannot grow the figures without end.
    @Test func failureReasonsAreBounded() {
        var figures = LoadFigures()
        for index in 0..<10_000 { figures.countError("expectation: id \(index) not found") }
        #expect(figures.errors.count == LoadFigures.maxReasons + 1)
        #expect(figures.errors[LoadFigures.otherReasons] == UInt64(10_000 - LoadFigures.maxReasons))
    }

    // MARK: Objectives

    /// Each limit is checked against its subject's figures; a step that never ran misses its limits.
    @Test func objectivesAreCheckedAgainstTheFigures() throws {
        let here = SourceRange(start: SourceLocation(line: 1, column: 1), length: 1)
        func limit(
            _ key: String, _ measure: ServiceLevelObjective.Limit.Measure, latency: Int? = nil, fraction: Double? = nil,
            _ comparison: ServiceLevelObjective.Limit.Comparison = .atMost
        ) -> ServiceLevelObjective.Limit {
            ServiceLevelObjective.Limit(
                measure: measure, comparison: comparison, latency: latency.map { PlanDuration(milliseconds: $0) },
                fraction: fraction, key: Located(key, at: here), text: Located("", at: here))
        }
        var result = LoadResult(plan: "p.yaml", model: "open", target: "", startedAt: Date())
        var checkout = LoadFigures()
        for millis in 1...100 { checkout.latency.record(.milliseconds(millis)) }
        checkout.succeeded = 99
        checkout.failed = 1
        result.steps = [StepLoadFigures(id: "checkout", figures: checkout)]
        result.iteration = checkout
        let objectives = [
            ServiceLevelObjective(
                subject: .step(Located("checkout", at: here)),
                limits: [
                    limit("p95", .percentile(95), latency: 100), limit("p50", .percentile(50), latency: 40),
                    limit("error_rate", .errorRate, fraction: 0.01),
                    limit("error_rate", .errorRate, fraction: 0.01, .lessThan),
                ], range: here),
            ServiceLevelObjective(
                subject: .step(Located("never", at: here)), limits: [limit("max", .max, latency: 1000)], range: here),
            ServiceLevelObjective(subject: .iteration, limits: [limit("mean", .mean, latency: 60)], range: here),
        ]
        let outcomes = ObjectiveCheck.check(objectives, against: result)
        #expect(outcomes.map(\.met) == [true, false, true, false, false, true])
        #expect(outcomes[1].summary == "p50 of step `checkout`: 50.01ms (limit <= 40ms)")
        #expect(outcomes[4].summary == "max of step `never`: it never ran")
        #expect(outcomes[1].diagnostic(file: "p.yaml")?.code == .objectiveMissed)
        #expect(outcomes[0].diagnostic(file: "p.yaml") == nil)
    }
}

/// The open model's lanes (`OpenLanes`), with a stand-in repeater that is never run: these are scheduling
/// properties only, the lanes' own bookkeeping.
struct OpenLanesTests {
    /// Never run: `offer` and `connected` do not touch the repeater.
    private struct NeverRunRepeaterStandIn: RequestRepeater {
        var repeats: Bool { true }
        func run(
            start: @escaping @Sendable (any RepeatWaker) -> RepeatStart, connected: @escaping @Sendable () -> Void,
            finished: @escaping @Sendable (TransportResponse) -> RepeatStep
        ) async -> RepeatEnd { .stopped }
    }

    /// With no lane waiting, each iteration due starts a lane, until `maxConnecting` of them are opening their
    /// connection: the iterations due after that wait in the queue, and a lane that connects makes room for one more.
    @Test func lanesOpeningAConnectionAreCappedAndWhatIsDueWaitsForThem() {
        let lanes = OpenLanes(NeverRunRepeaterStandIn())
        let now = ContinuousClock.now
        let started = (0..<100).filter { n in
            lanes.offer(OpenLanes.Due(ticket: UInt64(n), due: now, counted: true))
        }
        #expect(started.count == OpenLanes.maxConnecting)
        #expect(lanes.hasDue && lanes.untaken().count == 100, "nothing due is dropped")
        lanes.connected()
        #expect(lanes.offer(OpenLanes.Due(ticket: 100, due: now, counted: true)))
        #expect(!lanes.offer(OpenLanes.Due(ticket: 101, due: now, counted: true)))
        #expect(lanes.untaken().map(\.ticket) == Array(0...101), "in the order they came due")
    }
}
