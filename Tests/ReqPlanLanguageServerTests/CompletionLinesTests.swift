import Testing

@testable import ReqPlanLanguageServer

/// Completion splits the document into lines over its bytes; the lines are those LSP counts.
@Suite struct CompletionLinesTests {
    @Test func linesEndAtEachKindOfBreakAndKeepTheirScalars() {
        let text = "a: Café ☕\r\nb: 𝄞\rc\n\nd"
        let lines = CompletionContext.lines(text).map { String(String.UnicodeScalarView($0)) }
        #expect(lines == ["a: Café ☕", "b: 𝄞", "c", "", "d"])
        #expect(CompletionContext.lines("").count == 1)
        #expect(CompletionContext.lines("x\n").map { String(String.UnicodeScalarView($0)) } == ["x", ""])
    }
}
