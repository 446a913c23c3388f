/// What is being written at a place of a plan, read from the text around it, line by line: a YAML reader
/// would give up on the half-written documents completion is asked about (an unclosed `${{`, a tab, a key
/// without its value yet).
public enum CompletionContext: Sendable, Equatable {
    /// A key of the mapping at `path`; `present` are the keys the mapping has already.
    case key(path: [SchemaOutline.PathElement], present: Set<String>)
    /// A step id: in `needs:`, as an `slo:` item's `step:`, or after `steps.` in an expression.
    case stepID
    /// A field of the result of step `step`, after `steps.ID.` in an expression.
    case resultField(step: String)

    /// What is being written at `position` of `text`, and where the word being written starts (it is
    /// replaced by the completion); `nil` when completion has nothing to offer there.
    public static func at(_ position: TextPosition, in text: String) -> (CompletionContext, wordStart: TextPosition)? {
        let lines = Self.lines(text)
        guard position.line < lines.count else { return nil }
        let line = lines[position.line]
        let prefix = Self.prefix(of: line, units: position.character)
        let word = prefix.reversed().prefix { $0.isNameCharacter }.count
        let before = prefix.dropLast(word)
        let wordStart = TextPosition(line: position.line, character: before.reduce(0) { $0 + $1.utf16.count })

        if let open = Self.openExpression(before) {
            let expression = before[open...]
            if expression.hasSuffix("steps.") && !expression.dropLast(6).last.isNameOrDot {
                return (.stepID, wordStart)
            }
            // `steps.ID.` then the field.
            let upToDot = expression.dropLast()
            if expression.last == ".", let idStart = upToDot.lastIndex(where: { !$0.isNameCharacter }) {
                let id = upToDot[upToDot.index(after: idStart)...]
                let head = upToDot[..<upToDot.index(after: idStart)]
                if !id.isEmpty, head.hasSuffix("steps."), !head.dropLast(6).last.isNameOrDot {
                    return (.resultField(step: String(String.UnicodeScalarView(id))), wordStart)
                }
            }
            return nil
        }
        // `needs: [a, b` or `needs: a` on the line.
        if let needs = Self.range(of: "needs:", in: before),
            before[needs.upperBound...].allSatisfy({ $0 != "]" && $0 != "#" }),
            needs.lowerBound == before.startIndex || !before[before.index(before: needs.lowerBound)].isNameCharacter
        {
            return (.stepID, wordStart)
        }
        // The value of an `slo:` item's `step:`.
        if Self.isObjectiveStep(before, line: position.line, in: lines) { return (.stepID, wordStart) }
        // Otherwise only a key at the start of its line (after spaces and `- ` markers) is completed.
        var dashes: [Int] = []
        var column = 0
        var index = before.startIndex
        while index < before.endIndex {
            let next = before.index(after: index)
            if before[index] == "-", next < before.endIndex, before[next] == " " {
                dashes.append(column)
            } else if before[index] != " " {
                return nil
            }
            column += 1
            index = next
        }
        let parents = Self.parents(of: position.line, column: dashes.first ?? column, in: lines)
        // An item of a block list under `needs:`.
        if !dashes.isEmpty, parents.last == .key("needs") { return (.stepID, wordStart) }
        let path = parents + dashes.map { _ in SchemaOutline.PathElement.item }
        let present = dashes.isEmpty ? Self.siblingKeys(of: position.line, column: column, in: lines) : []
        return (.key(path: path, present: present), wordStart)
    }

    /// Whether `before` (a line up to the word being written) is the start of an `slo:` item's `step:` value:
    /// `  - step: ` or, under an item, `    step: ` (an opening quote may follow).
    static func isObjectiveStep(
        _ before: Substring.UnicodeScalarView, line: Int, in lines: [Substring.UnicodeScalarView]
    ) -> Bool {
        var dashes: [Int] = []
        var column = 0
        var index = before.startIndex
        while index < before.endIndex, before[index] == " " || before[index] == "-" {
            let next = before.index(after: index)
            if before[index] == "-" {
                guard next < before.endIndex, before[next] == " " else { return false }
                dashes.append(column)
            }
            column += 1
            index = next
        }
        let rest = String(String.UnicodeScalarView(before[index...]))
        guard rest.hasPrefix("step:") else { return false }
        let value = rest.dropFirst(5)
        guard value.first == " ", ["", "\"", "'"].contains(value.trimmingPrefix(while: { $0 == " " })) else {
            return false
        }
        let path = parents(of: line, column: dashes.first ?? column, in: lines) + dashes.map { _ in .item }
        return path == [.key("slo"), .item]
    }

    // MARK: Lines

    /// The lines of `text` as Unicode scalars, split at `\n`, `\r\n` and `\r` (as LSP and reqplan split them).
    static func lines(_ text: String) -> [Substring.UnicodeScalarView] {
        // Line breaks are found over the bytes (ASCII, so every break falls on a scalar boundary): walking the
        // scalars of a long plan at each request cost more than the completion itself.
        var lines: [Substring.UnicodeScalarView] = []
        let whole = Substring(text)
        let scalars = whole.unicodeScalars
        let utf8 = whole.utf8
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                lines.append(scalars[start..<index])
                utf8.formIndex(after: &index)
                if byte == UInt8(ascii: "\r"), index != utf8.endIndex, utf8[index] == UInt8(ascii: "\n") {
                    utf8.formIndex(after: &index)
                }
                start = index
            } else {
                utf8.formIndex(after: &index)
            }
        }
        lines.append(scalars[start..<utf8.endIndex])
        return lines
    }

    /// The scalars of `line` before the UTF-16 offset `units`.
    static func prefix(of line: Substring.UnicodeScalarView, units: Int) -> Substring.UnicodeScalarView {
        var count = 0
        var index = line.startIndex
        while index < line.endIndex, count + line[index].utf16.count <= units {
            count += line[index].utf16.count
            line.formIndex(after: &index)
        }
        return line[line.startIndex..<index]
    }

    /// Where the `${{` before the end of `text` starts, when no `}}` closes it.
    static func openExpression(_ text: Substring.UnicodeScalarView) -> Substring.UnicodeScalarView.Index? {
        guard let open = lastRange(of: "${{", in: text) else { return nil }
        if range(of: "}}", in: text[open.upperBound...]) != nil { return nil }
        return open.upperBound
    }

    /// The first occurrence of `needle` in `text`.
    static func range(of needle: String, in text: Substring.UnicodeScalarView)
        -> Range<Substring.UnicodeScalarView.Index>?
    {
        let pattern = Array(needle.unicodeScalars)
        var index = text.startIndex
        while index < text.endIndex {
            var end = index
            var matched = 0
            while matched < pattern.count, end < text.endIndex, text[end] == pattern[matched] {
                matched += 1
                text.formIndex(after: &end)
            }
            if matched == pattern.count { return index..<end }
            text.formIndex(after: &index)
        }
        return nil
    }

    /// The last occurrence of `needle` in `text`.
    static func lastRange(of needle: String, in text: Substring.UnicodeScalarView)
        -> Range<Substring.UnicodeScalarView.Index>?
    {
        var found: Range<Substring.UnicodeScalarView.Index>?
        var rest = text
        while let next = range(of: needle, in: rest) {
            found = next
            rest = text[next.upperBound...]
        }
        return found
    }

    // MARK: Structure from indentation

    /// A line's layout: the columns of its `- ` markers, the column of its key and the key, if it has one.
    struct Layout {
        var dashes: [Int] = []
        var keyColumn: Int
        var key: String?
        /// Whether the key has no value on its line (a nested mapping or list follows).
        var opensBlock = false
    }

    /// The layout of `line`, or `nil` for a blank or comment line.
    static func layout(_ line: Substring.UnicodeScalarView) -> Layout? {
        var column = 0
        var dashes: [Int] = []
        var index = line.startIndex
        while index < line.endIndex {
            let scalar = line[index]
            let next = line.index(after: index)
            if scalar == " " || scalar == "\t" {
                column += 1
            } else if scalar == "-", next == line.endIndex || line[next] == " " {
                dashes.append(column)
                column += 1
            } else {
                break
            }
            index = next
        }
        guard index < line.endIndex || !dashes.isEmpty else { return nil }
        if index < line.endIndex, line[index] == "#" { return nil }
        var layout = Layout(dashes: dashes, keyColumn: column)
        let rest = line[index...]
        guard let colon = range(of: ":", in: rest) else { return layout }
        let name = rest[rest.startIndex..<colon.lowerBound]
        let after = rest[colon.upperBound...]
        guard after.isEmpty || after.first == " " else { return layout }
        var key = String(String.UnicodeScalarView(name))
        if key.count >= 2, let first = key.first, first == "\"" || first == "'", key.last == first {
            key = String(key.dropFirst().dropLast())
        }
        guard !key.isEmpty, !key.contains(" ") || key.hasPrefix("\"") else { return layout }
        layout.key = key
        let value = after.drop { $0 == " " }
        layout.opensBlock = value.isEmpty || value.first == "#" || value.first == "&"
        return layout
    }

    /// The keys (and list items) that enclose column `column` of line `number`, outermost first.
    static func parents(of number: Int, column: Int, in lines: [Substring.UnicodeScalarView])
        -> [SchemaOutline.PathElement]
    {
        var path: [SchemaOutline.PathElement] = []
        var current = column
        var line = number - 1
        while line >= 0, current > 0 {
            defer { line -= 1 }
            guard let layout = layout(lines[line]) else { continue }
            if layout.keyColumn < current, let key = layout.key {
                path.append(.key(key))
                current = layout.keyColumn
            }
            for dash in layout.dashes.reversed() where dash < current {
                path.append(.item)
                current = dash
            }
        }
        return path.reversed()
    }

    /// The keys written in block style directly under a `steps:` key, in order: the step ids of a plan that
    /// does not read (half-written), as far as its text shows them.
    public static func stepIDs(in text: String) -> [String] {
        var ids: [String] = []
        // The block keys enclosing the current line: (column, key).
        var enclosing: [(column: Int, key: String?)] = []
        for line in lines(text) {
            guard let layout = layout(line) else { continue }
            let column = layout.dashes.first ?? layout.keyColumn
            while let last = enclosing.last, last.column >= column { enclosing.removeLast() }
            for dash in layout.dashes { enclosing.append((dash, nil)) }
            guard let key = layout.key else { continue }
            if layout.dashes.isEmpty, enclosing.last?.key == "steps" { ids.append(key) }
            enclosing.append((layout.keyColumn, key))
        }
        return ids
    }

    /// The keys written at column `column` in the mapping around line `number`.
    static func siblingKeys(of number: Int, column: Int, in lines: [Substring.UnicodeScalarView]) -> Set<String> {
        var keys: Set<String> = []
        for direction in [-1, 1] {
            var line = number + direction
            while line >= 0, line < lines.count {
                defer { line += direction }
                guard let layout = layout(lines[line]) else { continue }
                if layout.keyColumn < column { break }
                // A `- ` at this column starts the list item the mapping is: its first key above, the next
                // item below.
                if layout.keyColumn == column, !layout.dashes.isEmpty {
                    if direction < 0, let key = layout.key { keys.insert(key) }
                    break
                }
                if layout.keyColumn == column, let key = layout.key { keys.insert(key) }
            }
        }
        return keys
    }
}

extension CompletionContext {
    /// Whether `scalar` can be part of a step id or a key (`[A-Za-z0-9_-]`).
    static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar) || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            || scalar == "_" || scalar == "-"
    }
}

extension Unicode.Scalar {
    /// Whether the scalar can be part of a step id or a key (`[A-Za-z0-9_-]`).
    fileprivate var isNameCharacter: Bool { CompletionContext.isNameCharacter(self) }
}

extension Optional where Wrapped == Unicode.Scalar {
    /// Whether the scalar is part of a longer name (`mysteps.` is not `steps.`).
    fileprivate var isNameOrDot: Bool {
        guard let scalar = self else { return false }
        return scalar.isNameCharacter || scalar == "."
    }
}

extension Substring.UnicodeScalarView {
    fileprivate func hasSuffix(_ suffix: String) -> Bool {
        let tail = Array(suffix.unicodeScalars)
        return count >= tail.count && Array(self.suffix(tail.count)) == tail
    }
}
