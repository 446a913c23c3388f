import ReqPlanSyntax

/// A position as LSP counts it: a 0-based line and a 0-based offset in UTF-16 code units into the line
/// (LSP 3.17 `Position`, with the default `positionEncoding` `utf-16`).
///
/// reqplan's own locations (`SourceLocation`) are 1-based and count Unicode scalars, as libyaml does; a
/// line breaks at `\n`, `\r\n` or a lone `\r` in both. `𝄞` is one scalar and two UTF-16 units, `é` one of
/// each, so the two differ on any line with text outside the Basic Multilingual Plane before the place.
public struct TextPosition: Sendable, Hashable, Comparable {
    /// The line, from 0.
    public var line: Int
    /// The UTF-16 code units before the position on its line.
    public var character: Int

    /// A position from its line and UTF-16 offset.
    public init(line: Int, character: Int) {
        self.line = line
        self.character = character
    }

    /// A position from LSP's JSON (`{"line": 2, "character": 5}`), if it is one.
    public init?(_ value: Value?) {
        guard case .int(let line)? = value?["line"], case .int(let character)? = value?["character"],
            line >= 0, character >= 0
        else { return nil }
        self.init(line: line, character: character)
    }

    /// The position as LSP's JSON.
    public var value: Value {
        .object([.init("line", .int(line)), .init("character", .int(character))])
    }

    /// The position of a reqplan location in `source`: its line, and the UTF-16 length of the scalars
    /// before its column (a column past the end of the line is the end of the line).
    public init(_ location: SourceLocation, in source: SourceFile) {
        let line = max(0, location.line - 1)
        guard let text = source.line(location.line) else {
            self.init(line: line, character: max(0, location.column - 1))
            return
        }
        let units = text.unicodeScalars.prefix(max(0, location.column - 1)).reduce(0) { $0 + $1.utf16.count }
        self.init(line: line, character: units)
    }

    public static func < (lhs: TextPosition, rhs: TextPosition) -> Bool {
        (lhs.line, lhs.character) < (rhs.line, rhs.character)
    }
}

/// A range of positions (LSP `Range`): `end` is just past the last character.
public struct TextRange: Sendable, Hashable {
    /// The first position.
    public var start: TextPosition
    /// The position just past the range.
    public var end: TextPosition

    /// A range from its bounds.
    public init(start: TextPosition, end: TextPosition) {
        self.start = start
        self.end = end
    }

    /// A range from LSP's JSON, if it is one with `start` not after `end`.
    public init?(_ value: Value?) {
        guard let start = TextPosition(value?["start"]), let end = TextPosition(value?["end"]), start <= end
        else { return nil }
        self.init(start: start, end: end)
    }

    /// The range of a reqplan source range in `source`.
    public init(_ range: SourceRange, in source: SourceFile) {
        self.init(start: TextPosition(range.start, in: source), end: TextPosition(range.end, in: source))
    }

    /// The range as LSP's JSON.
    public var value: Value {
        .object([.init("start", start.value), .init("end", end.value)])
    }
}
