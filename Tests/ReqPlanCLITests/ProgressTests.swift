import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

@Suite(.timeSensitive) struct ProgressTests {
    static func plan(_ base: String) -> String {
        """
        reqplan: 1
        defaults: { base_url: "\(base)" }
        steps:
          login: { request: { method: POST, url: /login, json: { user: alice } } }
          boot:
            group:
              config: { request: { url: /delay/300 } }
              prefs: { request: { url: /delay/400 } }
          uploads:
            for_each: [100, 200, 300]
            concurrency: 2
            request: { url: "/delay/${{ item }}" }
          home: { needs: [boot, uploads], request: { url: /home } }
        """
    }

    /// Runs `body` with a plan of `steps` (the lines under `steps:`) against the demo API, and its base URL.
    static func withDemoPlan(steps: String, _ body: @escaping @Sendable (URL, String) async throws -> Void)
        async throws
    {
        try await DemoAPI.withServer { base in
            let file = try CommandRunner.temporaryPlan(
                "reqplan: 1\ndefaults: { base_url: \"\(base)\" }\nsteps:\n" + steps)
            try await body(file, base)
        }
    }

    @Test func withoutATerminalEachFinishedStepIsOneLineWithoutEscapes() async throws {
        try await DemoAPI.withServer { base in
            let file = try CommandRunner.temporaryPlan(Self.plan(base))
            let result = try await CommandRunner.run(["run", file.path], within: .seconds(30))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains("\u{1B}["))
            let lines = result.stderr.split(separator: "\n").map(String.init)
            let ids = lines.compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) }
            #expect(Set(ids) == ["login", "config", "prefs", "boot", "uploads", "home"])
            #expect(lines.count == 6)
            #expect(lines.last?.hasPrefix("✓ home  200") == true)
            #expect(lines.contains { $0.hasPrefix("✓ uploads  [████████████] 3/3") })
        }
    }

    /// The lines are batched (`StandardStreams.writeBatched`), yet each is out while the run goes on.
    @Test func aFinishedStepsLineIsOutWhileTheRunGoesOn() async throws {
        let steps = """
              first: { request: { url: /home } }
              slow: { needs: [first], request: { url: /delay/20000 } }
            """
        try await Self.withDemoPlan(steps: steps) { file, _ in
            let running = try CommandRunner.start(["run", file.path, "--progress", "lines"])
            let shown = await running.waitForStandardError(containing: "✓ first  200", within: .seconds(15))
            let stillRunning = running.isRunning
            kill(running.pid, SIGINT)
            let result = await running.finish(within: .seconds(15))
            #expect(shown && stillRunning, "\(result.stderr)")
            #expect(result.status == 130, "\(result)")
        }
    }

    /// What else goes to standard error (here the verbose log) writes the batched lines before it.
    @Test func batchedLinesKeepTheirPlaceAmongOtherOutput() async throws {
        let steps = """
              first: { request: { url: /home } }
              second: { needs: [first], request: { url: /delay/10 } }
              third: { needs: [second], request: { url: /home } }
            """
        try await Self.withDemoPlan(steps: steps) { file, _ in
            let result = try await CommandRunner.run(
                ["run", file.path, "--progress", "lines", "--verbose", "--color", "never"], within: .seconds(30))
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n").map(String.init)
            let prefixes = [
                "> first:", "< first:", "✓ first", "> second:", "< second:", "✓ second", "> third:", "✓ third",
            ]
            let order = prefixes.map { prefix in lines.firstIndex { $0.hasPrefix(prefix) } }
            #expect(order.allSatisfy { $0 != nil }, "\(result.stderr)")
            #expect(order.compactMap { $0 } == order.compactMap { $0 }.sorted(), "\(result.stderr)")
        }
    }

    /// After Ctrl-C, a for_each's last progress line counts the items done as the summary does.
    @Test func afterAnInterruptTheProgressAgreesWithTheSummary() async throws {
        let steps = """
              uploads:
                for_each: [0, 20000, 20000, 20000]
                concurrency: 1
                request: { url: "/delay/${{ item }}" }
            """
        try await Self.withDemoPlan(steps: steps) { file, base in
            let running = try CommandRunner.start(["run", file.path, "--progress", "lines"])
            // One item at a time: the second request served means the first item has ended.
            let sent = try await DemoRequests.wait(for: 2, at: base, while: running, timeout: .seconds(15))
            #expect(sent, "the second item never reached the demo API")
            kill(running.pid, SIGINT)
            let result = await running.finish(within: .seconds(15))
            #expect(result.status == 130, "\(result)")
            #expect(result.stdout.contains("1/4 items"), "\(result.stdout)")
            let line = result.stderr.split(separator: "\n").first { $0.hasPrefix("⊘ uploads") }
            #expect(line?.contains("] 1/4") == true, "\(result.stderr)")
        }
    }

    @Test func onATerminalTheTreeIsRedrawnInPlace() async throws {
        // `script` runs the command under a pseudo-terminal and copies what it writes.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            Issue.record("/usr/bin/script (util-linux) is needed for the terminal test")
            return
        }
        try await DemoAPI.withServer { base in
            let file = try CommandRunner.temporaryPlan(Self.plan(base))
            let command = "\(CommandRunner.binary.path) run \(file.path) --color never"
            let result = try await CommandRunner.run(
                ["-q", "-e", "-c", command, "/dev/null"], executable: URL(fileURLWithPath: "/usr/bin/script"),
                within: .seconds(30))
            #expect(result.status == 0, "\(result.stdout)")
            // The tree is redrawn: the cursor moves up over the previous frame, lines are cleared.
            #expect(result.stdout.contains("\u{1B}[6A"))
            #expect(result.stdout.contains("\u{1B}[2K"))
            // Members are indented under their group; the final frame shows every step done.
            #expect(result.stdout.contains("  ✓ config  200"))
            #expect(result.stdout.contains("✓ uploads  [████████████] 3/3"))
            // A frame drawn while the run was going on shows a running step.
            #expect(result.stdout.contains("● "))
        }
    }
}
