import ReqPlanLanguageServer

extension TextPosition {
    /// The position of the first `needle` on line `line` (0-based) of `text`, plus `offset` UTF-16 units;
    /// the start of the line when the line does not have it.
    static func of(_ needle: String, line: Int, in text: String, offset: Int = 0) -> TextPosition {
        let lineText = text.split(separator: "\n", omittingEmptySubsequences: false)[line]
        let index = lineText.range(of: needle)?.lowerBound ?? lineText.startIndex
        return TextPosition(line: line, character: lineText[..<index].utf16.count + offset)
    }
}
