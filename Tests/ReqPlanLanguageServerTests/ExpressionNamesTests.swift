import Foundation
import ReqPlanLanguageServer
import ReqPlanSyntax
import Testing

/// Inside `${{ }}`: input names after `inputs.`, var names after `vars.`, a sub-plan's outputs after
/// `steps.ID.outputs.`, and functions where a word starts.
@Suite struct ExpressionNamesTests {
    static let text = """
        reqplan: 1
        inputs:
          user: { default: "𝄞", description: "Who signs in." }
          count: { type: number, default: 2 }
        vars:
          bearer: "Bearer ${{ inputs.user }}"
        steps:
          sub: { plan: { file: sub.yaml } }
          login: { request: { url: "http://h/${{ inputs.user }}" } }

        """

    /// A folder holding `sub.yaml` (with two outputs), removed when `body` ends.
    private func withSubPlan<T>(_ body: (URL) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("reqplan-names-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
        reqplan: 1
        steps:
          a: { request: { url: "http://h/a" } }
        outputs:
          token: ${{ steps.a.body.token }}
          id: { value: "${{ steps.a.body.id }}", description: "The new id." }

        """.write(to: folder.appendingPathComponent("sub.yaml"), atomically: true, encoding: .utf8)
        return try body(folder)
    }

    /// The labels offered at the end of `line` written on the last line of the plan.
    private func labels(_ line: String, folder: URL) throws -> [String]? {
        let path = folder.appendingPathComponent("p.yaml").path
        let names = ExpressionNames(
            plan: try #require(PlanParser.parse(SourceFile(path: path, text: Self.text)).plan), sources: [])
        let text = Self.text + line
        let position = TextPosition(line: 9, character: line.utf16.count)
        return names.items(at: position, in: text)?.compactMap { item -> String? in
            if case .string(let label)? = item["label"] { label } else { nil }
        }
    }

    @Test func inputsVarsAndSubPlanOutputsAreOfferedAfterTheirRoot() throws {
        try withSubPlan { (folder: URL) throws in
            #expect(try labels("  x: \"𝄞 ${{ inputs.", folder: folder) == ["user", "count"])
            #expect(try labels("  x: ${{ default(inputs.us", folder: folder) == ["user", "count"])
            #expect(try labels("  x: ${{ vars.", folder: folder) == ["bearer"])
            #expect(try labels("  x: ${{ steps.sub.outputs.t", folder: folder) == ["token", "id"])
            // Not a plan step, or not the start of a path: nothing.
            #expect(try labels("  x: ${{ steps.login.outputs.", folder: folder) == [])
            #expect(try labels("  x: ${{ steps.a.body.inputs.", folder: folder) == nil)
            #expect(try labels("  x: ${{ 'inputs.", folder: folder) == nil)
            #expect(try labels("  x: inputs.", folder: folder) == nil)
        }
    }

    @Test func aSubPlansOutputsComeFromTheTextTheLastCheckRead() throws {
        try withSubPlan { (folder: URL) throws in
            let path = FileBoundary.resolve("sub.yaml", relativeTo: folder).path
            let checked = SourceFile(
                path: path, text: "reqplan: 1\nsteps: {}\noutputs:\n  saved: 1\n")
            let plan = try #require(
                PlanParser.parse(SourceFile(path: folder.appendingPathComponent("p.yaml").path, text: Self.text)).plan)
            let line = "  x: ${{ steps.sub.outputs."
            let items = ExpressionNames(plan: plan, sources: [checked])
                .items(at: TextPosition(line: 9, character: line.utf16.count), in: Self.text + line)
            #expect(items?.map { $0["label"] } == [.string("saved")])
        }
    }

    @Test func functionsAndRootsAreOfferedWhereAWordStarts() throws {
        try withSubPlan { (folder: URL) throws in
            let start = try #require(try labels("  x: ${{ le", folder: folder))
            #expect(start.starts(with: ["inputs", "steps", "vars", "env"]))
            #expect(Set(BuiltinFunction.allCases.map(\.rawValue)).isSubset(of: Set(start)))
            #expect(try labels("  x: ${{ inputs.count == 1 && con", folder: folder) == start)
            #expect(try labels("  x: ${{ length(", folder: folder) == start)
            // After a value, a word is not a new one.
            #expect(try labels("  x: ${{ inputs.count ", folder: folder) == nil)
        }
    }

    @Test func itemsCarryTypesDescriptionsSignaturesAndReplaceTheWord() throws {
        let names = ExpressionNames(
            plan: try #require(PlanParser.parse(SourceFile(path: "/p/p.yaml", text: Self.text)).plan), sources: [])
        let line = "  x: \"${{ inputs.us"
        let items = try #require(
            names.items(at: TextPosition(line: 9, character: line.utf16.count), in: Self.text + line))
        let user = try #require(items.first)
        #expect(user["detail"] == .string("input: string"))
        #expect(user["documentation"]?["value"] == .string("Who signs in."))
        #expect(
            TextRange(user["textEdit"]?["range"])
                == TextRange(start: .init(line: 9, character: 17), end: .init(line: 9, character: 19)))
        #expect(items[1]["detail"] == .string("input: number"))
        let functions = try #require(names.items(at: TextPosition(line: 9, character: 10), in: Self.text + line))
        #expect(
            functions.contains {
                $0["label"] == .string("default") && $0["detail"] == .string("default(value, fallback)")
            })
    }

    @Test func theServerOffersInputsFromTheLastCheckOfAHalfWrittenPlan() async throws {
        let client = TestClient(checkDelay: .milliseconds(2))
        _ = await client.initialize()
        let uri = "file:///tmp/reqplan-lsp-names/plan.yaml"
        client.notify("textDocument/didOpen", .document(uri, version: 1, text: Self.text))
        _ = await client.diagnostics(of: uri)
        let line = "  broken: { request: { url: \"${{ inputs."
        client.notify(
            "textDocument/didChange",
            .object([
                .init("textDocument", .object([.init("uri", .string(uri)), .init("version", .int(2))])),
                .init("contentChanges", .list([.object([.init("text", .string(Self.text + line))])])),
            ]))
        let answer = await client.request(
            1, "textDocument/completion",
            .object([
                .init("textDocument", .object([.init("uri", .string(uri))])),
                .init("position", TextPosition(line: 9, character: line.utf16.count).value),
            ]))
        guard case .list(let items)? = answer?["result"]?["items"] else {
            Issue.record("no items: \(String(describing: answer))")
            return
        }
        #expect(items.map { $0["label"] } == [.string("user"), .string("count")])
        #expect(await client.request(2, "shutdown")?["result"] == .null)
        #expect(await client.exit() == 0)
    }
}
