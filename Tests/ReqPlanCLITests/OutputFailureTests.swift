import Foundation
import ReqPlanTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Outputs that cannot be written, end to end: a full disk (`/dev/full`), a closed pipe, a report
/// whose folder is a file or whose name is a folder, a run killed while writing a report. None
/// traps; each ends with one plain line and a documented status, and the other outputs are written.
@Suite(.timeSensitive) struct OutputFailureTests {
    /// A plan that sends nothing (its one step is skipped), with an input that reports show.
    static let quietPlan = """
        reqplan: 1
        inputs:
          text: { default: "" }
        steps:
          never: { if: "${{ false }}", request: { url: "http://127.0.0.1:1/" } }
        """

    /// A new folder of its own for reports.
    static func folder() throws -> URL {
        let folder = TestFolders.unique("reqplan-output")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test(arguments: [["validate", "plans/", "--format", "json"], ["graph", "plans/fan-out-fan-in.yaml"]])
    func aFullStandardOutputEndsWithOneLineAndStatus74(_ arguments: [String]) async throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let result = try await CommandRunner.run(arguments, standardOutput: full, within: .seconds(60))
        #expect(!result.uncaughtSignal && result.status == 74, "\(result)")
        #expect(result.stderr == "reqplan: cannot write to standard output: no space left on the device\n")
    }

    @Test func aFullStandardOutputStillLetsTheRunWriteItsReport() async throws {
        let plan = try CommandRunner.temporaryPlan(Self.quietPlan)
        let report = try Self.folder().appendingPathComponent("run.json")
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let result = try await CommandRunner.run(
            ["run", plan.path, "--report", "json:\(report.path)"], standardOutput: full, within: .seconds(60))
        #expect(!result.uncaughtSignal && result.status == 74, "\(result)")
        #expect(result.stderr.hasSuffix("reqplan: cannot write to standard output: no space left on the device\n"))
        #expect(FileManager.default.fileExists(atPath: report.path))
    }

    /// Progress and diagnostics on a full standard error: nothing can say why, the status does.
    @Test func aFullStandardErrorEndsWithStatus74AndTheSummary() async throws {
        let plan = try CommandRunner.temporaryPlan(Self.quietPlan)
        let result = try await CommandRunner.run(
            ["-c", #"exec "$0" run "$1" --progress lines 2>/dev/full"#, CommandRunner.binary.path, plan.path],
            executable: URL(fileURLWithPath: "/bin/bash"), within: .seconds(60))
        #expect(!result.uncaughtSignal && result.status == 74, "\(result)")
        #expect(result.stdout.contains("1 step: 1 skipped"), "\(result.stdout)")
    }

    /// A pipe whose reading end is closed, as after `| head -1` has read its line.
    @Test(arguments: [false, true])
    func aClosedStandardOutputEndsQuietlyBySIGPIPE(run: Bool) async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        close(ends[0])
        let closed = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        let plan = try CommandRunner.temporaryPlan(Self.quietPlan)
        let report = try Self.folder().appendingPathComponent("run.json")
        let arguments =
            run
            ? ["run", plan.path, "--progress", "none", "--report", "json:\(report.path)"]
            : ["validate", "plans/", "--format", "json"]
        let result = try await CommandRunner.run(arguments, standardOutput: closed, within: .seconds(60))
        #expect(result.uncaughtSignal && result.status == SIGPIPE, "ended as cat does: \(result)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        if run { #expect(FileManager.default.fileExists(atPath: report.path), "the report is still written") }
    }

    @Test func aReportThatCannotBeWrittenSaysWhyAndTheOthersAreWritten() async throws {
        let plan = try CommandRunner.temporaryPlan(Self.quietPlan)
        let folder = try Self.folder()
        let file = folder.appendingPathComponent("file")
        try Data().write(to: file)
        let taken = folder.appendingPathComponent("taken.xml")
        try FileManager.default.createDirectory(at: taken, withIntermediateDirectories: false)
        let written = folder.appendingPathComponent("new/trace.json")
        let result = try await CommandRunner.run(
            [
                "run", plan.path, "--report", "json:\(file.path)/run.json", "--report", "junit:\(taken.path)",
                "--report", "trace:\(written.path)",
            ], within: .seconds(60))
        #expect(result.status == 74, "\(result)")
        #expect(
            result.stderr.contains(
                "error: cannot write the json report to `\(file.path)/run.json`: `\(file.path)` is a file, not a folder\n"
            ), "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "error: cannot write the junit report to `\(taken.path)`: `\(taken.path)` is a folder\n"),
            "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: written.path), "the trace is still written")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(left == ["file", "new", "taken.xml"], "no temporary file is left: \(left)")
    }

    /// What a run killed while writing a report (SIGKILL) can leave is a file with a name in the
    /// report's folder: inotify sees every name made there. The report must have no name but its own,
    /// and only once complete (Foundation's atomic write named a `.dat.nosync…` file beside it first).
    @Test func aReportHasNoNameButItsOwnWhileItIsWritten() async throws {
        let plan = try CommandRunner.temporaryPlan(Self.quietPlan)
        let folder = try Self.folder()
        let watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        try #require(watch >= 0)
        defer { close(watch) }
        try #require(inotify_add_watch(watch, folder.path, UInt32(IN_CREATE | IN_MOVED_TO)) >= 0)
        let result = try await CommandRunner.run(
            [
                "run", plan.path, "--input", "text=\(String(repeating: "x", count: 100_000))",
                "--report", "json:\(folder.path)/run.json",
            ], within: .seconds(60))
        #expect(result.status == 0, "\(result)")
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let count = buffer.withUnsafeMutableBytes { read(watch, $0.baseAddress, $0.count) }
        // Each event: descriptor, mask, cookie, name length (4 bytes each), then the name, NUL-padded.
        var names: [String] = []
        var offset = 0
        while offset + 16 <= count {
            let length = Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) })
            let name = buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
            names.append(String(decoding: name, as: UTF8.self))
            offset += 16 + length
        }
        #expect(names == ["run.json"], "names made in the report's folder: \(names)")
        let report = try String(contentsOf: folder.appendingPathComponent("run.json"), encoding: .utf8)
        #expect(report.hasSuffix("}\n") || report.hasSuffix("}"), "the report is whole")
    }
}
