/// Where a line of a plan names API things, read from its text (block or flow style, half-written or
/// not): the value of `operation:`, and a `path: {` mapping still open.
enum APIPlaces {
    /// Where the value of the last `operation:` of `before` starts (after spaces and an opening quote),
    /// when `before` ends inside that value.
    static func operationValue(_ before: Substring.UnicodeScalarView) -> Substring.UnicodeScalarView.Index? {
        guard let (start, quote) = operationValueStart(in: before) else { return nil }
        let value = before[start...]
        guard !value.contains(where: { $0 == "," || $0 == "}" || $0 == "#" || $0 == quote }) else { return nil }
        return start
    }

    /// Where the value of the last `operation:` of `text` starts (after spaces and an opening quote), and the
    /// quote, if any.
    private static func operationValueStart(in text: Substring.UnicodeScalarView) -> (
        Substring.UnicodeScalarView.Index, quote: Unicode.Scalar?
    )? {
        guard let key = keyRange("operation", in: text) else { return nil }
        var start = key.upperBound
        while start < text.endIndex, text[start] == " " { text.formIndex(after: &start) }
        var quote: Unicode.Scalar?
        if start < text.endIndex, text[start] == "\"" || text[start] == "'" {
            quote = text[start]
            text.formIndex(after: &start)
        }
        return (start, quote)
    }

    /// The `API.operationId` a line names after `operation:`, and the UTF-16 columns it spans.
    static func operationReference(onLine line: Substring.UnicodeScalarView) -> (text: String, columns: Range<Int>)? {
        guard let (start, quote) = operationValueStart(in: line) else { return nil }
        var end = start
        while end < line.endIndex {
            let scalar = line[end]
            if let quote {
                if scalar == quote { break }
            } else if scalar == "," || scalar == "}" || scalar == "#" {
                break
            }
            line.formIndex(after: &end)
        }
        var value = line[start..<end]
        while value.last == " " { value = value.dropLast() }
        guard value.contains("."), !value.isEmpty else { return nil }
        let from = line[..<start].reduce(0) { $0 + $1.utf16.count }
        return (String(String.UnicodeScalarView(value)), from..<from + value.reduce(0) { $0 + $1.utf16.count })
    }

    /// Where the flow mapping opened by `key: {` in `head` starts (after the brace), when it is still open
    /// and `head` ends where a key of it goes (after the brace or a comma).
    static func openFlowMapping(after key: String, in head: Substring.UnicodeScalarView)
        -> Substring.UnicodeScalarView.Index?
    {
        guard let found = keyRange(key, in: head) else { return nil }
        var brace = found.upperBound
        while brace < head.endIndex, head[brace] == " " { head.formIndex(after: &brace) }
        guard brace < head.endIndex, head[brace] == "{" else { return nil }
        let inside = head[head.index(after: brace)...]
        guard !inside.contains("}"), !inside.contains("{") else { return nil }
        let last = inside.last { $0 != " " }
        guard last == nil || last == "," else { return nil }
        return inside.startIndex
    }

    /// The keys written in the flow mapping text `a: 1, b: "x", `.
    static func flowKeys(_ text: Substring.UnicodeScalarView) -> Set<String> {
        var keys: Set<String> = []
        for entry in String(String.UnicodeScalarView(text)).split(separator: ",") {
            guard let colon = entry.firstIndex(of: ":") else { continue }
            let key = entry[..<colon].trimmingSpaces
            if !key.isEmpty { keys.insert(key) }
        }
        return keys
    }

    /// The last `key:` of `text` that is a whole key (not the end of a longer name).
    private static func keyRange(_ key: String, in text: Substring.UnicodeScalarView)
        -> Range<Substring.UnicodeScalarView.Index>?
    {
        var rest = text
        var found: Range<Substring.UnicodeScalarView.Index>?
        while let next = CompletionContext.range(of: key + ":", in: rest) {
            let whole =
                next.lowerBound == text.startIndex
                || !CompletionContext.isNameCharacter(text[text.index(before: next.lowerBound)])
            if whole { found = next }
            rest = text[next.upperBound...]
        }
        return found
    }
}

extension Substring {
    /// Without spaces at either end.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
