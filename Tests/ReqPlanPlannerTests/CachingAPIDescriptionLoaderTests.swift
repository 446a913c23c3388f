import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import Synchronization
import Testing

/// The language server's description cache (`CachingAPIDescriptionLoader`): a description is read once while
/// its file stays the same, again when the file changes or after `forget()`.
@Suite struct CachingAPIDescriptionLoaderTests {
    /// A test double: a loader that counts what it is asked and reads nothing.
    final class CountingLoaderDouble: APIDescriptionLoader {
        let asked = Mutex(0)

        func load(fileAt path: String, boundary: FileBoundary) -> Result<APIDescription, APIDescriptionLoadError> {
            asked.withLock { $0 += 1 }
            return .success(APIDescription(title: path, operations: [], schemas: APISchemaTable()))
        }

        var count: Int { asked.withLock { $0 } }
    }

    static func file(_ text: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("api.yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func aDescriptionIsReadAgainOnlyWhenItsFileChangesOrIsForgotten() throws {
        let file = try Self.file("openapi: 3.1.0\n")
        let boundary = FileBoundary(planFolder: file.deletingLastPathComponent())
        let reader = CountingLoaderDouble()
        let cache = CachingAPIDescriptionLoader(reader)
        for _ in 0..<3 { _ = cache.outline(fileAt: file.path, boundary: boundary) }
        #expect(reader.count == 1)
        #expect(cache.readCount == 1)
        // Another size: changed, whatever the clock's resolution.
        try "openapi: 3.1.0\ninfo: { title: t, version: '1' }\n".write(to: file, atomically: true, encoding: .utf8)
        _ = cache.outline(fileAt: file.path, boundary: boundary)
        _ = cache.outline(fileAt: file.path, boundary: boundary)
        #expect(reader.count == 2)
        // The same size, another modification time.
        let later = Date().addingTimeInterval(60)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: file.path)
        _ = cache.outline(fileAt: file.path, boundary: boundary)
        #expect(reader.count == 3)
        cache.forget()
        _ = cache.outline(fileAt: file.path, boundary: boundary)
        #expect(reader.count == 4)
        // A whole reading is not an outline: kept apart.
        _ = cache.load(fileAt: file.path, boundary: boundary)
        _ = cache.load(fileAt: file.path, boundary: boundary)
        #expect(reader.count == 5)
    }

    @Test func aDescriptionThatCouldNotBeReadIsForgottenWhenAnyFileChanges() throws {
        let file = try Self.file("openapi: 3.1.0\n")
        let boundary = FileBoundary(planFolder: file.deletingLastPathComponent())
        let failing = FailingLoaderDouble()
        let cache = CachingAPIDescriptionLoader(failing)
        _ = cache.load(fileAt: file.path, boundary: boundary)
        _ = cache.load(fileAt: file.path, boundary: boundary)
        #expect(failing.count == 1)
        // A file it may have lacked, elsewhere: the failure is not kept.
        cache.forget(changed: [file.deletingLastPathComponent().appendingPathComponent("schemas.yaml").path])
        _ = cache.load(fileAt: file.path, boundary: boundary)
        #expect(failing.count == 2)
        // A description read well is kept unless one of its own files changed.
        let reader = CountingLoaderDouble()
        let kept = CachingAPIDescriptionLoader(reader)
        _ = kept.load(fileAt: file.path, boundary: boundary)
        kept.forget(changed: ["/elsewhere/schemas.yaml"])
        _ = kept.load(fileAt: file.path, boundary: boundary)
        #expect(reader.count == 1)
        kept.forget(changed: [file.path])
        _ = kept.load(fileAt: file.path, boundary: boundary)
        #expect(reader.count == 2)
    }

    /// A test double: a loader that fails, counting what it is asked.
    final class FailingLoaderDouble: APIDescriptionLoader {
        let asked = Mutex(0)

        func load(fileAt path: String, boundary: FileBoundary) -> Result<APIDescription, APIDescriptionLoadError> {
            asked.withLock { $0 += 1 }
            return .failure(APIDescriptionLoadError("`\(path)` refers to a file that is missing"))
        }

        var count: Int { asked.withLock { $0 } }
    }

    @Test func aFileThatCannotBeFoundIsAskedForEachTime() {
        let reader = CountingLoaderDouble()
        let cache = CachingAPIDescriptionLoader(reader)
        let boundary = FileBoundary(planFolder: URL(fileURLWithPath: "/nonexistent"))
        _ = cache.outline(fileAt: "/nonexistent/api.yaml", boundary: boundary)
        _ = cache.outline(fileAt: "/nonexistent/api.yaml", boundary: boundary)
        #expect(reader.count == 2)
    }
}
