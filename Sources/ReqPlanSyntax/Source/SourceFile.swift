/// The text of one plan file, with fast access to its lines.
public struct SourceFile: Sendable {
    /// The path shown in diagnostics (as the user gave it).
    public let path: String
    /// The whole text.
    public let text: String
    /// Where each line is in `text`, without its terminator; line `n` is `lineRanges[n - 1]`.
    private let lineRanges: [Range<String.Index>]

    /// Creates a source file from its display path and text.
    /// - Complexity: O(*n*) in the length of `text` (one pass over its UTF-8 bytes).
    public init(path: String, text: String) {
        self.path = path
        self.text = text
        // A line ends at "\n", "\r\n" or a lone "\r", as in YAML; the bytes are ASCII, so every range
        // falls on scalar boundaries.
        var ranges: [Range<String.Index>] = []
        let utf8 = text.utf8
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            let byte = utf8[index]
            guard byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else {
                utf8.formIndex(after: &index)
                continue
            }
            ranges.append(start..<index)
            utf8.formIndex(after: &index)
            if byte == UInt8(ascii: "\r"), index != utf8.endIndex, utf8[index] == UInt8(ascii: "\n") {
                utf8.formIndex(after: &index)
            }
            start = index
        }
        ranges.append(start..<utf8.endIndex)
        self.lineRanges = ranges
    }

    /// Each line without its terminator, in order; line `n` is `lines[n - 1]`.
    public var lines: [Substring] { lineRanges.map { text[$0] } }

    /// How many lines the text has (a final line break starts an empty last line).
    public var lineCount: Int { lineRanges.count }

    /// The text of line `number` (1-based), or `nil` past the end.
    public func line(_ number: Int) -> Substring? {
        guard number >= 1, number <= lineRanges.count else { return nil }
        return text[lineRanges[number - 1]]
    }

    /// The Unicode scalar at `location`, or `nil` past the end of its line.
    public func character(at location: SourceLocation) -> Unicode.Scalar? {
        guard let line = line(location.line), location.column >= 1 else { return nil }
        return line.unicodeScalars.dropFirst(location.column - 1).first
    }

    /// The range of the token that starts at `location`, as a YAML reader sees it:
    /// a quoted scalar up to its closing quote, or a plain word up to the next
    /// indicator (`: `, `,`, `]`, `}`, ` #`) or the end of the line.
    public func tokenRange(at location: SourceLocation) -> SourceRange {
        guard let line = line(location.line), location.column >= 1 else { return SourceRange(at: location) }
        // Only the token's own part of the line is looked at (at most 1,024 scalars), so very long
        // lines with many tokens stay linear. Offsets below are relative to `location`.
        let scalars = Array(line.unicodeScalars.dropFirst(location.column - 1).prefix(1024))
        let start = 0
        guard !scalars.isEmpty else { return SourceRange(at: location) }
        var index = start
        let first = scalars[start]
        if first == "\"" || first == "'" {
            index += 1
            while index < scalars.count {
                if first == "\"" && scalars[index] == "\\" {
                    index += 2
                    continue
                }
                if scalars[index] == first {
                    if first == "'" && index + 1 < scalars.count && scalars[index + 1] == "'" {
                        index += 2
                        continue
                    }
                    index += 1
                    break
                }
                index += 1
            }
            return SourceRange(start: location, length: min(index, scalars.count) - start)
        }
        if first == "[" || first == "{" || first == "|" || first == ">" {
            return SourceRange(at: location)
        }
        let second: Unicode.Scalar? = start + 1 < scalars.count ? scalars[start + 1] : nil
        if first == "-" && (second == nil || second == " " || second == "\t") {
            // A block sequence: its `-`.
            return SourceRange(at: location)
        }
        if first == "&" {
            // An anchor: its name, not the node after it.
            while index < scalars.count, scalars[index] != " ", scalars[index] != "\t" { index += 1 }
            return SourceRange(start: location, length: index - start)
        }
        while index < scalars.count {
            let scalar = scalars[index]
            let next: Unicode.Scalar? = index + 1 < scalars.count ? scalars[index + 1] : nil
            if scalar == ":" && (next == nil || next == " " || next == "\t") { break }
            if scalar == "," || scalar == "]" || scalar == "}" { break }
            if scalar == "#" && index > start && (scalars[index - 1] == " " || scalars[index - 1] == "\t") { break }
            index += 1
        }
        var end = index
        while end > start && (scalars[end - 1] == " " || scalars[end - 1] == "\t") { end -= 1 }
        return SourceRange(start: location, length: end - start)
    }

    /// Finds `needle` in the source at or after `location`, on the same line or later ones.
    /// - Returns: the location of its first Unicode scalar, or `nil`.
    public func find(_ needle: String, from location: SourceLocation, maxLines: Int = 200) -> SourceLocation? {
        guard !needle.isEmpty, !needle.contains("\n") else { return nil }
        let needleScalars = Array(needle.unicodeScalars)
        var lineNumber = location.line
        var startColumn = location.column
        while lineNumber <= lineCount && lineNumber < location.line + maxLines, let line = line(lineNumber) {
            let scalars = Array(line.unicodeScalars)
            var index = max(0, startColumn - 1)
            while index + needleScalars.count <= scalars.count {
                if scalars[index] == needleScalars[0]
                    && Array(scalars[index..<(index + needleScalars.count)]) == needleScalars
                {
                    return SourceLocation(line: lineNumber, column: index + 1)
                }
                index += 1
            }
            lineNumber += 1
            startColumn = 1
        }
        return nil
    }
}
