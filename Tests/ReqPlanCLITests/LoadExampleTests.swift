import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

/// docs/load.md's "Many machines": its GitHub Actions matrix and Kubernetes Indexed Job are read, and their
/// `reqplan` commands run against the demo API as the runners and pods would run them (shorter and slower:
/// the rate, duration and warm-up are the test's), then the merge step of each: the merged figures are
/// those of every shard added up, and each shard took its own part.
@Suite(.timeSensitive) struct LoadExampleTests {
    /// A command line of the guide with the load's size made small (`--rate`, `--duration`, `--warm-up`; none
    /// of the guide's arguments holds a space).
    static func shortened(_ line: String) -> String {
        line.replacing(#/--rate [^ ]+/#, with: "--rate 20/s")
            .replacing(#/--duration [^ ]+/#, with: "--duration 1s")
            .replacing(#/--warm-up [^ ]+/#, with: "--warm-up 0s")
    }

    /// Expects the shards' reports in `folder` (`load-1.json`… or `load-0.json`…) and their merge `load.json`
    /// to add up: each shard its part, the merge every iteration of them, none failed.
    static func expectMerged(shards: [Int], named name: (Int) -> String, in folder: URL) throws {
        var total = 0
        for (part, shard) in shards.enumerated() {
            let report = try LoadCommandTests.report(folder.appendingPathComponent(name(shard)))
            let shardPart = try #require(report["shard"] as? [String: Any], "\(name(shard)) names its shard")
            #expect(shardPart["index"] as? Int == part + 1 && shardPart["count"] as? Int == shards.count)
            let (runs, failed) = LoadCommandTests.runs(report["iteration"])
            #expect(runs > 0 && failed == 0, "\(name(shard)): \(runs) iterations, \(failed) failed")
            total += runs
        }
        let merged = try LoadCommandTests.report(folder.appendingPathComponent("load.json"))
        #expect(LoadCommandTests.runs(merged["iteration"]) == (total, 0))
        #expect((merged["shards"] as? Int) == shards.count)
    }

    @Test
    func theGitHubActionsMatrixRunsTheLoadInPartsAndMergesThem() async throws {
        let workflow = try #require(
            try ShardingExampleTests.readmeYAML(containing: "matrix.shard", in: "docs/load.md").first
                as? [String: Any])
        let jobs = try #require(workflow["jobs"] as? [String: [String: Any]])
        let matrix = ((jobs["shard"]?["strategy"] as? [String: Any])?["matrix"] as? [String: Any])?["shard"] as? [Int]
        let shards = try #require(matrix)
        #expect(shards == Array(1...shards.count))
        func run(_ job: String, containing text: String) throws -> String {
            let steps = try #require(jobs[job]?["steps"] as? [[String: Any]])
            return try #require(steps.compactMap { $0["run"] as? String }.first { $0.contains(text) })
        }
        let shardRun = try run("shard", containing: "--shard ${{ matrix.shard }}/\(shards.count)")
        let mergeRun = try run("report", containing: "reqplan report merge")
        let folder = try ShardingExampleTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await DemoAPI.withServer { base in
            for shard in shards {
                let line = Self.shortened(shardRun).replacingOccurrences(of: "${{ matrix.shard }}", with: "\(shard)")
                    .replacingOccurrences(of: "${{ vars.STAGING_URL }}", with: base)
                    .replacingOccurrences(of: "reports/", with: folder.path + "/")
                let result = try await ShardingExampleTests.shell(
                    "cd '\(CommandRunner.packageRoot.path)' && " + line + " --progress none")
                #expect(result.status == 0, "shard \(shard): \(result.stdout)\(result.stderr)")
            }
        }
        let merged = try await ShardingExampleTests.shell(
            "cd '\(CommandRunner.packageRoot.path)' && "
                + mergeRun.replacingOccurrences(of: "reports/", with: folder.path + "/")
                + " --report json:\(folder.path)/load.json")
        #expect(merged.status == 0, "\(merged.stdout)\(merged.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("load.html").path))
        try Self.expectMerged(shards: shards, named: { "load-\($0).json" }, in: folder)
    }

    @Test
    func theKubernetesIndexedJobRunsTheLoadInPartsAndMergesThem() async throws {
        let documents = try ShardingExampleTests.readmeYAML(containing: "name: reqplan-load", in: "docs/load.md")
        let job = try #require(documents.first as? [String: Any])
        let spec = try #require(job["spec"] as? [String: Any])
        #expect(spec["completionMode"] as? String == "Indexed")
        let completions = try #require(spec["completions"] as? Int)
        #expect(spec["parallelism"] as? Int == completions, "the shards' rates add up only side by side")
        let pod = (spec["template"] as? [String: Any])?["spec"] as? [String: Any]
        let container = try #require((pod?["containers"] as? [[String: Any]])?.first)
        let args = try #require(container["args"] as? [String])
        #expect(args.first == "load" && args.contains("JOB_COMPLETION_INDEX/\(completions)"))
        let folder = try ShardingExampleTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await DemoAPI.withServer { base in
            for index in 0..<completions {
                let podArgs = Self.shortened(args.joined(separator: " ")).split(separator: " ").map {
                    String($0).replacingOccurrences(of: "$(JOB_COMPLETION_INDEX)", with: "\(index)")
                        .replacingOccurrences(of: "/reports/", with: folder.path + "/")
                        .replacing(#/base_url=http:.*/#, with: "base_url=\(base)")
                }
                let result = try await CommandRunner.run(
                    podArgs + ["--progress", "none"], in: CommandRunner.packageRoot,
                    environment: ["JOB_COMPLETION_INDEX": "\(index)"], within: .seconds(60))
                #expect(result.status == 0, "pod \(index): \(result.stdout)\(result.stderr)")
            }
        }
        let reports = (0..<completions).map { "\(folder.path)/load-\($0).json" }
        let merged = try await CommandRunner.run(
            ["report", "merge"] + reports + ["--report", "json:\(folder.path)/load.json"],
            in: CommandRunner.packageRoot,
            within: .seconds(60))
        #expect(merged.status == 0, "\(merged.stdout)\(merged.stderr)")
        try Self.expectMerged(shards: Array(0..<completions), named: { "load-\($0).json" }, in: folder)
    }
}
