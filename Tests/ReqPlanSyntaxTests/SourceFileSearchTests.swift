import ReqPlanSyntax
import Testing

private typealias Location = ReqPlanSyntax.SourceLocation

/// `SourceFile.find`: where a text is written, by line and column in Unicode scalars, from a location or on from
/// a mark; both agree, on one long line as on many, with characters of several bytes before the match.
@Suite struct SourceFileSearchTests {
    static let text = "{\"a\": \"é🎲x\", \"b\": [\"x\", \"é🎲x\"]}\r\n  \"é🎲x\"\n\"x\"\u{2028}\"é🎲x\""

    @Test func aSearchFromALocationAndOnFromAMarkFindTheSamePlaces() throws {
        let source = SourceFile(path: "t.json", text: Self.text)
        var mark = source.start
        var location = Location(line: 1, column: 1)
        var found: [Location] = []
        while let next = source.find("\"é🎲x\"", after: mark) {
            let old = try #require(source.find("\"é🎲x\"", from: location, maxLines: source.lineCount + 1))
            #expect(next.location == old)
            found.append(next.location)
            mark = source.mark(after: next)
            location = next.location.advanced(by: 1)
        }
        #expect(source.find("\"é🎲x\"", from: location, maxLines: source.lineCount + 1) == nil)
        #expect(
            found == [
                Location(line: 1, column: 7), Location(line: 1, column: 25),
                Location(line: 2, column: 3),
                Location(line: 3, column: 5),
            ])
        for location in found {
            #expect(source.character(at: location) == "\"")
            #expect(source.character(at: location.advanced(by: 1)) == "é")
        }
        #expect(source.find("\n", after: source.start) == nil && source.find("", after: source.start) == nil)
        #expect(source.find("nowhere", after: source.start) == nil)
    }

    /// 20,000 items on one line, each found on from the one before: linear (it copied the whole line for every
    /// search, which made an import of a minified collection take minutes).
    @Test func thousandsOfItemsOnOneLineAreFoundInOrder() throws {
        let text = "[" + (0..<20_000).map { "{\"id\": \"item-\($0)\"}" }.joined(separator: ",") + "]"
        let source = SourceFile(path: "t.json", text: text)
        var mark = source.start
        for index in [0, 1, 9_999, 19_999] {
            let found = try #require(source.find("\"item-\(index)\"", after: mark))
            #expect(found.location.line == 1)
            #expect(source.character(at: found.location.advanced(by: 1)) == "i")
            mark = source.mark(after: found)
        }
    }
}
