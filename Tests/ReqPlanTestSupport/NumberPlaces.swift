import Yams

/// The numbers of a YAML document and numbers at their limits to put in their place (HOSTILE.md, "Numbers"),
/// for the tests that feed every numeric field of plans, Arazzo documents and API descriptions.
public enum NumberPlaces {
    /// Numbers at their limits, as YAML writes them.
    public static let hostile = [
        "9223372036854775807", "-9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "18446744073709551615", "99999999999999999999999", "1e300", "-1e300", "1e-300", ".inf", "-.inf", ".nan",
        "-0", "0",
    ]
    /// The few that matter most, where every number of many files times every value above takes too long.
    public static let fewer = ["9223372036854775807", "-9223372036854775808", "1e300", ".inf", ".nan"]

    /// Where each plain numeric scalar of `text` is: its offset and length in UTF-8 bytes, and the key it is
    /// under (`concurrency`, `attempts`, `retryLimit`).
    public static func numbers(in text: String) throws -> [(offset: Int, length: Int, key: String)] {
        var found: [(Int, Int, String)] = []
        let bytes = Array(text.utf8)
        var lineStarts = [0]
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") { lineStarts.append(offset + 1) }
        func walk(_ node: Node, key: String) {
            switch node {
            case .scalar(let scalar):
                guard scalar.style == .plain || scalar.style == .any, let mark = node.mark,
                    Double(scalar.string) != nil || Int(scalar.string) != nil, mark.line - 1 < lineStarts.count
                else { return }
                // Yams' marks count characters from the line's start; go over them in bytes.
                let lineStart = lineStarts[mark.line - 1]
                let line = String(decoding: bytes[lineStart...].prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
                let offset = lineStart + String(line.prefix(mark.column - 1)).utf8.count
                found.append((offset, scalar.string.utf8.count, key))
            case .mapping(let mapping):
                for (name, value) in mapping { walk(value, key: name.string ?? key) }
            case .sequence(let sequence):
                for item in sequence { walk(item, key: key) }
            case .alias:
                break
            }
        }
        if let root = try Yams.compose(yaml: text) { walk(root, key: "") }
        return found
    }

    /// `text` with the `length` bytes at `offset` replaced by `replacement`.
    public static func replacing(_ text: String, at offset: Int, length: Int, with replacement: String) -> String {
        let bytes = Array(text.utf8)
        return String(decoding: bytes[..<offset] + Array(replacement.utf8) + bytes[(offset + length)...], as: UTF8.self)
    }
}
