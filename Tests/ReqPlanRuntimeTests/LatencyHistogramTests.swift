import Foundation
import ReqPlanRuntime
import ReqPlanTestSupport
import Testing

/// `LatencyHistogram`: percentiles within the histogram's precision of the exact ones, shards that add up to
/// the histogram of the whole, a JSON form that reads back to the same histogram, and a hostile JSON form
/// refused with a reason (the library's own decoding would stop the process on it).
struct LatencyHistogramTests {
    /// Latencies drawn from a known distribution: 1 ms to 2 s, log-uniform, seeded.
    static func latencies(_ count: Int, seed: UInt64 = 7) -> [Duration] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            .microseconds(Int64(pow(10, Double.random(in: 3...6.3, using: &generator))))
        }
    }

    @Test func percentilesAreWithinATenthOfAPercentOfTheExactOnes() {
        let values = Self.latencies(100_000)
        var histogram = LatencyHistogram()
        for value in values { histogram.record(value) }
        let sorted = values.sorted()
        #expect(histogram.count == 100_000)
        for percentile in [50.0, 90, 95, 99, 99.9, 100] {
            let index = Swift.max(Int((percentile / 100 * Double(sorted.count)).rounded(.up)) - 1, 0)
            let exact =
                Double(sorted[index].components.attoseconds) / 1e12
                + Double(sorted[index].components.seconds) * 1e6
            let got =
                Double(histogram.latency(atPercentile: percentile).components.attoseconds) / 1e12
                + Double(histogram.latency(atPercentile: percentile).components.seconds) * 1e6
            #expect(abs(got - exact) / exact <= 0.001, "p\(percentile): \(got) µs, exactly \(exact) µs")
        }
    }

    @Test func shardsAddUpToTheHistogramOfTheWhole() {
        let values = Self.latencies(40_000, seed: 11)
        var whole = LatencyHistogram()
        var shards = Array(repeating: LatencyHistogram(), count: 4)
        for (index, value) in values.enumerated() {
            whole.record(value)
            shards[index % 4].record(value)
        }
        var merged = LatencyHistogram()
        for shard in shards { merged.add(shard) }
        #expect(merged == whole)
        for percentile in [50.0, 99, 99.9] {
            #expect(merged.latency(atPercentile: percentile) == whole.latency(atPercentile: percentile))
        }
    }

    @Test func theJSONFormReadsBackToTheSameHistogramAndIsSparse() throws {
        var histogram = LatencyHistogram()
        for value in Self.latencies(50_000, seed: 3) { histogram.record(value) }
        histogram.record(.seconds(-5))  // below a microsecond: one
        histogram.record(.seconds(Int64.max))  // beyond an hour: an hour, no overflow
        let data = try JSONEncoder().encode(histogram)
        let read = try JSONDecoder().decode(LatencyHistogram.self, from: data)
        #expect(read == histogram)
        #expect(read.max == .seconds(3600))
        // One pair per bucket that holds values, not the histogram's whole array of counts: a million equal
        // latencies are one pair.
        var same = LatencyHistogram()
        same.record(.milliseconds(50), times: 1_000_000)
        let small = try JSONEncoder().encode(same)
        #expect(small.count < 120, "\(String(decoding: small, as: UTF8.self))")
        let back = try JSONDecoder().decode(LatencyHistogram.self, from: small)
        #expect(back == same, "\(back.buckets) \(same.buckets)")
        #expect(
            back.latency(atPercentile: 99) == same.latency(atPercentile: 99),
            "\(back.latency(atPercentile: 99)) \(same.latency(atPercentile: 99)) \(String(decoding: small, as: UTF8.self))"
        )
    }

    @Test(arguments: [
        #"{"unit":"us","significant_digits":3,"highest":3600000000,"buckets":[[0,1]]}"#,
        #"{"unit":"us","significant_digits":3,"highest":3600000000,"buckets":[[3600000001,1]]}"#,
        #"{"unit":"us","significant_digits":3,"highest":3600000000,"buckets":[[5,0]]}"#,
        #"{"unit":"us","significant_digits":3,"highest":3600000000,"buckets":[[5,1,2]]}"#,
        #"{"unit":"us","significant_digits":3,"highest":3600000000,"buckets":[[5,9223372036854775807],[6,2]]}"#,
        #"{"unit":"us","significant_digits":3,"highest":3600000000,"buckets":[[5,-1]]}"#,
        #"{"unit":"ns","significant_digits":3,"highest":3600000000,"buckets":[]}"#,
        #"{"unit":"us","significant_digits":5,"highest":3600000000,"buckets":[]}"#,
        #"{"unit":"us","significant_digits":3,"highest":18446744073709551615,"buckets":[]}"#,
        #"{"unit":"us","significant_digits":3,"highest":3600000000,"buckets":[[1e300,1]]}"#,
    ])
    func aHostileFormIsRefusedWithAReason(text: String) {
        #expect(throws: (any Error).self) { try JSONDecoder().decode(LatencyHistogram.self, from: Data(text.utf8)) }
    }
}
