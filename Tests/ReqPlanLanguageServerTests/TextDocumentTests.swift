import ReqPlanLanguageServer
import ReqPlanSyntax
import Testing

@Suite struct TextDocumentTests {
    private func change(_ startLine: Int, _ startCharacter: Int, _ endLine: Int, _ endCharacter: Int, _ text: String)
        -> TextDocument.ContentChange
    {
        let range = TextRange(
            start: TextPosition(line: startLine, character: startCharacter),
            end: TextPosition(line: endLine, character: endCharacter))
        return TextDocument.ContentChange(range: range, text: text)
    }

    @Test func incrementalChangesApplyInOrderInUTF16Units() {
        var document = TextDocument(
            uri: DocumentURI("file:///p.yaml"), version: 1, text: "name: \"𝄞\"\nneeds: [logn]\n")
        document.apply([
            // Insert `i` between `g` and `n` of `logn`.
            change(1, 11, 1, 11, "i"),
            // Replace `𝄞` (two units) with `é`.
            change(0, 7, 0, 9, "é"),
            // Join the lines: delete the line break.
            change(0, 9, 1, 0, " "),
        ])
        #expect(document.text == "name: \"é\" needs: [login]\n")
    }

    @Test func aChangeWithoutARangeReplacesTheWholeText() {
        var document = TextDocument(uri: DocumentURI("untitled:1"), version: 1, text: "a")
        document.apply([TextDocument.ContentChange(range: nil, text: "b\nc"), change(1, 0, 1, 1, "d")])
        #expect(document.text == "b\nd")
    }

    @Test func anInsertionBetweenALetterAndItsAccentKeepsBoth() {
        var document = TextDocument(uri: DocumentURI("untitled:1"), version: 1, text: "e\u{301}")
        document.apply([change(0, 1, 0, 1, "x")])
        #expect(Array(document.text.unicodeScalars) == ["e", "x", "\u{301}"])
    }
}
