/// A deterministic random number generator (SplitMix64), so a failing seed reproduces: the random
/// plans of the scheduler's properties, the shuffles of the shard tests and the random schemas of the
/// API validator's properties all draw from it.
public struct SeededGenerator: RandomNumberGenerator {
    /// The generator's state, advanced by every draw.
    public var state: UInt64

    /// A generator whose draws are fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
