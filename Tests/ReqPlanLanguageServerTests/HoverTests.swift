import ReqPlanLanguageServer
import ReqPlanSyntax
import Testing

@Suite struct HoverTests {
    static let text = """
        reqplan: 1
        steps:
          login: { description: "Signs in", request: { url: "http://h/login" } }
          batch:
            needs: [login]
            group:
              first:
                request:
                  url: "http://h/1/${{ steps.login.status }}"

        """

    /// The markdown shown at the `offset`-th UTF-16 unit of `needle` on line `line`, and the range it is for.
    private func hover(_ needle: String, line: Int, offset: Int = 1) throws -> (String, TextRange)? {
        let plan = PlanParser.parse(SourceFile(path: "p.yaml", text: Self.text)).plan
        let lineText = Self.text.split(separator: "\n", omittingEmptySubsequences: false)[line]
        let index = try #require(lineText.range(of: needle)).lowerBound
        let position = TextPosition(line: line, character: lineText[..<index].utf16.count + offset)
        guard let value = Hover(plan: plan).hover(at: position, in: Self.text),
            case .string(let markdown)? = value["contents"]?["value"], let range = TextRange(value["range"])
        else { return nil }
        return (markdown, range)
    }

    @Test func aKeyShowsItsDescriptionFromTheSchema() throws {
        let (markdown, range) = try #require(try hover("url", line: 8))
        #expect(markdown.hasPrefix("**`url`**\n\n"), "\(markdown)")
        #expect(markdown.count > 20)
        #expect(range == TextRange(start: .init(line: 8, character: 10), end: .init(line: 8, character: 13)))
        let (needs, _) = try #require(try hover("needs", line: 4))
        #expect(needs.hasPrefix("**`needs`**\n\n"))
    }

    @Test func aStepIDShowsTheStepWhereverItIsNamed() throws {
        for (needle, line) in [("login.status", 8), ("login]", 4), ("login:", 2)] {
            let (markdown, _) = try #require(try hover(needle, line: line), "\(needle)")
            #expect(markdown == "**`login`**: request step\n\nSigns in", "\(needle)")
        }
        let (batch, _) = try #require(try hover("batch", line: 3))
        #expect(batch == "**`batch`**: group step, needs `login`; members `first`")
        let (member, _) = try #require(try hover("first", line: 6))
        #expect(member == "**`first`**: request step")
    }

    @Test func nothingIsShownOverValuesOrUnknownWords() throws {
        #expect(try hover("login\"", line: 2, offset: 2) == nil)
        #expect(try hover("h/1", line: 8, offset: 0) == nil)
    }
}
