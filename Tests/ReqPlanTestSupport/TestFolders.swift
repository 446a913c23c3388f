import Foundation

/// Where tests write their files: one folder per test process in the system's temporary folder, removed
/// when the process exits, so a run of the suite leaves nothing behind (ten runs used to leave about 15,000
/// folders in `/tmp`).
public enum TestFolders {
    /// This process's folder, created on first use; removed at exit (not if the process is killed).
    public static let root: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reqplan-test-process-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        // The same exit handler that stops the external servers and removes their folders.
        ServerRegistry.removeAtExit(url)
        return url
    }()

    /// A path of its own under `root`, `prefix-<UUID>`, not yet created.
    public static func unique(_ prefix: String) -> URL {
        root.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    }
}
