import Histogram

/// Latencies as an HdrHistogram (hdrhistogram-swift): microseconds from 1 µs to one hour, to three significant
/// digits (a value is told apart from another 0.1 % away). Histograms of the same kind add exactly, so the
/// shards of a load merge into the figures of one run of the same total load.
///
/// Its JSON form (`Codable`) is lossless and sparse: one `[value, count]` pair per bucket that holds values,
/// the value the bucket's lowest equivalent; recording each pair again gives the same buckets and counts. A
/// decoded form is checked (values within the range, counts that do not overflow), never trusted: the
/// library's own `Codable` form is not read, as its preconditions would stop the process on hostile input.
public struct LatencyHistogram: Sendable {
    /// The highest latency kept, in microseconds (one hour); a longer one is counted as this.
    public static let highest: UInt64 = 3_600_000_000

    private var histogram = Histogram<UInt64>(
        lowestDiscernibleValue: 1, highestTrackableValue: highest, numberOfSignificantValueDigits: .three)

    /// An empty histogram.
    public init() {}

    /// The most buckets a histogram of this kind has: a JSON form with more is refused.
    static let maxBuckets = 32_768

    /// How many latencies it holds.
    public var count: UInt64 { histogram.totalCount }

    /// Records `latency`, `times` times: below a microsecond as one, beyond an hour as an hour.
    public mutating func record(_ latency: Duration, times: UInt64 = 1) {
        guard times > 0 else { return }
        _ = histogram.record(Self.microseconds(latency), count: times)
    }

    /// Adds every latency of `other`.
    public mutating func add(_ other: LatencyHistogram) {
        histogram.add(other.histogram)
    }

    /// The latency at or below which `percentile` percent of those recorded are (0…100); zero when empty.
    public func latency(atPercentile percentile: Double) -> Duration {
        guard count > 0, percentile.isFinite else { return .zero }
        return .microseconds(Int64(histogram.valueAtPercentile(Swift.min(Swift.max(percentile, 0), 100))))
    }

    /// The longest latency recorded (the highest value of its bucket, at most an hour); zero when empty.
    public var max: Duration { count > 0 ? .microseconds(Int64(Swift.min(histogram.max, Self.highest))) : .zero }

    /// The mean latency (from the buckets, each value its bucket's middle); zero when empty.
    public var mean: Duration {
        let micros = histogram.mean
        guard count > 0, micros.isFinite else { return .zero }
        return .nanoseconds(Int64(Swift.min(Swift.max(micros, 0), Double(Self.highest)) * 1000))
    }

    /// The buckets that hold values: each one's lowest value, in microseconds, and its count, in order.
    public var buckets: [(microseconds: UInt64, count: UInt64)] {
        histogram.recordedValues().map { (histogram.lowestEquivalentForValue($0.value), $0.count) }
    }

    /// `latency` in whole microseconds, within 1…`highest`.
    static func microseconds(_ latency: Duration) -> UInt64 {
        let (seconds, attoseconds) = latency.components
        guard seconds >= 0 else { return 1 }
        guard seconds < Int64(highest / 1_000_000) else { return highest }
        let micros = UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000)
        return Swift.min(Swift.max(micros, 1), highest)
    }
}

extension LatencyHistogram: Equatable {
    public static func == (lhs: LatencyHistogram, rhs: LatencyHistogram) -> Bool {
        lhs.count == rhs.count && lhs.buckets.elementsEqual(rhs.buckets) { $0 == $1 }
    }
}

extension LatencyHistogram: Codable {
    private enum CodingKeys: String, CodingKey {
        case unit, significantDigits = "significant_digits", highest, min, max, buckets
    }

    /// Why a histogram's JSON form cannot be read.
    public struct FormError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("us", forKey: .unit)
        try container.encode(3, forKey: .significantDigits)
        try container.encode(Self.highest, forKey: .highest)
        // The exact extremes: percentiles at the ends are read from them, not from their buckets.
        if count > 0 {
            try container.encode(histogram.minNonZero, forKey: .min)
            try container.encode(histogram.maxRecorded, forKey: .max)
        }
        try container.encode(buckets.map { [$0.microseconds, $0.count] }, forKey: .buckets)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let unit = try container.decode(String.self, forKey: .unit)
        let digits = try container.decode(Int.self, forKey: .significantDigits)
        let highest = try container.decode(UInt64.self, forKey: .highest)
        guard unit == "us", digits == 3, highest == Self.highest else {
            throw FormError(
                description: "a latency histogram of another kind (\(unit), \(digits) digits, up to \(highest)): "
                    + "only `us`, 3 digits, up to \(Self.highest) is read")
        }
        // Read pair by pair, so a form with more pairs than a histogram has buckets stops at the first extra.
        var list = try container.nestedUnkeyedContainer(forKey: .buckets)
        var pairs: [[UInt64]] = []
        while !list.isAtEnd {
            guard pairs.count < Self.maxBuckets else {
                throw FormError(description: "more buckets than a histogram of this kind has (\(Self.maxBuckets))")
            }
            pairs.append(try list.decode([UInt64].self))
        }
        self.init()
        let low = try container.decodeIfPresent(UInt64.self, forKey: .min)
        let high = try container.decodeIfPresent(UInt64.self, forKey: .max)
        var total: UInt64 = 0
        for pair in pairs {
            guard pair.count == 2, (1...Self.highest).contains(pair[0]), pair[1] > 0 else {
                throw FormError(description: "a bucket is not `[microseconds 1…\(Self.highest), count ≥ 1]`")
            }
            let (sum, overflow) = total.addingReportingOverflow(pair[1])
            guard !overflow, sum <= UInt64(Int64.max) else {
                throw FormError(description: "the histogram's counts add up beyond what can be counted")
            }
            total = sum
            // The bucket's values again: the extremes exactly where they fall, the rest anywhere in it.
            let range = histogram.equivalentRangeForValue(pair[0])
            var rest = pair[1]
            if let high, range.contains(high) {
                _ = histogram.record(high, count: 1)
                rest -= 1
            }
            if rest > 0 {
                let value =
                    low.flatMap { range.contains($0) ? $0 : nil } ?? high.flatMap { range.contains($0) ? $0 : nil }
                _ = histogram.record(value ?? pair[0], count: rest)
            }
        }
        guard pairs.isEmpty || (low == histogram.minNonZero && high == histogram.maxRecorded) else {
            throw FormError(description: "the histogram's `min` and `max` are not in its first and last buckets")
        }
    }
}
