import Foundation
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// The language server's description cache over a real description split over many files
/// (`Tests/Fixtures/openapi/multi-file`): an edit to a file the root's references name, not the root, is seen
/// at the next check; the root file alone would not say the description changed.
@Suite struct CachedMultiFileDescriptionTests {
    /// A copy of the multi-file fixture in a folder of its own, to edit.
    static func copy() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multi-file-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: DocumentBundlerTests.folder, to: folder)
        return folder
    }

    @Test(arguments: [false, true])
    func anEditToAReferencedFileIsSeenByTheNextReading(outline: Bool) throws {
        let folder = try Self.copy()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = folder.appendingPathComponent("openapi.yaml").path
        let referenced = folder.appendingPathComponent("paths/thing by id.yaml")
        let boundary = FileBoundary(root: folder)
        let cache = CachingAPIDescriptionLoader(OpenAPIDocumentLoader())
        func read() throws -> APIDescription {
            try
                (outline
                ? cache.outline(fileAt: root, boundary: boundary) : cache.load(fileAt: root, boundary: boundary))
                .get()
        }

        let first = try read()
        #expect(first.operation(id: "showThing") != nil)
        #expect(first.filesRead.contains(referenced.standardizedFileURL.path), "\(first.filesRead)")
        _ = try read()
        #expect(cache.readCount == 1)

        let text = try String(contentsOf: referenced, encoding: .utf8)
        try text.replacingOccurrences(of: "operationId: showThing", with: "operationId: showOneThing")
            .write(to: referenced, atomically: true, encoding: .utf8)
        let second = try read()
        #expect(cache.readCount == 2)
        #expect(second.operation(id: "showThing") == nil && second.operation(id: "showOneThing") != nil)
    }
}
