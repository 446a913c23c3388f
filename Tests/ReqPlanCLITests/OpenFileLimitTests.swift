import Foundation
import ReqPlanDemoAPI
import ReqPlanTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `reqplan run` and the process's limit on open files (`ulimit -n`): the soft limit raised to the hard one,
/// connections kept within what the limit leaves, and a clear refusal when it leaves none. Each test sets
/// the limit in a shell that then becomes reqplan (`exec`), so the test process keeps its own.
@Suite(.timeSensitive) struct OpenFileLimitTests {
    /// 300 GETs, 100 at a time, to one host.
    static func manyRequests(to base: String) -> String {
        """
        reqplan: 1
        concurrency: 100
        steps:
          each:
            for_each: [\((0..<300).map(String.init).joined(separator: ", "))]
            request: { url: "\(base)/health?i=${{ item }}" }
        """
    }

    /// reqplan under a shell's `ulimit` settings (`limits`, e.g. `-n 48`), with `arguments`.
    static func reqplan(withLimit limits: String, _ arguments: [String]) async throws -> CommandRunner.Output {
        try await CommandRunner.run(
            ["-c", "ulimit \(limits) && exec \"$0\" \"$@\"", CommandRunner.binary.path] + arguments,
            executable: URL(fileURLWithPath: "/bin/bash"), within: .seconds(60))
    }

    @Test func aHardLimitBelowTheConcurrencyMakesRequestsWaitForAConnectionInsteadOfFailing() async throws {
        try await DemoAPI.withServer { base in
            let plan = try CommandRunner.temporaryPlan(Self.manyRequests(to: base))
            // 48 files: room for 16 connections beside the 32 a run keeps for itself. Before, 100 connections
            // were opened at once and most requests failed with "too many open files".
            let result = try await Self.reqplan(withLimit: "-n 48", ["run", plan.path, "--progress", "none"])
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("300/300 items"), "\(result.stdout)")
            #expect(!result.stderr.contains("open files"), "\(result.stderr)")
        }
    }

    @Test func aHardLimitWithNoRoomForAConnectionIsRefusedBeforeAnythingIsSent() async throws {
        let plan = try CommandRunner.temporaryPlan(Self.manyRequests(to: "http://127.0.0.1:1"))
        for command in [["run", plan.path], ["demo", "--serve", "0"]] {
            let result = try await Self.reqplan(withLimit: "-n 20", command)
            #expect(!result.uncaughtSignal, "the event loops did not stop the process: \(result.stderr)")
            #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
            #expect(
                result.stderr
                    == "error: reqplan may open only 20 files (the limit `ulimit -n` shows) and needs more than 32 "
                    + "to make a connection: raise the limit\n")
        }
    }

    #if os(Linux)
        /// The soft limit is raised to the hard one, read from `/proc` while `run` waits on its inputs file (a
        /// named pipe), so a plan's concurrency is not held to a soft limit nothing else imposes.
        @Test func theSoftLimitIsRaisedToTheHardOne() async throws {
            var own = rlimit()
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &own)
            try #require(own.rlim_max > 64, "the hard limit here leaves nothing to raise to")
            let plan = try CommandRunner.temporaryPlan(
                """
                reqplan: 1
                steps:
                  nothing: { if: "${{ false }}", request: { url: "http://127.0.0.1:1/" } }
                """)
            let fifo = plan.deletingLastPathComponent().appendingPathComponent("inputs.fifo").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let running = try CommandRunner.start(
                [
                    "-c", "ulimit -Sn 64 && exec \"$0\" run \"$1\" --inputs-file \"$2\" --quiet",
                    CommandRunner.binary.path, plan.path, fifo,
                ],
                executable: URL(fileURLWithPath: "/bin/bash"))
            let writer = await running.openForWriting(fifo)
            try #require(writer >= 0, "reqplan never opened the inputs file")
            let limits = try String(contentsOfFile: "/proc/\(running.pid)/limits", encoding: .utf8)
            _ = "{}".withCString { write(writer, $0, 2) }
            close(writer)
            let result = await running.finish(within: .seconds(60))
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // "Max open files  SOFT  HARD  files"
            let (soft, hard) = (fields[3], fields[4])
            #expect(soft == hard && soft != "64", "\(line)")
        }
    #endif
}
