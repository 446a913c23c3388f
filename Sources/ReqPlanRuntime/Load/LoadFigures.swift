import Foundation

/// What a load measured of one subject: one step, or the whole iteration. Figures of the same subject add
/// exactly (`add`), so the shards of a load merge into the figures of one run.
public struct LoadFigures: Sendable, Equatable {
    /// How long each run of the subject took: a step from its start to its end (retries and the wait for a
    /// concurrency slot or a connection included); an iteration, in the open model, from when it was due to
    /// start, so a server that stalls the test cannot hide its own latency (coordinated omission).
    public var latency = LatencyHistogram()
    /// Runs that succeeded.
    public var succeeded: UInt64 = 0
    /// Runs that failed (a transport error, a timeout, an unmet `expect`…); an iteration fails when its plan
    /// run would.
    public var failed: UInt64 = 0
    /// Requests sent, retries included.
    public var requests: UInt64 = 0
    /// Bytes of response bodies received.
    public var bytes: UInt64 = 0
    /// Why runs failed: each reason (the step's failure kind and message, secrets hidden) and how often, the
    /// most common first once the figures are read; at most `maxReasons` reasons, the rest counted as one.
    public var errors: [String: UInt64] = [:]

    /// The most distinct failure reasons kept per subject; later ones are counted under `otherReasons`.
    public static let maxReasons = 50
    /// The reason that stands for those beyond `maxReasons`.
    public static let otherReasons = "(other reasons)"

    /// No figures.
    public init() {}

    /// The runs counted: succeeded and failed.
    public var runs: UInt64 { succeeded &+ failed }

    /// The share of runs that failed (0…1); 0 with no run.
    public var errorRate: Double { runs == 0 ? 0 : Double(failed) / Double(runs) }

    /// Counts a failure for `reason`.
    mutating func countError(_ reason: String) {
        if errors[reason] != nil || errors.count < Self.maxReasons {
            errors[reason, default: 0] &+= 1
        } else {
            errors[Self.otherReasons, default: 0] &+= 1
        }
    }

    /// Adds every figure of `other`.
    public mutating func add(_ other: LoadFigures) {
        latency.add(other.latency)
        succeeded &+= other.succeeded
        failed &+= other.failed
        requests &+= other.requests
        bytes &+= other.bytes
        for (reason, count) in other.errors {
            if errors[reason] != nil || errors.count < Self.maxReasons {
                errors[reason, default: 0] &+= count
            } else {
                errors[Self.otherReasons, default: 0] &+= count
            }
        }
    }

    /// The failure reasons, the most common first (then by text, so the order is the same every time).
    public var errorsByCount: [(reason: String, count: UInt64)] {
        errors.map { ($0.key, $0.value) }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
    }
}

extension LoadFigures: Codable {
    private enum CodingKeys: String, CodingKey {
        case latency, succeeded, failed, requests, bytes, errors
    }

    private struct ErrorCount: Codable {
        var reason: String
        var count: UInt64
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(latency, forKey: .latency)
        try container.encode(succeeded, forKey: .succeeded)
        try container.encode(failed, forKey: .failed)
        try container.encode(requests, forKey: .requests)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(errorsByCount.map { ErrorCount(reason: $0.reason, count: $0.count) }, forKey: .errors)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        latency = try container.decode(LatencyHistogram.self, forKey: .latency)
        succeeded = try container.decode(UInt64.self, forKey: .succeeded)
        failed = try container.decode(UInt64.self, forKey: .failed)
        requests = try container.decode(UInt64.self, forKey: .requests)
        bytes = try container.decode(UInt64.self, forKey: .bytes)
        for entry in try container.decode([ErrorCount].self, forKey: .errors) {
            if errors[entry.reason] != nil || errors.count < Self.maxReasons {
                errors[entry.reason, default: 0] &+= entry.count
            } else {
                errors[Self.otherReasons, default: 0] &+= entry.count
            }
        }
    }
}

/// A step's figures, by its id.
public struct StepLoadFigures: Sendable, Equatable, Codable {
    /// The step's id (a sub-plan's step by its path).
    public var id: String
    /// Its figures.
    public var figures: LoadFigures

    /// A step's figures.
    public init(id: String, figures: LoadFigures) {
        self.id = id
        self.figures = figures
    }
}

/// One second of a load, for charts of latency and rate over time: the iterations that ended in it.
public struct LoadSecond: Sendable, Equatable, Codable {
    /// The second, from the start of the load (warm-up included).
    public var second: Int
    /// Iterations that ended in it.
    public var iterations: UInt64
    /// Those that failed.
    public var failed: UInt64
    /// Requests sent by them.
    public var requests: UInt64
    /// Their latency percentiles and longest, in microseconds.
    public var p50: UInt64
    public var p90: UInt64
    public var p99: UInt64
    public var max: UInt64

    /// A second's figures.
    public init(
        second: Int, iterations: UInt64, failed: UInt64, requests: UInt64, p50: UInt64, p90: UInt64, p99: UInt64,
        max: UInt64
    ) {
        self.second = second
        self.iterations = iterations
        self.failed = failed
        self.requests = requests
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.max = max
    }
}
