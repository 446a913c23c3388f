import Foundation
import ReqPlanLanguageServer
import ReqPlanSyntax
import Testing

@Suite struct PlanReferencesTests {
    static let text = """
        reqplan: 1
        inputs:
          user: { default: "𝄞" }
        vars:
          bearer: "Bearer ${{ steps.log-in.body.token }}"
        steps:
          log-in: { request: { url: "http://h/login/${{ inputs.user }}" } }
          batch:
            for_each: ${{ steps.log-in.body.ids }}
            request:
              url: "http://h/${{ item }}"
              headers: { Authorization: "${{ vars.bearer }}", X-User: "𝄞 ${{ inputs.user }}" }
              json: { token: "${{ steps.log-in.body.token }}" }
          last:
            if: ${{ steps.log-in.status == 200 && length(steps.batch.results) > 0 }}
            needs: [batch, log-in]
            request: { url: "http://h/3" }
        outputs:
          token: ${{ default(steps.log-in.body.token, '') }}

        """

    private func references() throws -> PlanReferences {
        PlanReferences(plan: try #require(PlanParser.parse(SourceFile(path: "/p/p.yaml", text: Self.text)).plan))
    }

    /// The position of the first `needle` on line `line` (0-based), plus `offset` UTF-16 units.
    private func position(of needle: String, line: Int, offset: Int = 0) -> TextPosition {
        .of(needle, line: line, in: Self.text, offset: offset)
    }

    /// The range of the first `name` on line `line`.
    private func range(of name: String, line: Int) -> TextRange {
        let start = position(of: name, line: line)
        return TextRange(start: start, end: .init(line: line, character: start.character + name.utf16.count))
    }

    @Test func aStepIsReadInNeedsVarsURLsBodiesConditionsForEachAndOutputs() throws {
        let references = try references()
        let definition = range(of: "log-in", line: 6)
        let reads = [
            range(of: "log-in", line: 4), range(of: "log-in", line: 8), range(of: "log-in", line: 12),
            range(of: "log-in", line: 14), range(of: "log-in", line: 15), range(of: "log-in", line: 18),
        ]
        // From its definition, from `needs:`, from an expression: the same places.
        for from in [
            position(of: "log-in", line: 6, offset: 3), position(of: "log-in]", line: 15, offset: 6),
            position(of: "log-in", line: 12, offset: 1),
        ] {
            #expect(
                references.references(at: from, includeDeclaration: true) == [reads[0], definition] + reads.dropFirst())
            #expect(references.references(at: from, includeDeclaration: false) == reads)
        }
        #expect(
            references.references(at: position(of: "batch.", line: 14, offset: 2), includeDeclaration: false)
                == [range(of: "batch.", line: 14).shortened(by: 1), range(of: "batch", line: 15)])
        // Not a name: a key, a URL, a function, a for_each item.
        for nowhere in [
            position(of: "request", line: 6, offset: 1), position(of: "login/", line: 6, offset: 1),
            position(of: "length", line: 14, offset: 1), position(of: "item", line: 10, offset: 1),
        ] {
            #expect(references.references(at: nowhere, includeDeclaration: true).isEmpty)
        }
    }

    @Test func aQuotedOrBracketedNameIsFoundAtTheNameItself() throws {
        let text = """
            reqplan: 1
            steps:
              login: { request: { url: "http://h/" } }
              b: { needs: ["login"], request: { url: 'http://h/${{ steps["login"].status }}' } }
              c:
                needs:
                  - 'login'
                request: { url: "http://h/c" }

            """
        let plan = try #require(PlanParser.parse(SourceFile(path: "/p/p.yaml", text: text)).plan)
        let found = PlanReferences(plan: plan).references(
            at: TextPosition(line: 2, character: 3), includeDeclaration: false)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let written = found.map { range in
            String(
                lines[range.start.line].utf16.dropFirst(range.start.character).prefix(
                    range.end.character - range.start.character)) ?? ""
        }
        #expect(written == ["login", "login", "login"])
        #expect(found.map(\.start.line) == [3, 3, 6])
    }

    @Test func inputsAndVarsLeadToTheirDeclarationAndToTheirReads() throws {
        let references = try references()
        let user = range(of: "user", line: 2)
        #expect(references.declaration(at: position(of: "user }}", line: 6, offset: 2)) == user)
        #expect(
            references.references(at: position(of: "user", line: 2), includeDeclaration: false)
                == [range(of: "user }}", line: 6).shortened(by: 3), range(of: "user }}", line: 11).shortened(by: 3)])
        let bearer = range(of: "bearer", line: 4)
        #expect(references.declaration(at: position(of: "bearer", line: 11, offset: 6)) == bearer)
        #expect(
            references.references(at: position(of: "bearer", line: 4), includeDeclaration: true)
                == [bearer, range(of: "bearer", line: 11)])
        #expect(references.declaration(at: position(of: "Authorization", line: 11)) == nil)
    }

    @Test func theServerAnswersReferencesAndTheDefinitionOfAnInput() async throws {
        let client = TestClient()
        _ = await client.initialize()
        let uri = "file:///tmp/reqplan-lsp-references/plan.yaml"
        client.notify("textDocument/didOpen", .document(uri, version: 1, text: Self.text))
        func params(_ position: TextPosition, declaration: Bool) -> Value {
            .object([
                .init("textDocument", .object([.init("uri", .string(uri))])), .init("position", position.value),
                .init("context", .object([.init("includeDeclaration", .bool(declaration))])),
            ])
        }
        let at = position(of: "log-in", line: 6, offset: 1)
        let found = await client.request(1, "textDocument/references", params(at, declaration: false))
        guard case .list(let locations)? = found?["result"] else {
            Issue.record("no list: \(String(describing: found))")
            return
        }
        #expect(locations.count == 6 && locations.allSatisfy { $0["uri"] == .string(uri) })
        #expect(TextRange(locations.first?["range"]) == range(of: "log-in", line: 4))
        let withDeclaration = await client.request(2, "textDocument/references", params(at, declaration: true))
        if case .list(let all)? = withDeclaration?["result"] {
            #expect(all.count == 7)
        } else {
            Issue.record("no list")
        }
        let definition = await client.request(
            3, "textDocument/definition", params(position(of: "user }}", line: 11, offset: 1), declaration: false))
        #expect(TextRange(definition?["result"]?["range"]) == range(of: "user", line: 2))
        #expect(await client.request(4, "shutdown")?["result"] == .null)
        #expect(await client.exit() == 0)
    }

    @Test func aSubPlansFileLeadsToThatFileWhenItExists() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reqplan-references-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sub = folder.appendingPathComponent("sub.yaml")
        try "reqplan: 1\nsteps: {}\n".write(to: sub, atomically: true, encoding: .utf8)
        let text = """
            reqplan: 1
            steps:
              a: { plan: { file: sub.yaml } }
              b: { plan: { file: missing.yaml } }

            """
        let plan = try #require(
            PlanParser.parse(SourceFile(path: folder.appendingPathComponent("p.yaml").path, text: text)).plan)
        let references = PlanReferences(plan: plan)
        let uri = DocumentURI(filePath: folder.appendingPathComponent("p.yaml").path)
        let location = references.definition(at: TextPosition(line: 2, character: 22), uri: uri)
        let start = TextPosition(line: 0, character: 0)
        #expect(location?.uri == DocumentURI(filePath: sub.resolvingSymlinksInPath().path))
        #expect(location?.range == TextRange(start: start, end: start))
        #expect(references.definition(at: TextPosition(line: 3, character: 22), uri: uri) == nil)
    }

    /// Every plan of `plans/` (and its folders): every name's references hold its own place and lead to a
    /// declaration, and asking at every position of every line never traps.
    @Test func thePlansOfTheRepositoryAreReadWithoutTrapping() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("plans")
        let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".yaml") && !$0.hasPrefix("_openapi") }.sorted()
        var read = 0
        for file in files {
            let path = folder.appendingPathComponent(file).path
            let text = try String(contentsOfFile: path, encoding: .utf8)
            guard let plan = PlanParser.parse(SourceFile(path: path, text: text)).plan else { continue }
            read += 1
            let references = PlanReferences(plan: plan)
            let uri = DocumentURI(filePath: path)
            for occurrence in references.occurrences {
                let found = references.references(at: occurrence.range.start, includeDeclaration: true)
                #expect(found.contains(occurrence.range), "\(file): \(occurrence.name)")
                #expect(references.definition(at: occurrence.range.end, uri: uri) != nil, "\(file): \(occurrence.name)")
            }
            for (line, lineText) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for character in 0...lineText.utf16.count + 1 {
                    _ = references.references(
                        at: TextPosition(line: line, character: character), includeDeclaration: false)
                }
            }
        }
        #expect(read > 10)
    }
}

extension TextRange {
    /// The range with its end `units` UTF-16 units earlier.
    fileprivate func shortened(by units: Int) -> TextRange {
        TextRange(start: start, end: .init(line: end.line, character: end.character - units))
    }
}
