import ReqPlanLanguageServer
import ReqPlanSyntax
import Testing

/// LSP positions count UTF-16 code units; reqplan's columns count Unicode scalars.
@Suite struct TextPositionTests {
    @Test func aColumnAfterTextOutsideTheBasicPlaneIsFurtherInUTF16() {
        let source = SourceFile(path: "p.yaml", text: "a: 1\n  x: { description: \"Café ☕ 𝄞\", needs: [logn] }\n")
        // `logn` starts at scalar column 41 (offset 40): `é` and `☕` are one UTF-16 unit each, `𝄞` two.
        let location = SourceLocation(line: 2, column: 41)
        #expect(source.character(at: location) == "l")
        #expect(TextPosition(location, in: source) == TextPosition(line: 1, character: 41))
        // Before `𝄞`, the two agree.
        #expect(source.character(at: SourceLocation(line: 2, column: 29)) == "𝄞")
        #expect(TextPosition(SourceLocation(line: 2, column: 29), in: source) == TextPosition(line: 1, character: 28))
    }

    @Test func aColumnPastTheEndOfItsLineIsTheEndOfTheLine() {
        let source = SourceFile(path: "p.yaml", text: "𝄞\nb")
        #expect(TextPosition(SourceLocation(line: 1, column: 9), in: source) == TextPosition(line: 0, character: 2))
    }

    @Test func anLSPPositionFindsItsPlaceAcrossEveryKindOfLineBreak() {
        let text = "a\r\nb𝄞c\rd\ne"
        #expect(text[text.index(of: TextPosition(line: 1, character: 3))...] == "c\rd\ne")
        #expect(text[text.index(of: TextPosition(line: 2, character: 0))...] == "d\ne")
        #expect(text[text.index(of: TextPosition(line: 3, character: 0))...] == "e")
        // Past the end of a line: the end of that line, before its break.
        #expect(text[text.index(of: TextPosition(line: 0, character: 40))...] == "\r\nb𝄞c\rd\ne")
        // Past the last line: the end of the text.
        #expect(text.index(of: TextPosition(line: 9, character: 0)) == text.endIndex)
    }

    @Test func anOffsetInsideASurrogatePairIsTheStartOfItsCharacter() {
        let text = "x𝄞y"
        #expect(text[text.index(of: TextPosition(line: 0, character: 2))...] == "𝄞y")
        #expect(text[text.index(of: TextPosition(line: 0, character: 3))...] == "y")
    }

    @Test func positionsGoBackAndForth() {
        let text = "é\r\n𝄞x\ry"
        for (offset, _) in text.unicodeScalars.enumerated() {
            let index = text.unicodeScalars.index(text.unicodeScalars.startIndex, offsetBy: offset)
            let position = text.position(of: index)
            if text.unicodeScalars[index] == "\n" { continue }  // inside `\r\n`: not a position of its own
            #expect(text.index(of: position) == index, "\(offset) → \(position)")
        }
    }
}
