extension String {
    /// The index of an LSP position in the text.
    ///
    /// As LSP 3.17 says, a character offset past the end of its line is the end of the line (before its
    /// line break), and a line past the last one is the end of the text. An offset inside a character
    /// encoded as two UTF-16 units (a surrogate pair) is the start of that character, so an edit never
    /// splits one.
    /// - Complexity: O(*n*) in the length of the text up to the position.
    public func index(of position: TextPosition) -> String.Index {
        let scalars = unicodeScalars
        var index = scalars.startIndex
        var line = 0
        while line < position.line {
            guard index != scalars.endIndex else { return endIndex }
            let scalar = scalars[index]
            scalars.formIndex(after: &index)
            if scalar == "\n" {
                line += 1
            } else if scalar == "\r" {
                if index != scalars.endIndex, scalars[index] == "\n" { scalars.formIndex(after: &index) }
                line += 1
            }
        }
        var units = 0
        while index != scalars.endIndex {
            let scalar = scalars[index]
            if scalar == "\n" || scalar == "\r" { break }
            let width = scalar.utf16.count
            if units + width > position.character { break }
            units += width
            scalars.formIndex(after: &index)
        }
        return index
    }

    /// The text with `range` (LSP positions) replaced by `text`.
    public func replacing(_ range: TextRange, with text: String) -> String {
        let lower = index(of: range.start)
        let upper = Swift.max(lower, index(of: range.end))
        // Through the scalars: `String`'s own replacement would round the bounds to whole characters, and a
        // client may insert between a letter and its combining accent.
        var result = self
        result.unicodeScalars.replaceSubrange(lower..<upper, with: text.unicodeScalars)
        return result
    }

    /// The LSP position of `index` in the text.
    /// - Complexity: O(*n*) in the length of the text up to `index`.
    public func position(of target: String.Index) -> TextPosition {
        let scalars = unicodeScalars
        var index = scalars.startIndex
        var line = 0
        var units = 0
        while index < target, index != scalars.endIndex {
            let scalar = scalars[index]
            scalars.formIndex(after: &index)
            if scalar == "\n" {
                line += 1
                units = 0
            } else if scalar == "\r" {
                if index != scalars.endIndex, index < target, scalars[index] == "\n" {
                    scalars.formIndex(after: &index)
                }
                line += 1
                units = 0
            } else {
                units += scalar.utf16.count
            }
        }
        return TextPosition(line: line, character: units)
    }
}
