import Foundation
import Testing

@testable import ReqPlanSyntax

/// `OutputFile`: a file replaced whole, with the permissions asked for, and nothing else left in its folder.
@Suite struct OutputFileTests {
    @Test func anExistingFileIsReplacedWithNothingLeftBeside() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reqplan-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("cookies.txt").path
        try OutputFile.write("old\n", toPath: path)
        try OutputFile.write("new\n", toPath: path, permissions: 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["cookies.txt"])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
