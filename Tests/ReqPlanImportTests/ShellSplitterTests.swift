import Testing

@testable import ReqPlanImport

@Suite struct ShellSplitterTests {
    private func words(_ text: String) throws -> [[String]] {
        var splitter = ShellSplitter(text)
        let commands = try splitter.commands().get()
        return commands.map { $0.words.map(\.shown) }
    }

    @Test func quotesEscapesAndContinuationsAreReadAsAShellReadsThem() throws {
        let text = """
            $ curl -H 'X-A: 1 2' \\
              -d "a=\\"b\\" \\$c" $'x\\ty' https://h/ # comment
            % curl https://h/2; echo done
            """
        #expect(
            try words(text) == [
                ["curl", "-H", "X-A: 1 2", "-d", "a=\"b\" $c", "x\ty", "https://h/"], ["curl", "https://h/2"],
                ["echo", "done"],
            ])
    }

    @Test func aCommandSubstitutionIsRefusedWithItsPlace() {
        var splitter = ShellSplitter("curl -H \"X: $(date)\" https://h/")
        guard case .failure(let error) = splitter.commands() else {
            Issue.record("accepted")
            return
        }
        #expect(error.code.rawValue == "RP1402")
        #expect(error.range.start.column == 13)
    }

    @Test func variablesAreKept() throws {
        var splitter = ShellSplitter("curl -H \"Authorization: Bearer $TOKEN\" ${BASE}/x")
        let words = try splitter.commands().get()[0].words
        #expect(words[2].pieces == [.text("Authorization: Bearer "), .variable("TOKEN")])
        #expect(words[3].pieces == [.variable("BASE"), .text("/x")])
    }
}
