import Foundation
import ReqPlanSyntax
import Synchronization

/// Keeps what another loader read, for a process that checks the same plans again and again (the language
/// server checks a plan at each pause in typing): a description is read again only when one of the files it
/// was read from changed (its size or modification time: the root document, or any file its references
/// named, so a description split over many files is read again when any of them changes), or after
/// `forget()`.
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
        /// Each file read, as it was when read (nil: it could not be looked at).
        var stamps: [String: Stamp?]
        var result: Result<APIDescription, APIDescriptionLoadError>

        /// Whether every file read is as it was: a description read in outline may have read more files
        /// since (operations asked for in full), which are taken as they are now.
        mutating func isCurrent() -> Bool {
            let files = (try? result.get().filesRead) ?? []
            for file in files where stamps[file] == nil {
                stamps[file] = Stamp(file: file)
            }
            return stamps.allSatisfy { file, stamp in stamp != nil && Stamp(file: file) == stamp }
        }
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

    /// Drops what `files` changing may change (a client said they changed): the descriptions read from any
    /// of them, and every description that could not be read (a file it lacked may be there now).
    public func forget(changed files: [String]) {
        let changed = Set(files.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
        entries.withLock { entries in
            entries = entries.filter { _, entry in
                guard case .success = entry.result else { return false }
                return entry.stamps.keys.allSatisfy {
                    !changed.contains(URL(fileURLWithPath: $0).standardizedFileURL.path)
                }
            }
        }
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
        let kept: Result<APIDescription, APIDescriptionLoadError>? = entries.withLock { entries in
            guard var entry = entries[key] else { return nil }
            let current = entry.isCurrent()
            entries[key] = current ? entry : nil
            return current ? entry.result : nil
        }
        if let kept { return kept }
        reads.add(1, ordering: .relaxed)
        // The root's stamp is taken before reading: a change while it is read is seen at the next check.
        let rootStamp = Stamp(file: key.file)
        // Read outside the lock: two checks of different plans may read different descriptions at once.
        let result = read()
        var stamps: [String: Stamp?] = [key.file: rootStamp]
        for file in (try? result.get().filesRead) ?? [] where file != key.file {
            stamps[file] = Stamp(file: file)
        }
        entries.withLock { $0[key] = Entry(stamps: stamps, result: result) }
        return result
    }
}
