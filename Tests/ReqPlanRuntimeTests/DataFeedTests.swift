import ReqPlanRuntime
import Testing

/// `DataFeed`, which hands rows to a load's iterations: in order or at random (seeded, reproducible), once or
/// cycled, from many tasks at once.
@Suite struct DataFeedTests {
    static func drain(_ feed: DataFeed, upTo limit: Int = 1_000_000) -> [Int] {
        var rows: [Int] = []
        while rows.count < limit, let row = feed.next() { rows.append(row) }
        return rows
    }

    @Test func sequentialRowsComeInTheFilesOrderAndCycle() {
        #expect(Self.drain(DataFeed(rowCount: 3, order: .sequential, reuse: .cycle), upTo: 7) == [0, 1, 2, 0, 1, 2, 0])
        #expect(Self.drain(DataFeed(rowCount: 3, order: .sequential, reuse: .once)) == [0, 1, 2])
        let feed = DataFeed(rowCount: 1, order: .sequential, reuse: .once)
        #expect(feed.next() == 0)
        #expect(feed.next() == nil)
        #expect(feed.next() == nil)
        #expect(feed.seed == nil)
    }

    @Test func noRowsEndAtOnce() {
        for order in [DataFeed.Order.sequential, .random(seed: 1)] {
            for reuse in [DataFeed.Reuse.cycle, .once] {
                #expect(DataFeed(rowCount: 0, order: order, reuse: reuse).next() == nil)
                #expect(DataFeed(rowCount: -5, order: order, reuse: reuse).next() == nil)
            }
        }
    }

    /// Random and once: a permutation of every row, the same for the same seed.
    @Test func randomOnceIsAShuffleOfEveryRowThatASeedRepeats() {
        let first = Self.drain(DataFeed(rowCount: 1_000, order: .random(seed: 42), reuse: .once))
        #expect(first.sorted() == Array(0..<1_000))
        #expect(first != Array(0..<1_000))
        #expect(Self.drain(DataFeed(rowCount: 1_000, order: .random(seed: 42), reuse: .once)) == first)
        #expect(Self.drain(DataFeed(rowCount: 1_000, order: .random(seed: 43), reuse: .once)) != first)
    }

    /// Random and cycled: independent draws, every row as likely, the same for the same seed.
    @Test func randomCycleDrawsEveryRowAboutAsOftenAndASeedRepeatsThem() {
        let feed = DataFeed(rowCount: 10, order: .random(seed: 7), reuse: .cycle)
        let draws = Self.drain(feed, upTo: 100_000)
        #expect(draws == Self.drain(DataFeed(rowCount: 10, order: .random(seed: 7), reuse: .cycle), upTo: 100_000))
        var counts = [Int](repeating: 0, count: 10)
        for row in draws { counts[row] += 1 }
        // 10,000 expected each; a standard deviation is about 95.
        #expect(counts.allSatisfy { (9_500...10_500).contains($0) }, "\(counts)")
        // Rows repeat: not a permutation in disguise.
        #expect(Set(draws.prefix(20)).count < 20)
    }

    /// Without a seed, one is drawn and kept: given back, it hands out the same rows.
    @Test func aDrawnSeedIsKeptAndRepeatsTheRun() throws {
        let feed = DataFeed(rowCount: 500, order: .random(seed: nil), reuse: .once)
        let seed = try #require(feed.seed)
        #expect(Self.drain(DataFeed(rowCount: 500, order: .random(seed: seed), reuse: .once)) == Self.drain(feed))
    }

    /// The generator is SplitMix64 as published (Vigna's splitmix64.c, seed 0), and a draw below a bound never
    /// reaches it.
    @Test func splitMix64GivesItsPublishedSequence() {
        var generator = SplitMix64(seed: 0)
        #expect(
            [generator.next(), generator.next(), generator.next()] == [
                0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F,
            ])
        for bound: UInt64 in [1, 2, 3, 7, 1 << 63, .max] {
            for _ in 0..<1_000 { #expect(generator.uniform(below: bound) < bound) }
        }
        #expect(generator.uniform(below: 0) == 0)
    }

    /// Many tasks asking at once each get rows no other task got; together, every row once.
    @Test(arguments: [DataFeed.Order.sequential, .random(seed: 3)])
    func concurrentIterationsGetEachRowOnce(_ order: DataFeed.Order) async {
        let count = 100_000
        let feed = DataFeed(rowCount: count, order: order, reuse: .once)
        let rows = await withTaskGroup(of: [Int].self) { group in
            for _ in 0..<64 {
                group.addTask {
                    var mine: [Int] = []
                    while let row = feed.next() {
                        mine.append(row)
                        if mine.count % 100 == 0 { await Task.yield() }
                    }
                    return mine
                }
            }
            var all: [Int] = []
            for await part in group { all += part }
            return all
        }
        #expect(rows.count == count)
        #expect(rows.sorted() == Array(0..<count))
    }
}
