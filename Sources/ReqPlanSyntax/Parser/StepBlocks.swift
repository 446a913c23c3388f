/// A plan's text cut where its top-level steps start, so each step can be composed and read on its own and
/// what was read kept while the plan changes around it (`PlanReadCache`).
///
/// Only a plain layout is cut: one `steps:` line at the start of a line with nothing after it, then the
/// steps, each starting at the same indentation with `id:` (a plain name), and every other line of them
/// indented deeper (or blank, or a comment). YAML reads such a block the same alone as in the plan: its
/// value is every line indented deeper than its key, up to the next key. Anything else (flow `steps: {…}`,
/// a quoted id, a tab, a second document, `\r` line breaks, an id given twice) is not cut, and the plan is
/// read whole.
struct StepBlocks {
    struct Block: Sendable {
        /// The step id its first line declares.
        var id: String
        /// The line its key is on (1-based).
        var firstLine: Int
        /// Its lines, from its key to the line before the next step's key.
        var text: Substring
    }

    /// The top-level steps, in order.
    var blocks: [Block]
    /// The plan with every line of its steps left empty: what is around the steps, at the same lines.
    var outline: String

    /// Cuts `source`, or `nil` when its layout is not the plain one.
    static func cut(_ source: SourceFile) -> StepBlocks? {
        let text = source.text
        // Over the bytes in place: the generic walk of the view took a millisecond for a 500 KB plan.
        let hasCarriageReturn =
            text.utf8.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: "\r")) }
            ?? text.utf8.contains(UInt8(ascii: "\r"))
        guard !hasCarriageReturn else { return nil }
        // The lines by their bytes (the source found them in one pass): this runs at every keystroke.
        let lines = source.lines
        var stepsLine: Int?
        for (index, line) in lines.enumerated() {
            let bytes = line.utf8
            guard let first = bytes.first,
                first == UInt8(ascii: "s") || first == UInt8(ascii: "-")
                    || first == UInt8(ascii: ".")
            else { continue }
            if index > 0, bytes.starts(with: "---".utf8) || bytes.starts(with: "...".utf8) { return nil }
            guard bytes.starts(with: "steps:".utf8) else { continue }
            let rest = bytes.dropFirst("steps:".utf8.count).drop(while: { $0 == UInt8(ascii: " ") })
            guard rest.isEmpty || rest.first == UInt8(ascii: "#"), stepsLine == nil else { return nil }
            stepsLine = index
        }
        guard let stepsLine else { return nil }
        var end = stepsLine + 1
        var indent: Int?
        var starts: [(index: Int, id: Substring)] = []
        while end < lines.count {
            let bytes = lines[end].utf8
            let spaces = bytes.prefix(while: { $0 == UInt8(ascii: " ") }).count
            let rest = bytes.dropFirst(spaces)
            if rest.isEmpty || rest.first == UInt8(ascii: "#") {
                end += 1
                continue
            }
            if spaces == 0 { break }
            if rest.first == UInt8(ascii: "\t") { return nil }
            let level = indent ?? spaces
            indent = level
            if spaces < level { return nil }
            if spaces == level {
                guard let id = Self.declaredID(Substring(rest)) else { return nil }
                starts.append((end, id))
            }
            end += 1
        }
        guard !starts.isEmpty, Set(starts.map(\.id)).count == starts.count else { return nil }
        var blocks: [Block] = []
        blocks.reserveCapacity(starts.count)
        for (number, start) in starts.enumerated() {
            let last = number + 1 < starts.count ? starts[number + 1].index - 1 : end - 1
            let from = lines[start.index].startIndex
            let to = lines[last].endIndex
            blocks.append(Block(id: String(start.id), firstLine: start.index + 1, text: text[from..<to]))
        }
        // Everything before the steps' first line and from the line after their last, with an empty line for
        // each line between.
        let utf8 = text.utf8
        let head = utf8[..<lines[stepsLine].endIndex]
        let tail = end < lines.count ? utf8[lines[end].startIndex...] : utf8[utf8.endIndex...]
        var outline = String(Substring(head))
        outline += String(repeating: "\n", count: end < lines.count ? end - stepsLine : end - stepsLine - 1)
        outline += Substring(tail)
        return StepBlocks(blocks: blocks, outline: outline)
    }

    /// The id of a line `id:` or `id: value` (after its indentation): a plain name, as step ids are.
    private static func declaredID(_ line: Substring) -> Substring? {
        let bytes = line.utf8
        guard let first = bytes.first, Self.isNameStart(first) else { return nil }
        var index = bytes.index(after: bytes.startIndex)
        while index != bytes.endIndex, Self.isNameStart(bytes[index]) || Self.isDigitOrDash(bytes[index]) {
            bytes.formIndex(after: &index)
        }
        guard index != bytes.endIndex, bytes[index] == UInt8(ascii: ":") else { return nil }
        let colon = index
        bytes.formIndex(after: &index)
        guard index == bytes.endIndex || bytes[index] == UInt8(ascii: " ") else { return nil }
        return line[line.startIndex..<colon]
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "_")
    }

    private static func isDigitOrDash(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
    }
}
