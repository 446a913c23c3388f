import Testing

@testable import ReqPlanSyntax

/// The one renderer of diagnostics, with notes in other files than the diagnostic's (a sub-plan's
/// declaration, the chain of plans that include it).
@Suite struct DiagnosticRendererTests {
    static let caller = SourceFile(
        path: "flows/checkout.yaml",
        text: """
            reqplan: 1
            steps:
              login:
                plan: { file: ../shared/login.yaml, inputs: { usr: alice } }
            """)
    static let callee = SourceFile(
        path: "shared/login.yaml",
        text: """
            reqplan: 1
            inputs:
              user:
            """)

    static var diagnostic: Diagnostic {
        var diagnostic = Diagnostic.error(
            .unknownSubPlanInput, "sub-plan `../shared/login.yaml` has no input `usr`",
            at: SourceRange(start: SourceLocation(line: 4, column: 51), length: 3),
            notes: [
                .init(
                    "`user` is declared here", at: SourceRange(start: SourceLocation(line: 3, column: 3), length: 4),
                    in: "shared/login.yaml"),
                .includedFrom("app.yaml", at: SourceRange(start: SourceLocation(line: 12, column: 19), length: 19)),
            ],
            hint: "did you mean `user`?")
        diagnostic.file = "flows/checkout.yaml"
        return diagnostic
    }

    @Test func notesInOtherFilesShowTheirOwnExcerptsAndInclusionsAreOneLine() {
        let text = DiagnosticRenderer(files: [Self.caller, Self.callee]).text(Self.diagnostic)
        #expect(
            text == """
                error[RP0603]: sub-plan `../shared/login.yaml` has no input `usr`
                 --> flows/checkout.yaml:4:51
                  |
                4 |     plan: { file: ../shared/login.yaml, inputs: { usr: alice } }
                  |                                                   ^^^
                  |
                note: `user` is declared here
                 --> shared/login.yaml:3:3
                  |
                3 |   user:
                  |   ^^^^
                  |
                  = note: included from app.yaml:12:19
                  = hint: did you mean `user`?

                """)
    }

    @Test func machineFormsNameTheFileOfANoteInAnotherFile() {
        let json = DiagnosticRenderer.json(Self.diagnostic).jsonText()
        #expect(json.contains(#"{"message":"`user` is declared here","file":"shared/login.yaml","line":3,"column":3"#))
        #expect(json.contains(#"{"message":"included from app.yaml:12:19","file":"app.yaml","line":12,"column":19"#))
        let github = DiagnosticRenderer(files: []).github([Self.diagnostic])
        #expect(
            github.contains(
                "note: `user` is declared here (shared/login.yaml:3)%0Anote: included from app.yaml:12:19%0A"))
    }

    /// A diagnostic far into one long line (a minified JSON file is one line).
    static func farIntoALongLine(hiding secret: String? = nil) -> String {
        var padding = String(repeating: "{\"k\":\"v\"},", count: 10_000)
        if let secret { padding += secret }
        let text = padding + "\"target\":1" + String(repeating: ",\"z\":0", count: 10_000)
        let column = padding.unicodeScalars.count + 1
        var diagnostic = Diagnostic.warning(
            .importSettingNotConverted, "not converted",
            at: SourceRange(start: SourceLocation(line: 1, column: column), length: 8))
        diagnostic.file = "min.json"
        var renderer = DiagnosticRenderer(files: [SourceFile(path: "min.json", text: text)])
        if let secret { renderer.hiding = [secret] }
        return renderer.text(diagnostic)
    }

    @Test func aLongLineIsShownAsAWindowAroundTheCaret() throws {
        let text = Self.farIntoALongLine()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(text.count < 600, "\(text)")
        let source = try #require(lines.first { $0.hasPrefix("1 | ") })
        let caret = try #require(lines.first { $0.contains("^") })
        #expect(source.hasPrefix("1 | …") && source.hasSuffix("…"), "\(source)")
        #expect(source.unicodeScalars.count <= DiagnosticRenderer.excerptWidth + 8)
        // The caret stands under the text it points at.
        let start = try #require(caret.firstIndex(of: "^"))
        let offset = caret.distance(from: caret.startIndex, to: start)
        let pointed = source.dropFirst(offset).prefix(8)
        #expect(pointed == "\"target\"", "\(text)")
        #expect(caret.filter { $0 == "^" }.count == 8)
    }

    @Test func aWindowThatStartsInsideAHiddenTextShowsNoneOfIt() {
        // The hidden text ends just before the caret: the window starts inside or before it, and shows
        // `***` or nothing of it, never its characters.
        let secret = String(repeating: "s3cr3t-", count: 12)
        let text = Self.farIntoALongLine(hiding: secret)
        #expect(!text.contains("s3cr3t"), "\(text)")
    }
}
