import Foundation
import ReqPlanLanguageServer
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

/// Random edit sequences over the example plans: whatever the text becomes (an unclosed `${{`, a tab, a
/// broken indentation, half a surrogate pair's place), the server keeps answering, and ends cleanly.
@Suite struct RandomEditTests {
    static let plans = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("plans")

    /// What an edit inserts: the pieces of plans that break them most.
    static let pieces = [
        "${{", "}}", "\t", "𝄞", "é", ":", "- ", "\n", "  ", "[", "]", "{", "}", "steps.", "needs: [", "\"", "'",
        "&a", "*a", "<<: ", "#", "\r\n", "\r", "", "x",
    ]

    @Test(arguments: [1, 2, 3])
    func randomEditsNeverStopTheServer(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.plans.path).filter {
            $0.hasSuffix(".yaml")
        }
        .sorted()
        #expect(files.count > 5)
        let client = TestClient(checkDelay: .milliseconds(2))
        _ = await client.initialize()
        var request = 100
        for file in files {
            let path = Self.plans.appendingPathComponent(file).path
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let uri = DocumentURI(filePath: path).text
            let lineCount = text.split(separator: "\n", omittingEmptySubsequences: false).count
            client.notify("textDocument/didOpen", .document(uri, version: 1, text: text))
            for version in 2..<40 {
                func position() -> Value {
                    TextPosition(
                        line: Int.random(in: 0...(lineCount + 1), using: &random),
                        character: Int.random(in: 0...90, using: &random)
                    ).value
                }
                var change: [Value.Field] = [.init("text", .string(Self.pieces.randomElement(using: &random) ?? ""))]
                if Int.random(in: 0..<20, using: &random) != 0 {
                    let (start, end) = (position(), position())
                    // Either order: a range whose end is before its start is refused, and the server goes on.
                    change.append(.init("range", .object([.init("start", start), .init("end", end)])))
                }
                client.notify(
                    "textDocument/didChange",
                    .object([
                        .init("textDocument", .object([.init("uri", .string(uri)), .init("version", .int(version))])),
                        .init("contentChanges", .list([.object(change)])),
                    ]))
                if version % 8 == 0 {
                    request += 1
                    let asked = await client.request(
                        request, "textDocument/completion",
                        .object([
                            .init("textDocument", .object([.init("uri", .string(uri))])), .init("position", position()),
                        ]))
                    #expect(
                        asked?["result"] != nil || asked?["error"]?["code"] == .int(-32801),
                        "\(String(describing: asked))")
                }
            }
            // The edited text was checked (diagnostics published for it) before it closes.
            #expect(await client.diagnostics(of: uri) != nil, "\(file)")
            client.notify("textDocument/didClose", .document(uri))
        }
        #expect(await client.request(1, "shutdown")?["result"] == .null)
        #expect(await client.exit() == 0)
    }
}
