import ReqPlanLanguageServer
import ReqPlanSyntax
import Testing

/// A step named in `slo:` is a reference to it like any other: completion offers step ids there, definition
/// leads to the step, references find it, and a rename changes it with the rest.
@Suite struct ObjectiveStepTests {
    static let text = """
        reqplan: 1
        steps:
          log-in: { request: { url: "http://h/login" } }
          checkout:
            needs: [log-in]
            request: { url: "http://h/${{ steps.log-in.status }}" }
        slo:
          - step: log-in
            p95: 300ms
          - p99: 2s
            step: "checkout"
          - p99: 1s

        """

    private func plan() throws -> Plan {
        try #require(PlanParser.parse(SourceFile(path: "/p/p.yaml", text: Self.text)).plan)
    }

    private func position(of needle: String, line: Int, offset: Int = 0) -> TextPosition {
        .of(needle, line: line, in: Self.text, offset: offset)
    }

    private func range(of name: String, line: Int) -> TextRange {
        let start = position(of: name, line: line)
        return TextRange(start: start, end: .init(line: line, character: start.character + name.utf16.count))
    }

    @Test func aStepInSLOIsAReferenceToIt() throws {
        let references = PlanReferences(plan: try plan())
        let places = [
            range(of: "log-in", line: 2), range(of: "log-in", line: 4), range(of: "log-in", line: 5),
            range(of: "log-in", line: 7),
        ]
        // From the slo item, and from the step's id: the same places, the slo item among them.
        for from in [position(of: "log-in", line: 7, offset: 2), position(of: "log-in", line: 2, offset: 1)] {
            #expect(references.references(at: from, includeDeclaration: true) == places)
        }
        // Quoted, and as the second key of its item.
        #expect(
            references.references(at: position(of: "checkout", line: 10, offset: 3), includeDeclaration: false)
                == [range(of: "checkout", line: 10)])
        let definition = references.definition(
            at: position(of: "checkout", line: 10, offset: 3), uri: DocumentURI("file:///p/p.yaml"))
        #expect(definition?.range == range(of: "checkout", line: 3))
        let navigation = StepNavigation(plan: try plan())
        #expect(navigation.definition(at: position(of: "log-in", line: 7, offset: 6)) == range(of: "log-in", line: 2))
        // Not a step: the limit's key and value.
        #expect(navigation.definition(at: position(of: "p95", line: 8, offset: 1)) == nil)
        #expect(references.references(at: position(of: "300ms", line: 8, offset: 1), includeDeclaration: true).isEmpty)
    }

    @Test func aRenameChangesTheSLOItemWithTheRest() throws {
        let references = PlanReferences(plan: try plan())
        let edits = try references.renaming(at: position(of: "log-in", line: 7, offset: 1), to: "sign-in")
        #expect(edits.count == 4 && edits.contains(range(of: "log-in", line: 7)))
        #expect(throws: PlanReferences.RenameProblem.self) {
            try references.renaming(at: position(of: "log-in", line: 7), to: "checkout")
        }
        for invalid in ["", "1st", "a b", "a.b", "x\u{1B}]0;t\u{7}", "steps.x"] {
            #expect(throws: PlanReferences.RenameProblem.self, "\(invalid)") {
                try references.renaming(at: position(of: "log-in", line: 7), to: invalid)
            }
        }
        #expect(try references.renaming(at: position(of: "p95", line: 8), to: "x").isEmpty, "nothing named there")
    }

    /// `marked` without its `|`, and the position the `|` marks.
    static func cursor(in marked: String) throws -> (text: String, position: TextPosition) {
        let lines = marked.split(separator: "\n", omittingEmptySubsequences: false)
        let line = try #require(lines.firstIndex { $0.contains("|") })
        let column = try #require(lines[line].range(of: "|")).lowerBound
        return (
            marked.replacingOccurrences(of: "|", with: ""),
            TextPosition(line: line, character: lines[line][..<column].utf16.count)
        )
    }

    @Test(arguments: [
        "slo:\n  - step: |\n",
        "slo:\n  - step: ch|\n",
        "slo:\n  - p99: 2s\n    step: |\n",
        "slo:\n  - p99: 2s\n    step: \"ch|\n",
    ])
    func aStepIDIsCompletedAsAnSLOItemsStep(marked: String) throws {
        let (text, position) = try Self.cursor(in: marked)
        #expect(CompletionContext.at(position, in: text)?.0 == .stepID)
    }

    @Test(arguments: [
        "steps:\n  a:\n    step: |\n",
        "slo:\n  - step:|\n",
        "slo:\n  - p99: |\n",
        "other:\n  - step: |\n",
    ])
    func aStepKeyElsewhereIsNotAStepID(marked: String) throws {
        let (text, position) = try Self.cursor(in: marked)
        #expect(CompletionContext.at(position, in: text)?.0 != .stepID)
    }

    /// Over the protocol: `prepareRename` gives the name's range, `rename` one edit per place, and a rename to
    /// a name that is not one is refused (RequestFailed), after which the next request is answered.
    @Test func renameOverTheProtocol() async throws {
        let uri = "file:///tmp/reqplan-lsp-rename/plan.yaml"
        let client = await TestClient.opening(uri, Self.text)
        func params(_ position: TextPosition, _ extra: [Value.Field] = []) -> Value {
            .object(
                [
                    .init("textDocument", .object([.init("uri", .string(uri))])),
                    .init(
                        "position",
                        .object([.init("line", .int(position.line)), .init("character", .int(position.character))])),
                ] + extra)
        }
        let at = position(of: "log-in", line: 7, offset: 2)
        let prepared = await client.request(1, "textDocument/prepareRename", params(at))
        #expect(TextRange(prepared?["result"]) == range(of: "log-in", line: 7))
        let renamed = await client.request(2, "textDocument/rename", params(at, [.init("newName", .string("sign-in"))]))
        guard case .list(let edits)? = renamed?["result"]?["changes"]?[uri] else {
            Issue.record("no edits: \(String(describing: renamed))")
            return
        }
        #expect(edits.count == 4 && edits.allSatisfy { $0["newText"] == .string("sign-in") })
        let refused = await client.request(3, "textDocument/rename", params(at, [.init("newName", .string("9 lives"))]))
        #expect(refused?["error"]?["code"] == .int(-32803), "\(String(describing: refused))")
        let nothing = await client.request(
            4, "textDocument/rename", params(position(of: "p95", line: 8), [.init("newName", .string("x"))]))
        #expect(nothing?["result"] == .null)
        let unnamed = await client.request(6, "textDocument/rename", params(at, [.init("newName", .int(7))]))
        #expect(unnamed?["error"]?["code"] == .int(-32602), "no `newName` string: \(String(describing: unnamed))")
        let outside = await client.request(
            7, "textDocument/rename",
            params(TextPosition(line: 9_999, character: 99_999), [.init("newName", .string("x"))]))
        #expect(outside?["result"] == .null, "a position past the text names nothing")
        #expect(await client.request(5, "shutdown")?["result"] == .null)
        #expect(await client.exit() == 0)
    }
}
