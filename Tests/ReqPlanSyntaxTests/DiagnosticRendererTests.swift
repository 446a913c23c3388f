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
}
