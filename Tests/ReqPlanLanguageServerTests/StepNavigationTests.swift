import ReqPlanLanguageServer
import ReqPlanSyntax
import Testing

@Suite struct StepNavigationTests {
    static let text = """
        reqplan: 1
        steps:
          log-in: { request: { url: "http://h/login" } }
          batch:
            description: "𝄞 then first"
            group:
              first: { request: { url: "http://h/1" } }
              second: { needs: [first], request: { url: "http://h/2/${{ steps.log-in.status }}" } }
          last: { description: "𝄞", needs: [batch, log-in], request: { url: "http://h/3" } }

        """

    private func navigation() throws -> StepNavigation {
        StepNavigation(plan: try #require(PlanParser.parse(SourceFile(path: "p.yaml", text: Self.text)).plan))
    }

    /// The position of the `occurrence`-th `needle` on line `line` (0-based), plus `offset` UTF-16 units.
    private func position(of needle: String, line: Int, offset: Int = 0) -> TextPosition {
        .of(needle, line: line, in: Self.text, offset: offset)
    }

    @Test func aStepIDInNeedsOrAnExpressionLeadsToItsDefinition() throws {
        let navigation = try navigation()
        let login = TextRange(start: .init(line: 2, character: 2), end: .init(line: 2, character: 8))
        // In an expression, the cursor inside the id.
        #expect(navigation.definition(at: position(of: "log-in.status", line: 7, offset: 2)) == login)
        // In `needs:`, after `𝄞` on the same line, the cursor at the end of the id.
        #expect(navigation.definition(at: position(of: "log-in]", line: 8, offset: 6)) == login)
        #expect(
            navigation.definition(at: position(of: "batch,", line: 8))
                == TextRange(start: .init(line: 3, character: 2), end: .init(line: 3, character: 7)))
        #expect(
            navigation.definition(at: position(of: "first]", line: 7, offset: 1))
                == TextRange(start: .init(line: 6, character: 6), end: .init(line: 6, character: 11)))
        // Not a step id: the word of a step id in a description, a key, a URL.
        #expect(navigation.definition(at: position(of: "first", line: 4, offset: 1)) == nil)
        #expect(navigation.definition(at: position(of: "request", line: 2, offset: 1)) == nil)
        #expect(navigation.definition(at: position(of: "login\"", line: 2, offset: 1)) == nil)
    }

    @Test func theStepsAreATreeOfGroupsAndMembers() throws {
        let symbols = try navigation().symbols()
        #expect(symbols.map { $0["name"] } == [.string("log-in"), .string("batch"), .string("last")])
        let batch = symbols[1]
        #expect(batch["detail"] == .string("group") && batch["kind"] == .int(2))
        guard case .list(let children)? = batch["children"] else {
            Issue.record("no members under `batch`")
            return
        }
        #expect(children.map { $0["name"] } == [.string("first"), .string("second")])
        #expect(TextRange(children[1]["selectionRange"])?.start == TextPosition(line: 7, character: 6))
        #expect(symbols[0]["kind"] == .int(12) && symbols[0]["children"] == nil)
    }
}
