import CYaml

/// JSON's escapes of a character above U+FFFF as its UTF-16 surrogate pair (`"\ud83c\udfb2"`, RFC 8259 §7),
/// which libyaml refuses ("found invalid Unicode character escape code"), rewritten as YAML's escape of the
/// character (`\U0001F3B2`) before libyaml reads the text.
///
/// - Only in double-quoted scalars: a pair is looked for in the bytes, then kept only where libyaml's own
///   events put it inside a double-quoted scalar; in a plain, single-quoted or block scalar, or a comment, the
///   escape is text and stays as written.
/// - Places: YAML's escape is two characters shorter, so two spaces per pair follow the scalar's closing quote,
///   where YAML ignores them, and every node keeps the line and column it has in the file. When the scalar goes
///   on to another line, nothing follows the pair on its line but the scalar. Only a place inside such a scalar
///   moves (an error at a later escape): `original(_:)` gives it back.
/// - Half a pair is left as written, for libyaml to refuse and `YAMLLoader` to word.
struct SurrogatePairEscapes {
    /// The text libyaml reads.
    let text: String
    /// For each line (as libyaml counts them) that changed: from which column of `text` on, how many columns to
    /// add to reach the file's column; in order.
    private let shifts: [Int: [(from: Int, add: Int)]]

    /// A pair found in the bytes: where its twelve bytes start, the character, and the closing quote it pads.
    private struct Pair {
        var offset: Int
        var scalar: UInt32
        /// The offset just past the scalar's closing quote, when that is on the pair's line.
        var padAt: Int?
        /// Where the pair starts, as libyaml counts: its line, column, and index in characters.
        var line = 0
        var column = 0
        var index = 0
    }

    /// `text` with the surrogate pairs of its double-quoted scalars rewritten; `nil` when it has none (most
    /// texts: one pass over their bytes).
    /// - Complexity: O(*n*) in the length of `text`; a text that has pairs is read once more by libyaml.
    static func rewriting(_ text: String) -> SurrogatePairEscapes? {
        // A native string's bytes are read in place: most texts have no pair, and are not copied.
        var pairs = text.utf8.withContiguousStorageIfAvailable { findPairs($0) } ?? findPairs(Array(text.utf8))
        guard !pairs.isEmpty else { return nil }
        let bytes = Array(text.utf8)
        locate(&pairs, in: bytes)
        // Read with every pair rewritten; keep those inside double-quoted scalars, and those libyaml did not read
        // as far as (the text is refused there, whatever they are).
        var rewritten = rewrite(bytes, pairs)
        var inside = Array(repeating: false, count: pairs.count)
        let stop = LibYAMLEvents.forEach(in: rewritten.text) { event in
            guard event.type == YAML_SCALAR_EVENT, event.data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE else {
                return true
            }
            let (start, end) = (event.start_mark.index, event.end_mark.index)
            var low = 0
            var high = rewritten.indices.count
            while low < high {
                let middle = (low + high) / 2
                if rewritten.indices[middle] <= start { low = middle + 1 } else { high = middle }
            }
            while low < rewritten.indices.count, rewritten.indices[low] < end {
                inside[low] = true
                low += 1
            }
            return true
        }
        let kept = pairs.indices.filter { number in
            inside[number] || (stop.map { rewritten.indices[number] >= $0 } ?? false)
        }
        if kept.isEmpty { return nil }
        if kept.count < pairs.count { rewritten = rewrite(bytes, kept.map { pairs[$0] }) }
        return SurrogatePairEscapes(text: rewritten.text, shifts: rewritten.shifts)
    }

    /// The place in the file of `location`, a place in `text`.
    func original(_ location: SourceLocation) -> SourceLocation {
        guard let line = shifts[location.line], let shift = line.last(where: { $0.from <= location.column }) else {
            return location
        }
        return SourceLocation(line: location.line, column: location.column + shift.add)
    }

    // MARK: Finding

    /// Every `\uD8xx\uDCxx` pair, reading `\` and the byte after it as one escape (so `\\ud83c` is none).
    private static func findPairs<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> [Pair]
    where Bytes.Index == Int {
        var pairs: [Pair] = []
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            if let high = hex(bytes, index + 1), (0xD800...0xDBFF).contains(high),
                index + 6 < bytes.count, bytes[index + 6] == UInt8(ascii: "\\"),
                let low = hex(bytes, index + 7), (0xDC00...0xDFFF).contains(low)
            {
                pairs.append(Pair(offset: index, scalar: 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)))
                index += 12
            } else {
                index += 2
            }
        }
        return pairs
    }

    /// The value of `uXXXX` at `start`, or `nil`.
    private static func hex<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, _ start: Int) -> UInt32?
    where Bytes.Index == Int {
        guard start + 4 < bytes.count, bytes[start] == UInt8(ascii: "u") else { return nil }
        var value: UInt32 = 0
        for byte in bytes[(start + 1)...(start + 4)] {
            guard let digit = hexDigit(byte) else { return nil }
            value = (value << 4) + digit
        }
        return value
    }

    static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// The length of the line break at `index` (libyaml's: `\r\n`, `\r`, `\n`, U+0085, U+2028, U+2029), or 0.
    private static func lineBreak(_ bytes: [UInt8], at index: Int) -> Int {
        switch bytes[index] {
        case UInt8(ascii: "\n"): return 1
        case UInt8(ascii: "\r"): return index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\n") ? 2 : 1
        case 0xC2: return index + 1 < bytes.count && bytes[index + 1] == 0x85 ? 2 : 0
        case 0xE2:
            guard index + 2 < bytes.count, bytes[index + 1] == 0x80 else { return 0 }
            return bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 ? 3 : 0
        default: return 0
        }
    }

    /// Sets each pair's line, column and index as libyaml counts them (characters, a leading byte-order mark
    /// not counted), and the closing quote it pads: one pass over the bytes up to the last pair, and from each
    /// pair on to its scalar's closing quote (once for the pairs of one scalar).
    private static func locate(_ pairs: inout [Pair], in bytes: [UInt8]) {
        var offset = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var (line, column, index) = (1, 1, 0)
        // The scalar last read to its end: how far, and the quote it ends at on the same line, if any.
        var readTo = -1
        var quote: Int?
        for number in pairs.indices {
            while offset < pairs[number].offset {
                let breakLength = lineBreak(bytes, at: offset)
                if breakLength > 0 {
                    offset += breakLength
                    // `\r\n` is two characters, one line break; the others one character each.
                    index += breakLength == 2 && bytes[offset - 2] == UInt8(ascii: "\r") ? 2 : 1
                    (line, column) = (line + 1, 1)
                    continue
                }
                offset += 1
                while offset < bytes.count, bytes[offset] & 0xC0 == 0x80 { offset += 1 }
                (column, index) = (column + 1, index + 1)
            }
            (pairs[number].line, pairs[number].column, pairs[number].index) = (line, column, index)
            if pairs[number].offset >= readTo {
                (readTo, quote) = closingQuote(bytes, from: pairs[number].offset + 12)
            }
            pairs[number].padAt = quote
        }
    }

    /// Reading a double-quoted scalar from `start`: where reading stopped, and the offset just past its closing
    /// quote if that is on the same line.
    private static func closingQuote(_ bytes: [UInt8], from start: Int) -> (readTo: Int, quote: Int?) {
        var offset = start
        while offset < bytes.count {
            if lineBreak(bytes, at: offset) > 0 { return (offset, nil) }
            switch bytes[offset] {
            case UInt8(ascii: "\""): return (offset + 1, offset + 1)
            case UInt8(ascii: "\\"):
                // An escaped line break goes on to the next line too.
                if offset + 1 < bytes.count, lineBreak(bytes, at: offset + 1) > 0 { return (offset + 1, nil) }
                offset += 2
            default: offset += 1
            }
        }
        return (offset, nil)
    }

    // MARK: Rewriting

    /// The text with `pairs` rewritten and padded, each pair's index in it, and the columns that moved.
    private static func rewrite(_ bytes: [UInt8], _ pairs: [Pair]) -> (
        text: String, indices: [Int], shifts: [Int: [(from: Int, add: Int)]]
    ) {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var indices: [Int] = []
        var shifts: [Int: [(from: Int, add: Int)]] = [:]
        var copied = 0
        // Characters removed so far (in the text, and on the current pair's line).
        var removed = 0
        var line = 0
        var removedOnLine = 0
        var number = 0
        while number < pairs.count {
            let pair = pairs[number]
            if pair.line != line { (line, removedOnLine) = (pair.line, 0) }
            // The pairs of the same scalar on this line share its closing quote.
            var next = number + 1
            while next < pairs.count, pairs[next].padAt != nil, pairs[next].padAt == pair.padAt { next += 1 }
            let together = pairs[number..<next]
            for each in together {
                output += bytes[copied..<each.offset]
                indices.append(each.index - removed)
                output += Array("\\U\(String(each.scalar, radix: 16, uppercase: true).leftPadded(to: 8))".utf8)
                copied = each.offset + 12
                (removed, removedOnLine) = (removed + 2, removedOnLine + 2)
                shifts[line, default: []].append((each.column - removedOnLine + 12, removedOnLine))
            }
            if let padAt = pair.padAt {
                output += bytes[copied..<padAt]
                let width = 2 * together.count
                output += Array(repeating: UInt8(ascii: " "), count: width)
                copied = padAt
                // The column just past the pad, in the text: the file's column of the quote's next character.
                let quoteColumn = pair.column + characters(bytes, from: pair.offset, to: padAt)
                removed -= width
                removedOnLine -= width
                shifts[line, default: []].append((quoteColumn - removedOnLine, removedOnLine))
            }
            number = next
        }
        output += bytes[copied...]
        return (String(decoding: output, as: UTF8.self), indices, shifts)
    }

    /// How many characters the bytes from `start` to `end` hold.
    private static func characters(_ bytes: [UInt8], from start: Int, to end: Int) -> Int {
        bytes[start..<end].count { $0 & 0xC0 != 0x80 }
    }
}

extension String {
    /// The string after as many zeros as make it `width` characters long.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
