import Foundation

/// Reading a UTF-8 text file with a size limit: a plan, an inputs file. Pipes and process
/// substitution (`--inputs-file <(vault read …)`) work too: the file is read to its end, not by
/// its size.
public enum TextFile {
    /// Why a file could not be read, as a sentence for people.
    public struct Failure: Error, Sendable {
        public var text: String
        /// The file is larger than the limit.
        public var isTooLarge = false
    }

    /// Reads the file at `path`, refusing more than `limit` bytes without reading them all.
    /// - Parameter what: what the file is, for the too-large message (`plan`, `inputs file`).
    public static func read(atPath path: String, limit: Int, what: String) -> Result<String, Failure> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(Failure(text: "cannot read `\(path)`: no such file"))
        }
        if isDirectory.boolValue { return .failure(Failure(text: "cannot read `\(path)`: it is a directory")) }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .failure(Failure(text: "cannot read `\(path)`: permission denied"))
        }
        defer { try? handle.close() }
        // Read one byte past the limit, so a huge file is refused without reading it all.
        let data: Data
        do {
            data = try handle.read(upToCount: limit + 1) ?? Data()
        } catch {
            return .failure(Failure(text: "cannot read `\(path)`: \(error.localizedDescription)"))
        }
        if data.count > limit {
            return .failure(Failure(text: "\(what) is larger than the limit of \(limit) bytes", isTooLarge: true))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return .failure(Failure(text: "cannot read `\(path)`: the file is not UTF-8 text"))
        }
        return .success(text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text)
    }
}
