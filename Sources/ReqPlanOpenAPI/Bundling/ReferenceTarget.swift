import Foundation
import ReqPlanPlanner
import Yams

/// Where a `$ref` points: a file (the referring one when the reference starts with `#`) and a JSON
/// pointer into it, both percent-decoded, the pointer's tokens `~`-decoded (RFC 6901).
struct ReferenceTarget {
    /// The file, standardized (`..` and `.` removed).
    let file: URL
    /// The pointer's tokens: `#/components/schemas/a~1b` is `components`, `schemas`, `a/b`.
    let tokens: [String]

    /// The place `tokens` in `file`.
    init(file: URL, tokens: [String]) {
        self.file = file
        self.tokens = tokens
    }

    /// Reads `reference`, written in `referrer`.
    /// - Throws: for a reference to another host (`https://…`): only local files are read.
    init(_ reference: String, in referrer: URL) throws {
        let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let location = String(parts[0])
        if let colon = location.firstIndex(of: ":"), location[..<colon].count > 1,
            location[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
        {
            throw APIDescriptionLoadError(
                "reference `\(reference)` names a remote document; reqplan reads only local files: save it beside the "
                    + "description and refer to it by a relative path")
        }
        let path = location.removingPercentEncoding ?? location
        file =
            path.isEmpty
            ? referrer.standardizedFileURL
            : URL(fileURLWithPath: path, relativeTo: referrer.deletingLastPathComponent()).standardizedFileURL
        tokens = Self.tokens(ofPointer: parts.count > 1 ? String(parts[1]) : "")
    }

    /// The tokens of a JSON pointer written as a URI fragment, percent-encoded or not: `/a/b~1c` is `a`, `b/c`.
    static func tokens(ofPointer pointer: String) -> [String] {
        let decoded = pointer.removingPercentEncoding ?? pointer
        return decoded.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }

    /// The same place, written one way: `file#/a/b`.
    var key: String { file.path + "#/" + tokens.joined(separator: "/") }

    /// The pointer written back (`~` and `/` in tokens escaped), starting with `#`.
    var pointer: String {
        "#"
            + tokens.map {
                "/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
            }
            .joined()
    }

    /// The node the pointer names in `root`.
    /// - Parameter name: the file as messages show it.
    func resolve(in root: Node, reference: String, name: String) throws -> Node {
        var node = root
        for token in tokens {
            let next: Node?
            switch node {
            case .mapping(let mapping): next = mapping.first { $0.key.string == token }?.value
            case .sequence(let sequence):
                next = Int(token).flatMap { sequence.indices.contains($0) ? sequence[$0] : nil }
            default: next = nil
            }
            guard let next else {
                throw APIDescriptionLoadError("reference `\(reference)`: `\(token)` not found in `\(name)`")
            }
            node = next
        }
        return node
    }
}
