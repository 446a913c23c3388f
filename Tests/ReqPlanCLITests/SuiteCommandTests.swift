import Foundation
import ReqPlanDemoAPI
import ReqPlanTransport
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

/// End-to-end tests of suites: `reqplan run` and `validate` with several files and folders, `--jobs`,
/// `--shard`, and `reqplan report merge`, the built binary against the demo API.
@Suite(.timeSensitive) struct SuiteCommandTests {
    /// A temporary folder holding `files` (relative path → text), removed after `body`.
    static func withFolder<T>(_ files: [String: String], _ body: (URL) async throws -> T) async throws -> T {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("reqplan-suite-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return try await body(root)
    }

    /// A plan against the demo API (its `base_url` input) with these steps.
    static func plan(_ steps: String, inputs: String = "", outputs: String = "") -> String {
        """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
        \(inputs)
        defaults: { base_url: "${{ inputs.base_url }}" }
        steps:
        \(steps)
        \(outputs.isEmpty ? "" : "outputs:\n" + outputs)
        """
    }

    /// Plans whose results depend on nothing but themselves (no ids from the server's state), one failing.
    static let deterministicSuite: [String: String] = [
        "health.yaml": plan("  health: { request: { url: /health }, expect: { body: { ok: true } } }"),
        "config.yaml": plan(
            "  config: { request: { url: /config } }\n  prefs: { request: { url: /users/alice/preferences } }",
            outputs: "  theme: ${{ steps.prefs.body.theme }}"),
        "nested/broken.yaml": plan(
            "  checks:\n    group:\n      fine: { request: { url: /health } }\n"
                + "      broken: { request: { url: /status/500 } }\n"
                + "  after: { needs: [checks], request: { url: /health } }"
        ),
        "nested/polled.yaml": plan(
            "  wait:\n    request: { url: /status/200 }\n"
                + "    poll: { until: \"${{ response.status == 200 }}\", every: 10ms, attempts: 3 }"),
        "items.yaml": plan(
            "  list:\n    for_each: [1, 2, 3]\n    request: { url: \"/items/${{ item }}\" }\n"
                + "    expect: { body: { kind: product } }"),
        "_fragment.yaml": "not: a plan, and never run alone",
    ]

    @Test func aFolderRunsEveryPlanWithOneSummaryReportsHoldingEveryFileAndTheWorstExitCode() async throws {
        try await Self.withFolder(Self.deterministicSuite) { root in
            try await DemoAPI.withServer { base in
                let reports = root.appendingPathComponent("out")
                let result = try await CommandRunner.run(
                    [
                        "run", root.path, "--input", "base_url=\(base)", "--progress", "lines",
                        "--report", "json:\(reports.path)/suite.json", "--report", "junit:\(reports.path)/suite.xml",
                        "--report", "trace:\(reports.path)/trace.json",
                    ],
                    within: .seconds(60))
                #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
                let files = ["config.yaml", "health.yaml", "items.yaml", "nested/broken.yaml", "nested/polled.yaml"]
                let lines = result.stdout.split(separator: "\n").map(String.init)
                let planLines = lines.filter { $0.hasPrefix("✓ ") || $0.hasPrefix("✗ ") }
                #expect(planLines.map { $0.split(separator: " ")[1] } == files.map { Substring(root.path + "/" + $0) })
                #expect(
                    planLines[3].hasPrefix(
                        "✗ \(root.path)/nested/broken.yaml  4 steps: 1 succeeded, 2 failed, 1 skipped"))
                #expect(lines.contains("    ✗ broken  GET → 500  expected status 2xx, got 500"))
                #expect(lines.contains(#"    outputs: {"theme":"dark"}"#))
                #expect(
                    lines.last?.hasPrefix("5 plans: 4 passed, 1 failed; 9 steps: 6 succeeded, 2 failed, 1 skipped in ")
                        == true)
                #expect(result.stderr.contains("error[RP0512]: step `broken` failed: expected status 2xx, got 500"))
                #expect(result.stderr.contains("--> \(root.path)/nested/broken.yaml:"))
                // Live progress: a line per finished plan.
                #expect(result.stderr.contains("✓ \(root.path)/nested/polled.yaml  1 step: 1 succeeded"))

                let json =
                    try JSONSerialization.jsonObject(
                        with: Data(contentsOf: reports.appendingPathComponent("suite.json")))
                    as? [String: Any]
                #expect(json?["format"] as? String == "reqplan-suite/1")
                #expect(json?["exit_code"] as? Int == 1)
                let plans = json?["plans"] as? [[String: Any]] ?? []
                #expect(
                    plans.map { ($0["plan"] as? [String: Any])?["file"] as? String }
                        == files.map { root.path + "/" + $0 })
                #expect(plans.allSatisfy { $0["format"] as? String == "reqplan-run/1" })

                let junit = try String(contentsOf: reports.appendingPathComponent("suite.xml"), encoding: .utf8)
                let suites = junit.matches(of: #/<testsuite name="([^"]+)"/#).map { String($0.1) }
                #expect(suites == files.map { root.path + "/" + $0 }, "one testsuite per plan file")
                #expect(
                    junit.contains(#"<testsuites name="reqplan suite" tests="10" failures="1" errors="0" skipped="1""#))
                #expect(junit.contains(#"<testcase name="broken" classname="broken.checks""#))

                let trace = try String(contentsOf: reports.appendingPathComponent("trace.json"), encoding: .utf8)
                for file in files { #expect(trace.contains("\"\(root.path)/\(file): requests\"")) }
            }
        }
    }

    @Test func inputsGoToThePlansThatDeclareThemAndAnInputNoPlanDeclaresIsAnError() async throws {
        let suite = [
            "a.yaml": Self.plan(
                "  prefs: { request: { url: \"/users/${{ inputs.user }}/preferences\" } }",
                inputs: "  user: { default: alice }", outputs: "  theme: ${{ steps.prefs.body.theme }}"),
            "b.yaml": Self.plan("  health: { request: { url: /health } }"),
        ]
        try await Self.withFolder(suite) { root in
            try await DemoAPI.withServer { base in
                let inputsFile = root.appendingPathComponent("inputs.json")
                try #"{"user": "bob"}"#.write(to: inputsFile, atomically: true, encoding: .utf8)
                let given = try await CommandRunner.run(
                    [
                        "run", root.path, "--input", "base_url=\(base)", "--inputs-file", inputsFile.path,
                        "--output", "json",
                    ], within: .seconds(60))
                #expect(given.status == 0, "\(given.stderr)")
                let outputs =
                    try JSONSerialization.jsonObject(with: Data(given.stdout.utf8)) as? [String: [String: Any]]
                #expect(outputs?[root.path + "/a.yaml"]?["theme"] as? String == "light")
                #expect(outputs?[root.path + "/b.yaml"]?.isEmpty == true)

                let unknown = try await CommandRunner.run(
                    ["run", root.path, "--input", "base_url=\(base)", "--input", "usr=carol"], within: .seconds(60))
                #expect(unknown.status == 2)
                #expect(unknown.stderr.contains("error[RP0501]: --input `usr` is declared by no plan of the suite"))
                #expect(unknown.stderr.contains("= hint: did you mean `user`?"))
                #expect(unknown.stdout.isEmpty, "nothing ran")
            }
        }
    }

    @Test func anInvalidPlanStopsTheSuiteBeforeAnythingIsSent() async throws {
        let suite = [
            "a.yaml": Self.plan("  create: { request: { method: POST, url: /items, json: { name: sent } } }"),
            "b.yaml": Self.plan("  bad: { request: { url: /health }, needs: [nowhere] }"),
        ]
        try await Self.withFolder(suite) { root in
            try await DemoAPI.withServer { base in
                let result = try await CommandRunner.run(
                    ["run", root.path, "--input", "base_url=\(base)"],
                    within: .seconds(60))
                #expect(result.status == 2)
                #expect(result.stderr.contains("error[RP0301]"))
                #expect(result.stdout.isEmpty)
                let items = try await CommandRunner.run(
                    [
                        "run",
                        try CommandRunner.temporaryPlan(
                            Self.plan(
                                "  count: { request: { url: \"/items?kind=product\" } }",
                                outputs: "  total: ${{ steps.count.body.total }}")
                        ).path,
                        "--input", "base_url=\(base)", "--output", "json",
                    ], within: .seconds(60))
                #expect(
                    items.stdout.contains(#""total" : 6"#) || items.stdout.contains(#""total": 6"#),
                    "no item was created: \(items.stdout)")
            }
        }
    }

    @Test func eachPlanOfASuiteHasACookieJarOfItsOwn() async throws {
        let suite = [
            "a.yaml": Self.plan(
                "  set: { request: { url: \"/response-headers?Set-Cookie=sid%3Dsuite-session-12345\" } }\n"
                    + "  echo: { needs: [set], request: { url: /echo } }",
                outputs: "  has_cookie: ${{ contains(json(steps.echo.body.headers), 'sid=') }}"),
            "b.yaml": Self.plan(
                "  echo: { request: { url: /echo } }",
                outputs: "  has_cookie: ${{ contains(json(steps.echo.body.headers), 'sid=') }}"),
        ]
        try await Self.withFolder(suite) { root in
            try await DemoAPI.withServer { base in
                // One job at a time: `a` has its cookie before `b` starts.
                let result = try await CommandRunner.run(
                    ["run", root.path, "--input", "base_url=\(base)", "--jobs", "1", "--output", "json"],
                    within: .seconds(60))
                #expect(result.status == 0, "\(result.stderr)")
                let outputs =
                    try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: [String: Any]]
                #expect(outputs?[root.path + "/a.yaml"]?["has_cookie"] as? Bool == true)
                #expect(outputs?[root.path + "/b.yaml"]?["has_cookie"] as? Bool == false)

                let jar = try await CommandRunner.run(
                    ["run", root.path, "--cookie-jar", root.appendingPathComponent("jar.txt").path],
                    within: .seconds(60))
                #expect(jar.status == 64)
                #expect(jar.stderr.contains("takes one plan"))
            }
        }
    }

    @Test func jobsBoundsHowManyPlansRunAtOnce() async throws {
        var suite: [String: String] = [:]
        for name in ["a", "b", "c"] { suite["\(name).yaml"] = Self.plan("  slow: { request: { url: /delay/200 } }") }
        try await Self.withFolder(suite) { root in
            try await DemoAPI.withServer { base in
                func spans(jobs: Int) async throws -> [(start: Date, end: Date)] {
                    let report = root.appendingPathComponent("jobs-\(jobs).json")
                    let result = try await CommandRunner.run(
                        [
                            "run", root.path, "--input", "base_url=\(base)", "--jobs", "\(jobs)", "--report",
                            "json:\(report.path)",
                        ], within: .seconds(60))
                    #expect(result.status == 0, "\(result.stderr)")
                    let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]
                    let formatter = ISO8601DateFormatter()
                    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                    return (json?["plans"] as? [[String: Any]] ?? []).compactMap { plan in
                        guard let start = (plan["started_at"] as? String).flatMap(formatter.date(from:)),
                            let duration = plan["duration_ms"] as? Double
                        else { return nil }
                        return (start, start.addingTimeInterval(duration / 1000))
                    }.sorted { $0.start < $1.start }
                }
                let one = try await spans(jobs: 1)
                #expect(one.count == 3)
                for (first, second) in zip(one, one.dropFirst()) {
                    #expect(second.start >= first.end.addingTimeInterval(-0.002), "with --jobs 1 plans do not overlap")
                }
                let three = try await spans(jobs: 3)
                #expect(three.count == 3)
                #expect(three.allSatisfy { $0.start < three[0].end }, "with --jobs 3 the three plans run together")
            }
        }
    }

    @Test func validateTakesFoldersWithTheSameRule() async throws {
        let valid = try await CommandRunner.run(["validate", "--strict", "plans"], within: .seconds(60))
        #expect(valid.status == 0, "\(valid.stdout)")
        #expect(valid.stdout.contains("plans/suite/checkout.yaml") == false, "no diagnostics")
        let count = try CommandRunner.allExamplePlans().count
        #expect(count >= 15)
        #expect(valid.stdout.contains("checked \(count) plans: \(count) valid, 0 invalid"))
        try await Self.withFolder(["empty/_only.yaml": "reqplan: 1\n"]) { root in
            let empty = try await CommandRunner.run(
                ["validate", root.appendingPathComponent("empty").path],
                within: .seconds(60))
            #expect(empty.status == 1)
            #expect(empty.stdout.contains("error[RP0710]: no plan files in"))
        }
    }
}

/// docs/suites.md's "Sharding across machines": its GitHub Actions matrix and Kubernetes Indexed Job are read,
/// checked, and their `reqplan` commands run against the demo API; the merged reports must be those of
/// the suite run on one machine, apart from timings.
@Suite(.timeSensitive) struct ShardingExampleTests {
    /// The fenced YAML block of `guide` (docs/suites.md by default) holding `marker`, as data (PyYAML, every
    /// document).
    static func readmeYAML(containing marker: String, in guide: String = "docs/suites.md") throws -> [Any] {
        let readme = try String(
            contentsOf: CommandRunner.packageRoot.appendingPathComponent(guide), encoding: .utf8)
        let blocks = readme.matches(of: #/```yaml\n(?<body>(?:.|\n)*?)```/#).map { String($0.body) }
        let block = try #require(blocks.first { $0.contains(marker) }, "\(guide) has no YAML block with \(marker)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c", "import sys, json, yaml; print(json.dumps(list(yaml.safe_load_all(sys.stdin))))",
        ]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(block.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "the YAML block does not load (python3 with PyYAML)")
        return try JSONSerialization.jsonObject(with: data) as? [Any] ?? []
    }

    /// Runs a command line of the documentation with `sh -c`, `reqplan` being the built binary.
    static func shell(_ line: String, environment: [String: String] = [:]) async throws -> CommandRunner.Output {
        let command = line.replacingOccurrences(of: "reqplan ", with: CommandRunner.binary.path + " ")
        return try await CommandRunner.run(
            ["-c", command], environment: environment, executable: URL(fileURLWithPath: "/bin/sh"),
            within: .seconds(120))
    }

    /// What stays of a JSON report once times (and the server's address) are left out.
    static func withoutTimings(_ data: Data, base: String) throws -> String {
        func strip(_ value: Any) -> Any {
            if let object = value as? [String: Any] {
                let timed: Set<String> = [
                    "started_at", "duration_ms", "start_ms", "end_ms", "ready_ms", "queue_wait_ms", "retry_delay_ms",
                ]
                return object.filter { !timed.contains($0.key) }.mapValues(strip)
            }
            if let list = value as? [Any] { return list.map(strip) }
            if let text = value as? String { return text.replacingOccurrences(of: base, with: "BASE") }
            return value
        }
        let stripped = strip(try JSONSerialization.jsonObject(with: data))
        return String(
            decoding: try JSONSerialization.data(withJSONObject: stripped, options: [.sortedKeys]), as: UTF8.self)
    }

    /// A JUnit file or a summary without times, timestamps and the server's address.
    static func withoutTimings(_ text: String, base: String) -> String {
        text.replacingOccurrences(of: base, with: "BASE")
            .replacing(#/ time="[0-9.]+"/#, with: "")
            .replacing(#/ timestamp="[^"]+"/#, with: "")
            .replacing(#/name="run.started_at" value="[^"]+"/#, with: "")
            .replacing(#/  [0-9]+(\.[0-9])?m?s\n/#, with: "\n")
            .replacing(#/ in [0-9.]+s/#, with: "")
    }

    /// The suite on one machine: its summary, JSON report and JUnit file, without timings.
    static func wholeSuite(in folder: URL) async throws -> (summary: String, json: String, junit: String) {
        try await DemoAPI.withServer { base in
            let result = try await CommandRunner.run(
                [
                    "run", "plans/suite", "--input", "base_url=\(base)", "--progress", "none",
                    "--report", "json:\(folder.path)/whole.json", "--report", "junit:\(folder.path)/whole.xml",
                ],
                within: .seconds(120))
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("4 plans: 4 passed"), "the suite holds plans/suite's four plans")
            return (
                withoutTimings(result.stdout, base: base),
                try withoutTimings(Data(contentsOf: folder.appendingPathComponent("whole.json")), base: base),
                withoutTimings(
                    try String(contentsOf: folder.appendingPathComponent("whole.xml"), encoding: .utf8),
                    base: base)
            )
        }
    }

    /// Expects `report merge` to have succeeded and written, in `folder`, what the unsharded run wrote.
    static func expectMerge(
        _ merged: CommandRunner.Output, in folder: URL, base: String,
        equals whole: (summary: String, json: String, junit: String)
    ) throws {
        #expect(merged.status == 0, "\(merged.stdout)\(merged.stderr)")
        #expect(withoutTimings(merged.stdout, base: base) == whole.summary)
        #expect(
            try withoutTimings(Data(contentsOf: folder.appendingPathComponent("suite.json")), base: base) == whole.json)
        #expect(
            withoutTimings(
                try String(contentsOf: folder.appendingPathComponent("junit.xml"), encoding: .utf8), base: base)
                == whole.junit)
    }

    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reqplan-shards-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func theKubernetesIndexedJobSplitsTheSuiteAndItsMergeEqualsTheUnshardedRun() async throws {
        let documents = try Self.readmeYAML(containing: "completionMode: Indexed")
        #expect(documents.count == 2)
        let job = try #require(documents.first as? [String: Any])
        let spec = try #require(job["spec"] as? [String: Any])
        #expect(job["kind"] as? String == "Job" && spec["completionMode"] as? String == "Indexed")
        let completions = try #require(spec["completions"] as? Int)
        #expect(spec["parallelism"] as? Int == completions)
        let pod = (spec["template"] as? [String: Any])?["spec"] as? [String: Any]
        let container = try #require((pod?["containers"] as? [[String: Any]])?.first)
        let args = try #require(container["args"] as? [String])
        #expect(args.contains("JOB_COMPLETION_INDEX/\(completions)"), "the shard count is the Job's completions")
        let merge = try #require(
            ((((documents.last as? [String: Any])?["spec"] as? [String: Any])?["template"] as? [String: Any])?["spec"]
                as? [String: Any])?["containers"] as? [[String: Any]])
        let mergeCommand = try #require(merge.first?["command"] as? [String])
        #expect(mergeCommand.prefix(2) == ["sh", "-c"])

        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = try await Self.wholeSuite(in: folder)
        try await DemoAPI.withServer { base in
            for index in 0..<completions {
                let podArgs = args.map {
                    $0.replacingOccurrences(of: "$(JOB_COMPLETION_INDEX)", with: "\(index)")
                        .replacingOccurrences(of: "/reports/", with: folder.path + "/")
                        .replacing(#/base_url=http:.*/#, with: "base_url=\(base)")
                }
                let result = try await CommandRunner.run(
                    podArgs + ["--progress", "none"], environment: ["JOB_COMPLETION_INDEX": "\(index)"],
                    within: .seconds(120))
                #expect(result.status == 0, "pod \(index): \(result.stdout)\(result.stderr)")
            }
            let merged = try await Self.shell(
                mergeCommand[2].replacingOccurrences(of: "/reports/", with: folder.path + "/"))
            try Self.expectMerge(merged, in: folder, base: base, equals: whole)
        }
    }

    @Test func theGitHubActionsMatrixSplitsTheSuiteAndItsMergeEqualsTheUnshardedRun() async throws {
        let workflow = try #require(try Self.readmeYAML(containing: "matrix.shard").first as? [String: Any])
        let jobs = try #require(workflow["jobs"] as? [String: [String: Any]])
        let matrix = ((jobs["shard"]?["strategy"] as? [String: Any])?["matrix"] as? [String: Any])?["shard"] as? [Int]
        let shards = try #require(matrix)
        #expect(shards == Array(1...shards.count))
        #expect(jobs["report"]?["needs"] as? String == "shard")
        func run(_ job: String, containing text: String) throws -> String {
            let steps = try #require(jobs[job]?["steps"] as? [[String: Any]])
            return try #require(steps.compactMap { $0["run"] as? String }.first { $0.contains(text) })
        }
        let shardRun = try run("shard", containing: "--shard ${{ matrix.shard }}/\(shards.count)")
        let mergeRun = try run("report", containing: "reqplan report merge")

        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = try await Self.wholeSuite(in: folder)
        try await DemoAPI.withServer { base in
            for shard in shards {
                let line = shardRun.replacingOccurrences(of: "${{ matrix.shard }}", with: "\(shard)")
                    .replacingOccurrences(of: "${{ vars.STAGING_URL }}", with: base)
                    .replacingOccurrences(of: "reports/", with: folder.path + "/")
                let result = try await Self.shell(
                    "cd '\(CommandRunner.packageRoot.path)' && " + line + " --progress none")
                #expect(result.status == 0, "shard \(shard): \(result.stdout)\(result.stderr)")
            }
            let merged = try await Self.shell(mergeRun.replacingOccurrences(of: "reports/", with: folder.path + "/"))
            try Self.expectMerge(merged, in: folder, base: base, equals: whole)
        }
    }

    @Test func mergeRefusesAMissingShardARepeatedOneAndAPlanInTwoReports() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await DemoAPI.withServer { base in
            for shard in 1...3 {
                let result = try await CommandRunner.run(
                    [
                        "run", "plans/suite", "--shard", "\(shard)/3", "--input", "base_url=\(base)", "--progress",
                        "none",
                        "--report", "json:\(folder.path)/\(shard).json",
                    ], within: .seconds(120))
                #expect(result.status == 0, "\(result.stderr)")
            }
            let whole = try await CommandRunner.run(
                [
                    "run", "plans/suite/health.yaml", "--input", "base_url=\(base)", "--report",
                    "json:\(folder.path)/one.json",
                ],
                within: .seconds(60))
            #expect(whole.status == 0)
        }
        func merge(_ names: [String]) throws -> CommandRunner.Output {
            try CommandRunner.run(["report", "merge", "--color", "never"] + names.map { folder.path + "/" + $0 })
        }
        let missing = try merge(["1.json", "3.json"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("error[RP0711]: shard 2/3 is missing"))
        let repeated = try merge(["1.json", "2.json", "2.json", "3.json"])
        #expect(repeated.status == 2 && repeated.stderr.contains("shard 2/3 is given twice"))
        let mixed = try merge(["1.json", "2.json", "3.json", "one.json"])
        #expect(mixed.status == 2 && mixed.stderr.contains("is not a shard"))
        try "{}".write(to: folder.appendingPathComponent("empty.json"), atomically: true, encoding: .utf8)
        let foreign = try merge(["empty.json"])
        #expect(foreign.status == 2 && foreign.stderr.contains("is not a reqplan report"))
        let whole = try merge(["1.json", "2.json", "3.json"])
        #expect(whole.status == 0 && whole.stdout.contains("4 plans: 4 passed"))
        let plan = try merge(["one.json"])
        #expect(plan.status == 0 && plan.stdout.contains("1 plan: 1 passed"))
        let noTrace = try CommandRunner.run(["report", "merge", folder.path + "/one.json", "--report", "trace:t.json"])
        #expect(noTrace.status == 64)

        // A shard edited by hand: a number out of range is refused with the file and the field (it was SIGILL),
        // and so is a shard count that allocated 2.2 GB.
        func edited(_ literal: String, at path: [String]) throws -> String {
            let text = try String(contentsOf: folder.appendingPathComponent("1.json"), encoding: .utf8)
            let marker = "@@edited@@"
            func replacing(_ value: Value, _ path: ArraySlice<String>) -> Value {
                guard let first = path.first else { return .string(marker) }
                switch value {
                case .object(var fields):
                    if let at = fields.firstIndex(where: { $0.key == first }) {
                        fields[at].value = replacing(fields[at].value, path.dropFirst())
                    }
                    return .object(fields)
                case .list(var items):
                    if let index = Int(first), items.indices.contains(index) {
                        items[index] = replacing(items[index], path.dropFirst())
                    }
                    return .list(items)
                default: return value
                }
            }
            let name = "edited-\(path.joined(separator: "-")).json"
            try replacing(try Value.parseJSON(text), path[...]).jsonText(pretty: true)
                .replacingOccurrences(of: "\"\(marker)\"", with: literal)
                .write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
            return name
        }
        let duration = try merge([try edited("1e300", at: ["plans", "0", "duration_ms"]), "2.json", "3.json"])
        #expect(duration.status == 2, "\(duration.stderr)")
        #expect(
            duration.stderr.contains(
                "edited-plans-0-duration_ms.json` cannot be read back: `plans[0].duration_ms` is 1e+300, not a number "
                    + "of milliseconds from 0 to 1000000000000"), "\(duration.stderr)")
        let count = try merge([try edited("4000000000", at: ["shard", "count"]), "2.json", "3.json"])
        #expect(
            count.status == 2
                && count.stderr.contains("`shard.count` is 4000000000, not a number of shards from 1 to 10000"),
            "\(count.stderr)")
    }
}
