import Synchronization

/// Hands out the rows of a data file (their indexes, `0..<rowCount`) to the iterations of a load, which ask for
/// them from many tasks at once: in the file's order or at random, each row once or over and over.
///
/// - `.sequential`: row 0, 1, 2, …; with `.cycle`, row 0 again after the last.
/// - `.random(seed:)` with `.cycle`: a row drawn uniformly for each iteration (rows repeat, as with dice); with
///   `.once`, a shuffled order of all the rows (a permutation, drawn when the feed is made), each row once.
/// - `.once`: `next()` returns nil once every row has been handed out, which ends the load.
///
/// Random draws come from `SplitMix64` seeded with `seed`, and a draw below *n* is Lemire's multiply-and-reject
/// (`SplitMix64.uniform(below:)`), both written out here, so a seed gives the same rows in the same order on
/// every machine and Swift version. Without a seed, one is drawn from the system's generator and kept in `seed`,
/// so that a run can print it and be repeated.
///
/// Which iteration gets which row, when many ask at once, is up to the scheduler; the sequence of rows handed
/// out is the seed's. Safe to share between tasks: one lock, held for O(1) per `next()`.
public final class DataFeed: Sendable {
    /// The order rows are handed out in.
    public enum Order: Sendable, Hashable {
        /// The file's order.
        case sequential
        /// Drawn at random from `SplitMix64` seeded with the seed; nil: a seed drawn from the system's generator.
        case random(seed: UInt64?)
    }

    /// How often a row is handed out.
    public enum Reuse: Sendable, Hashable {
        /// Over and over: after the last row (in `.sequential` order) the first again; at random, every draw
        /// from every row.
        case cycle
        /// Each row once; then `next()` returns nil.
        case once
    }

    /// How many rows there are.
    public let rowCount: Int
    /// The order given.
    public let order: Order
    /// The reuse given.
    public let reuse: Reuse
    /// The seed of a random order, given or drawn (print it to hand out the same rows again); nil when
    /// sequential.
    public let seed: UInt64?

    private struct State {
        /// Rows handed out so far (`.once`), or the next row (`.sequential`, `.cycle`).
        var position = 0
        var generator: SplitMix64
        /// The shuffled rows of `.random` and `.once`; empty otherwise.
        var permutation: [Int] = []
    }

    private let state: Mutex<State>

    /// A feed of `rowCount` rows (none when it is 0 or less: `next()` returns nil at once).
    /// - Complexity: O(`rowCount`) for a random order with `.once` (the permutation is drawn here), else O(1).
    public init(rowCount: Int, order: Order, reuse: Reuse) {
        self.rowCount = max(0, rowCount)
        self.order = order
        self.reuse = reuse
        var state: State
        switch order {
        case .sequential:
            seed = nil
            state = State(generator: SplitMix64(seed: 0))
        case .random(let given):
            var system = SystemRandomNumberGenerator()
            let seed = given ?? system.next()
            self.seed = seed
            state = State(generator: SplitMix64(seed: seed))
            if reuse == .once {
                // Fisher–Yates, from the last position down.
                var permutation = Array(0..<self.rowCount)
                var position = permutation.count - 1
                while position > 0 {
                    let other = Int(state.generator.uniform(below: UInt64(position + 1)))
                    permutation.swapAt(position, other)
                    position -= 1
                }
                state.permutation = permutation
            }
        }
        self.state = Mutex(state)
    }

    /// The next row's index, or nil when there is none left (`.once`, every row handed out; or no rows).
    /// - Complexity: O(1).
    public func next() -> Int? {
        let count = rowCount
        guard count > 0 else { return nil }
        let order = order
        let reuse = reuse
        return state.withLock { state -> Int? in
            switch (order, reuse) {
            case (.sequential, .cycle):
                let row = state.position
                state.position = row + 1 == count ? 0 : row + 1
                return row
            case (.sequential, .once):
                guard state.position < count else { return nil }
                defer { state.position += 1 }
                return state.position
            case (.random, .cycle):
                return Int(state.generator.uniform(below: UInt64(count)))
            case (.random, .once):
                guard state.position < count else { return nil }
                defer { state.position += 1 }
                return state.permutation[state.position]
            }
        }
    }
}

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014; the constants of
/// Vigna's `splitmix64.c`): a 64-bit state advanced by a fixed odd increment, each output a mix of it. Small and
/// fast, and enough to spread rows; not for secrets.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The state, advanced by every draw.
    public private(set) var state: UInt64

    /// A generator whose draws are fixed by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A number drawn uniformly from `0..<bound` (`bound` > 0; 0 gives 0): Lemire's multiply-and-reject ("Fast
    /// random integer generation in an interval", 2019): the high half of a draw times `bound`, drawn again while
    /// the low half falls in the few values that would favour some results.
    public mutating func uniform(below bound: UInt64) -> UInt64 {
        guard bound > 0 else { return 0 }
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold { product = next().multipliedFullWidth(by: bound) }
        }
        return product.high
    }
}
