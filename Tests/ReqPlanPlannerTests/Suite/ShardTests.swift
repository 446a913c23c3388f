import PropertyBased
import ReqPlanPlanner
import ReqPlanTestSupport
import Testing

/// `--shard K/N`: the parts of a suite.
@Suite struct ShardTests {
    /// Distinct plan paths in no particular order, as a suite's arguments may list them.
    static let paths = Gen.letterOrNumber.string(of: 1...12).map { "plans/\($0).yaml" }.set(ofAtMost: 0...60)
        .map { Array($0) }

    @Test func thePartsCoverEveryFileExactlyOnceAndDifferInSizeByAtMostOne() async {
        await propertyCheck(count: 300, input: Self.paths, Gen.int(in: 1...20)) { paths, count in
            let parts = (1...count).map { Shard(index: $0, count: count).select(paths) }
            let all = parts.flatMap { $0 }
            #expect(all.count == paths.count, "a file is in no part, or in two")
            #expect(Set(all) == Set(paths))
            let sizes = parts.map(\.count)
            #expect((sizes.max() ?? 0) - (sizes.min() ?? 0) <= 1, "unbalanced: \(sizes)")
        }
    }

    @Test func thePartsDoNotDependOnTheOrderOfTheArguments() async {
        await propertyCheck(count: 200, input: Self.paths, Gen.int(in: 1...8), Gen.int(in: 0...Int(Int32.max))) {
            paths, count, seed in
            var generator = SeededGenerator(seed: UInt64(seed))
            let shuffled = paths.shuffled(using: &generator)
            for index in 1...count {
                let shard = Shard(index: index, count: count)
                #expect(shard.select(shuffled) == shard.select(paths))
            }
        }
    }

    @Test func aPartKeepsTheSuiteOrder() {
        let files = ["b.yaml", "a.yaml", "d.yaml", "c.yaml", "e.yaml"]
        #expect(Shard(index: 1, count: 2).select(files) == ["a.yaml", "c.yaml", "e.yaml"])
        #expect(Shard(index: 2, count: 2).select(files) == ["b.yaml", "d.yaml"])
        #expect(Shard(index: 3, count: 3).select(["a.yaml"]) == [])
    }

    @Test(
        arguments: [
            ("1/1", [:], 1, 1), ("3/4", [:], 3, 4), ("JOB_COMPLETION_INDEX/4", ["JOB_COMPLETION_INDEX": "0"], 1, 4),
            ("JOB_COMPLETION_INDEX/4", ["JOB_COMPLETION_INDEX": "3"], 4, 4),
        ] as [(String, [String: String], Int, Int)])
    func aShardIsKOfNOrTheKubernetesIndexPlusOne(text: String, environment: [String: String], index: Int, count: Int)
        throws
    {
        let shard = try Shard(parsing: text, environment: environment)
        #expect(shard.index == index && shard.count == count)
    }

    @Test(
        arguments: [
            ("0/4", [:], "K must be from 1 to 4"), ("5/4", [:], "K must be from 1 to 4"), ("1/0", [:], "N from 1 to"),
            ("a/b", [:], "written K/N"), ("2", [:], "written K/N"), ("1/2/3", [:], "written K/N"),
            ("JOB_COMPLETION_INDEX/2", [:], "is not set"),
            ("JOB_COMPLETION_INDEX/2", ["JOB_COMPLETION_INDEX": "2"], "counts from 0 to 1"),
            ("JOB_COMPLETION_INDEX/2", ["JOB_COMPLETION_INDEX": "x"], "not a number"),
        ] as [(String, [String: String], String)])
    func aBadShardSaysWhatIsWrong(text: String, environment: [String: String], message: String) {
        #expect {
            try Shard(parsing: text, environment: environment)
        } throws: { error in
            (error as? Shard.ParseError)?.message.contains(message) == true
        }
    }
}
