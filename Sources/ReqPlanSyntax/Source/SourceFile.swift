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
        // Every character that ends a token is ASCII, so the line's UTF-8 bytes are scanned in place (this
        // runs for every key and value a plan has); columns and lengths count Unicode scalars, the bytes
        // that do not continue one.
        return line.utf8.withContiguousStorageIfAvailable { Self.tokenRange(in: $0, at: location) }
            ?? Self.tokenRange(in: Array(line.utf8), at: location)
    }

    /// `tokenRange(at:)` over the UTF-8 bytes of the token's line. Only the token's own part of the line
    /// is looked at (at most 1,024 scalars), so very long lines with many tokens stay linear.
    private static func tokenRange<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes, at location: SourceLocation)
        -> SourceRange where Bytes.Index == Int
    {
        func startsScalar(_ byte: UInt8) -> Bool { byte & 0xC0 != 0x80 }
        var begin = bytes.startIndex
        var skipped = 0
        while begin < bytes.endIndex, skipped < location.column - 1 {
            begin += 1
            while begin < bytes.endIndex, !startsScalar(bytes[begin]) { begin += 1 }
            skipped += 1
        }
        guard begin < bytes.endIndex else { return SourceRange(at: location) }
        // The token's end, as a byte offset; at most 1,024 scalars from its start.
        var limit = begin
        var counted = 0
        while limit < bytes.endIndex, counted < 1024 {
            limit += 1
            while limit < bytes.endIndex, !startsScalar(bytes[limit]) { limit += 1 }
            counted += 1
        }
        func length(to end: Int) -> Int { bytes[begin..<end].count(where: startsScalar) }
        func byte(_ index: Int) -> UInt8? { index < limit ? bytes[index] : nil }
        let first = bytes[begin]
        var index = begin
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            index += 1
            while index < limit {
                if first == UInt8(ascii: "\"") && bytes[index] == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if bytes[index] == first {
                    if first == UInt8(ascii: "'") && byte(index + 1) == UInt8(ascii: "'") {
                        index += 2
                        continue
                    }
                    index += 1
                    break
                }
                index += 1
            }
            return SourceRange(start: location, length: length(to: min(index, limit)))
        }
        if first == UInt8(ascii: "[") || first == UInt8(ascii: "{") || first == UInt8(ascii: "|")
            || first == UInt8(ascii: ">")
        {
            return SourceRange(at: location)
        }
        let second = byte(begin + 1)
        if first == UInt8(ascii: "-") && (second == nil || second == UInt8(ascii: " ") || second == UInt8(ascii: "\t"))
        {
            // A block sequence: its `-`.
            return SourceRange(at: location)
        }
        if first == UInt8(ascii: "&") {
            // An anchor: its name, not the node after it.
            while index < limit, bytes[index] != UInt8(ascii: " "), bytes[index] != UInt8(ascii: "\t") { index += 1 }
            return SourceRange(start: location, length: length(to: index))
        }
        while index < limit {
            let current = bytes[index]
            let next = byte(index + 1)
            if current == UInt8(ascii: ":") && (next == nil || next == UInt8(ascii: " ") || next == UInt8(ascii: "\t"))
            {
                break
            }
            if current == UInt8(ascii: ",") || current == UInt8(ascii: "]") || current == UInt8(ascii: "}") { break }
            if current == UInt8(ascii: "#") && index > begin
                && (bytes[index - 1] == UInt8(ascii: " ") || bytes[index - 1] == UInt8(ascii: "\t"))
            {
                break
            }
            index += 1
        }
        var end = index
        while end > begin && (bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t")) { end -= 1 }
        return SourceRange(start: location, length: length(to: end))
    }

    /// Finds `needle` in the source at or after `location`, on the same line or later ones.
    /// - Returns: the location of its first Unicode scalar, or `nil`.
    /// - Complexity: O(*c* + *d*): the start's column, and the bytes searched. Lines are searched in place, as
    ///   UTF-8, never copied: an importer that locates thousands of items in a minified file (one long line)
    ///   asks thousands of times.
    public func find(_ needle: String, from location: SourceLocation, maxLines: Int = 200) -> SourceLocation? {
        guard !needle.isEmpty, !needle.contains("\n") else { return nil }
        let pattern = Array(needle.utf8)
        var lineNumber = max(1, location.line)
        var startColumn = location.column
        while lineNumber <= lineCount && lineNumber < location.line + maxLines {
            let utf8 = text.utf8
            let range = lineRanges[lineNumber - 1]
            // The byte where the search starts: `startColumn - 1` scalars into the line.
            var start = range.lowerBound
            var skipped = 1
            while skipped < startColumn, start < range.upperBound {
                utf8.formIndex(after: &start)
                while start < range.upperBound, utf8[start] & 0xC0 == 0x80 { utf8.formIndex(after: &start) }
                skipped += 1
            }
            if let match = Self.firstMatch(of: pattern, in: utf8[start..<range.upperBound]) {
                // Its column: the scalars before it, counted from the start (a scalar is a byte that does not
                // continue one).
                let column = skipped + utf8[start..<match].count { $0 & 0xC0 != 0x80 }
                return SourceLocation(line: lineNumber, column: column)
            }
            lineNumber += 1
            startColumn = 1
        }
        return nil
    }

    /// A place in the text: its line and column, and its index in `text`, so that a search can go on from it
    /// without counting from the start of its line (`find(_:after:)`).
    public struct Mark: Sendable {
        /// Its line and column (in Unicode scalars).
        public let location: SourceLocation
        let index: String.Index
    }

    /// The start of the text.
    public var start: Mark { Mark(location: SourceLocation(line: 1, column: 1), index: text.startIndex) }

    /// The place one Unicode scalar after `mark` (a search for the next of several on from one found).
    public func mark(after mark: Mark) -> Mark {
        guard mark.index < text.endIndex else { return mark }
        return Mark(location: mark.location.advanced(by: 1), index: text.unicodeScalars.index(after: mark.index))
    }

    /// Finds `needle` at or after `mark`, on its line or a later one.
    /// - Returns: where its first Unicode scalar is, or `nil`.
    /// - Complexity: O(*d* + log *n*): the bytes searched, and the lines (plus, for a match on a later line, its
    ///   column). A run of searches on from each other is linear in the text, minified one-line files too.
    public func find(_ needle: String, after mark: Mark) -> Mark? {
        guard !needle.isEmpty, !needle.contains("\n"), !needle.contains("\r") else { return nil }
        let utf8 = text.utf8
        guard mark.index <= utf8.endIndex, let match = Self.firstMatch(of: Array(needle.utf8), in: utf8[mark.index...])
        else { return nil }
        // The line of the match: the last that starts at or before it.
        var low = 0
        var high = lineRanges.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineRanges[middle].lowerBound <= match { low = middle } else { high = middle - 1 }
        }
        let line = low + 1
        func scalars(_ from: String.Index) -> Int { utf8[from..<match].count { $0 & 0xC0 != 0x80 } }
        let column =
            line == mark.location.line && mark.index >= lineRanges[low].lowerBound
            ? mark.location.column + scalars(mark.index) : 1 + scalars(lineRanges[low].lowerBound)
        return Mark(location: SourceLocation(line: line, column: column), index: match)
    }

    /// Where `pattern` first starts in `bytes`.
    private static func firstMatch(of pattern: [UInt8], in bytes: Substring.UTF8View) -> String.Index? {
        guard let first = pattern.first, bytes.count >= pattern.count else { return nil }
        var index = bytes.startIndex
        var remaining = bytes.count
        while remaining >= pattern.count {
            if bytes[index] == first {
                var candidate = index
                var matched = true
                for byte in pattern.dropFirst() {
                    bytes.formIndex(after: &candidate)
                    if bytes[candidate] != byte {
                        matched = false
                        break
                    }
                }
                if matched { return index }
            }
            bytes.formIndex(after: &index)
            remaining -= 1
        }
        return nil
    }
}

extension SourceFile {
    /// The text of `range` as written, when the range is on one line (where a fix's replacement can stand
    /// for it); `nil` for a range over several lines or outside the text.
    public func text(onOneLine range: SourceRange) -> String? {
        guard range.start.line == range.end.line, range.start.column >= 1, range.end.column >= range.start.column,
            let line = line(range.start.line)
        else { return nil }
        let scalars = line.unicodeScalars.dropFirst(range.start.column - 1)
        let count = range.end.column - range.start.column
        guard scalars.count >= count else { return nil }
        return String(String.UnicodeScalarView(scalars.prefix(count)))
    }

    /// The text of `range` on one line: each line it spans trimmed and joined by a space (a range that ends at
    /// column 1 of a line stops before it).
    public func oneLineText(of range: SourceRange) -> String {
        var parts: [Substring] = []
        for number in range.start.line...max(range.start.line, range.end.line) {
            guard let line = line(number) else { break }
            let scalars = line.unicodeScalars
            let from = number == range.start.line ? max(0, range.start.column - 1) : 0
            let to = number == range.end.line ? max(from, range.end.column - 1) : scalars.count
            let start =
                scalars.index(scalars.startIndex, offsetBy: from, limitedBy: scalars.endIndex) ?? scalars.endIndex
            let end = scalars.index(scalars.startIndex, offsetBy: to, limitedBy: scalars.endIndex) ?? scalars.endIndex
            let part = Substring(scalars[start..<end])
            let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
            let trimmed = part.drop(while: blank).reversed().drop(while: blank).reversed()
            if !trimmed.isEmpty { parts.append(Substring(trimmed)) }
        }
        return parts.joined(separator: " ")
    }
}
