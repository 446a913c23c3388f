import Foundation
import ReqPlanSyntax
import Synchronization

/// Keeps what another loader read, for a process that checks the same plans again and again (the language
/// server checks a plan at each pause in typing): a description is read again only when the file it was read
/// from changed (its size or modification time), or after `forget()` (a client said files changed: a
/// description split over many files may change in a file other than the one a plan names).
///
/// A `PlanLibrary` keeps descriptions for one command; this keeps them across libraries.
public final class CachingAPIDescriptionLoader: APIDescriptionLoader {
    private struct Key: Hashable {
        var file: String
        var boundary: FileBoundary
        var outline: Bool
    }

    /// What the file was when it was read: a different size or modification time means it changed.
    private struct Stamp: Equatable {
        var size: UInt64
        var modified: Date

        init?(file: String) {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: file),
                let size = (attributes[.size] as? NSNumber)?.uint64Value,
                let modified = attributes[.modificationDate] as? Date
            else { return nil }
            self.size = size
            self.modified = modified
        }
    }

    private struct Entry {
        var stamp: Stamp?
        var result: Result<APIDescription, APIDescriptionLoadError>
    }

    private let reader: any APIDescriptionLoader
    private let entries = Mutex<[Key: Entry]>([:])
    private let reads = Atomic<Int>(0)

    /// A cache over `reader`.
    public init(_ reader: any APIDescriptionLoader) {
        self.reader = reader
    }

    /// How many times the loader underneath was asked to read: what the cache could not answer.
    public var readCount: Int { reads.load(ordering: .relaxed) }

    /// Drops everything kept: the next check reads each description again.
    public func forget() {
        entries.withLock { $0.removeAll() }
    }

    public func load(fileAt path: String, boundary: FileBoundary) -> Result<APIDescription, APIDescriptionLoadError> {
        cached(Key(file: path, boundary: boundary, outline: false)) { reader.load(fileAt: path, boundary: boundary) }
    }

    public func outline(fileAt path: String, boundary: FileBoundary) -> Result<APIDescription, APIDescriptionLoadError>
    {
        cached(Key(file: path, boundary: boundary, outline: true)) { reader.outline(fileAt: path, boundary: boundary) }
    }

    private func cached(
        _ key: Key, read: () -> Result<APIDescription, APIDescriptionLoadError>
    ) -> Result<APIDescription, APIDescriptionLoadError> {
        let stamp = Stamp(file: key.file)
        if let entry = entries.withLock({ $0[key] }), entry.stamp == stamp, stamp != nil {
            return entry.result
        }
        reads.add(1, ordering: .relaxed)
        // Read outside the lock: two checks of different plans may read different descriptions at once.
        let result = read()
        entries.withLock { $0[key] = Entry(stamp: stamp, result: result) }
        return result
    }
}
