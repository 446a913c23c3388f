import Foundation
import ReqPlanTestSupport
import Testing

/// A response body that nothing reads is not held whole: only its start is, for the verbose log and
/// the reports. nginx serves a 200 MB file (sparse, so it costs no disk), the built binary fetches it.
@Suite(.timeSensitive) struct ResponseMemoryTests {
    static let size = 200 << 20

    /// The high-water mark of `pid`'s resident memory (`VmHWM`), in bytes, while it runs.
    static func peakResident(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes << 10
    }

    @Test(
        ExternalServers.needed(.nginx),
        .enabled(
            if: FileManager.default.fileExists(atPath: "/proc/self/status"),
            "reads the process's memory in /proc/self/status, which only Linux has"))
    func aLargeBodyNothingReadsIsNotHeldWhole() async throws {
        let nginx = try await Nginx.shared()
        let file = nginx.filesFolder.appendingPathComponent("large-\(UUID().uuidString).bin")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: UInt64(Self.size))
        try handle.close()
        let plan = try CommandRunner.temporaryPlan(
            """
            reqplan: 1
            steps:
              download:
                request: { url: "\(nginx.plainURL)/files/\(file.lastPathComponent)" }
                expect: { status: 200, headers: { content-type: application/octet-stream } }
            """)
        let running = try CommandRunner.start([
            "run", plan.path, "--max-response-size", "\(Self.size + 1)", "--report",
            "json:\(plan.deletingLastPathComponent().appendingPathComponent("run.json").path)",
        ])
        var peak = 0
        while running.isRunning {
            if let resident = Self.peakResident(of: running.pid) { peak = max(peak, resident) }
            try await Task.sleep(for: .milliseconds(10))
        }
        let result = await running.finish()
        #expect(result.status == 0, "\(result.stderr)")
        // The whole size is known, though the body was not kept.
        let report = try String(
            contentsOf: plan.deletingLastPathComponent().appendingPathComponent("run.json"), encoding: .utf8)
        #expect(report.contains("\"response_size\": \(Self.size)"), "\(report)")
        // Whole, the body alone would be 200 MB; the process stays far below it.
        #expect(peak > 0 && peak < 100 << 20, "peak resident memory \(peak >> 20) MB")
    }
}
