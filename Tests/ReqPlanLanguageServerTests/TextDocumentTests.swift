import ReqPlanLanguageServer
import ReqPlanSyntax
import Testing

@Suite struct TextDocumentTests {
    private func change(_ startLine: Int, _ startCharacter: Int, _ endLine: Int, _ endCharacter: Int, _ text: String)
        -> Value
    {
        let range = TextRange(
            start: TextPosition(line: startLine, character: startCharacter),
            end: TextPosition(line: endLine, character: endCharacter))
        return .object([.init("range", range.value), .init("text", .string(text))])
    }

    @Test func incrementalChangesApplyInOrderInUTF16Units() throws {
        var document = TextDocument(
            uri: DocumentURI("file:///p.yaml"), version: 1, text: "name: \"𝄞\"\nneeds: [logn]\n")
        try document.apply([
            // Insert `i` between `g` and `n` of `logn`.
            change(1, 11, 1, 11, "i"),
            // Replace `𝄞` (two units) with `é`.
            change(0, 7, 0, 9, "é"),
            // Join the lines: delete the line break.
            change(0, 9, 1, 0, " "),
        ])
        #expect(document.text == "name: \"é\" needs: [login]\n")
    }

    @Test func aChangeWithoutARangeReplacesTheWholeText() throws {
        var document = TextDocument(uri: DocumentURI("untitled:1"), version: 1, text: "a")
        try document.apply([.object([.init("text", .string("b\nc"))]), change(1, 0, 1, 1, "d")])
        #expect(document.text == "b\nd")
    }

    @Test func anInsertionBetweenALetterAndItsAccentKeepsBoth() throws {
        var document = TextDocument(uri: DocumentURI("untitled:1"), version: 1, text: "e\u{301}")
        try document.apply([change(0, 1, 0, 1, "x")])
        #expect(Array(document.text.unicodeScalars) == ["e", "x", "\u{301}"])
    }

    @Test func aChangeThatIsNotOneIsRefusedAndThoseBeforeItStay() {
        var document = TextDocument(uri: DocumentURI("untitled:1"), version: 1, text: "ab")
        #expect(throws: ResponseError.self) {
            try document.apply([change(0, 0, 0, 1, "x"), .object([.init("range", .null), .init("text", .string(""))])])
        }
        #expect(document.text == "xb")
    }
}
