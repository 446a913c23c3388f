import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
    /// - Parameters:
    ///   - what: what the file is, for the too-large message (`plan`, `inputs file`).
    ///   - shown: how messages name the file (default: `path`).
    public static func read(atPath path: String, limit: Int, what: String, shownAs shown: String? = nil)
        -> Result<String, Failure>
    {
        let name = shown ?? path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(Failure(text: "cannot read `\(name)`: no such file"))
        }
        if isDirectory.boolValue { return .failure(Failure(text: "cannot read `\(name)`: it is a directory")) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == EACCES ? "permission denied" : String(cString: strerror(errno))
            return .failure(Failure(text: "cannot read `\(name)`: \(reason)"))
        }
        defer { close(descriptor) }
        // Read one byte past the limit, so a huge file is refused without reading it all. A pipe
        // gives its text in pieces, and a signal (Ctrl-C while the plan is read) may interrupt a
        // read: both go on until the end of the file.
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= limit {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(Failure(text: "cannot read `\(name)`: \(String(cString: strerror(errno)))"))
            }
            bytes.append(contentsOf: chunk[..<count])
        }
        if bytes.count > limit {
            return .failure(Failure(text: "\(what) is larger than the limit of \(limit) bytes", isTooLarge: true))
        }
        // Checked and copied once, by the standard library (through `Data` it was copied twice more).
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(Failure(text: "cannot read `\(name)`: the file is not UTF-8 text"))
        }
        return .success(text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text)
    }
}

#if canImport(Glibc)
    private let systemRead = Glibc.read
#elseif canImport(Darwin)
    private let systemRead = Darwin.read
#endif
