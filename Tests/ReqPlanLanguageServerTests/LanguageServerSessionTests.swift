import Foundation
import ReqPlanLanguageServer
import ReqPlanSyntax
import Testing

/// A session with the server in process: lifecycle, errors, and diagnostics as documents change.
@Suite struct LanguageServerSessionTests {
    /// A plan whose `fetch` needs `logn` (misspelt) after non-ASCII text on the same line.
    static let plan = """
        reqplan: 1
        defaults: { base_url: "http://127.0.0.1:8080" }
        steps:
          login: { request: { url: /login } }
          fetch: { description: "Café ☕ 𝄞", needs: [logn], request: { url: /b } }

        """

    @Test func initializeAdvertisesIncrementalSyncAndNothingItDoesNotDo() async throws {
        let client = TestClient()
        let result = try #require(await client.initialize())
        let capabilities = try #require(result["result"]?["capabilities"])
        #expect(capabilities["textDocumentSync"]?["change"] == .int(2))
        #expect(capabilities["positionEncoding"] == .string("utf-16"))
        #expect(
            capabilities["definitionProvider"] == .bool(true) && capabilities["documentSymbolProvider"] == .bool(true))
        #expect(capabilities["hoverProvider"] == .bool(true) && capabilities["referencesProvider"] == .bool(true))
        #expect(capabilities["codeActionProvider"]?["codeActionKinds"] == .list([.string("quickfix")]))
        #expect(result["result"]?["serverInfo"]?["name"] == .string("reqplan"))
        #expect(await client.request(1, "shutdown")?["result"] == .null)
        #expect(await client.exit() == 0)
    }

    @Test func aMisspeltNeedIsPublishedAtItsUTF16RangeAndClearedWhenFixed() async throws {
        let client = TestClient()
        _ = await client.initialize()
        let uri = "file:///tmp/reqplan-lsp-session/plan.yaml"
        client.notify("textDocument/didOpen", .document(uri, version: 1, text: Self.plan))
        let published = try #require(await client.diagnostics(of: uri) { !$0.isEmpty })
        #expect(published.count == 1)
        let diagnostic = try #require(published.first)
        #expect(diagnostic["code"] == .string("RP0301"))
        #expect(diagnostic["severity"] == .int(1))
        #expect(diagnostic["source"] == .string("reqplan"))
        // `logn` is at scalar offset 44 of its line; `𝄞` before it is two UTF-16 units.
        let range = try #require(TextRange(diagnostic["range"]))
        #expect(range == TextRange(start: .init(line: 4, character: 45), end: .init(line: 4, character: 49)))
        guard case .string(let message)? = diagnostic["message"] else {
            Issue.record("no message")
            return
        }
        #expect(message.contains("`logn`") && message.contains("did you mean `login`?"), "\(message)")

        // Type the missing `i`, as an incremental change.
        let insertion = TextRange(start: .init(line: 4, character: 48), end: .init(line: 4, character: 48))
        client.notify(
            "textDocument/didChange",
            .object([
                .init("textDocument", .object([.init("uri", .string(uri)), .init("version", .int(2))])),
                .init(
                    "contentChanges",
                    .list([.object([.init("range", insertion.value), .init("text", .string("i"))])])),
            ]))
        #expect(await client.diagnostics(of: uri) { $0.isEmpty } != nil)
        client.notify("textDocument/didClose", .document(uri))
        #expect(await client.end() == 1)
    }

    @Test func anUnusedInputIsTaggedUnnecessary() async throws {
        let client = TestClient()
        _ = await client.initialize()
        let uri = "untitled:Untitled-1"
        client.notify(
            "textDocument/didOpen",
            .document(
                uri, version: 1,
                text: "reqplan: 1\ninputs:\n  token: { default: x }\nsteps:\n  a: { request: { url: http://h/a } }\n"))
        let published = try #require(await client.diagnostics(of: uri) { !$0.isEmpty })
        let unused = try #require(published.first { $0["code"] == .string("RP0901") })
        #expect(unused["tags"] == .list([.int(1)]))
        #expect(unused["severity"] == .int(2))
        #expect(TextRange(unused["range"])?.start == TextPosition(line: 2, character: 2))
    }

    @Test func aProblemInASubPlanGoesToItsFileWhenOpenElseToTheInclusion() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reqplan-lsp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sub = "reqplan: 1\nsteps:\n  x: { needs: [nope], request: { url: http://h/x } }\n"
        try sub.write(to: folder.appendingPathComponent("sub.yaml"), atomically: true, encoding: .utf8)
        let main = "reqplan: 1\nsteps:\n  run: { plan: { file: sub.yaml } }\n"
        let mainURI = DocumentURI(filePath: folder.appendingPathComponent("main.yaml").path).text
        let subURI = DocumentURI(filePath: folder.appendingPathComponent("sub.yaml").path).text

        let client = TestClient()
        _ = await client.initialize()
        client.notify("textDocument/didOpen", .document(mainURI, version: 1, text: main))
        let seen = try #require(await client.diagnostics(of: mainURI) { !$0.isEmpty })
        let routed = try #require(seen.first)
        #expect(routed["code"] == .string("RP0301"))
        // At the place that includes it: `sub.yaml` of line 3.
        #expect(TextRange(routed["range"])?.start.line == 2)
        guard case .string(let message)? = routed["message"], case .list(let related)? = routed["relatedInformation"]
        else {
            Issue.record("\(routed)")
            return
        }
        #expect(message.hasPrefix("in `sub.yaml`: "), "\(message)")
        #expect(related.first?["location"]?["uri"] == .string(subURI))
        #expect(TextRange(related.first?["location"]?["range"])?.start == TextPosition(line: 2, character: 15))

        // Opened, the sub-plan shows its own problem, once, and the plan that includes it is clean.
        client.notify("textDocument/didOpen", .document(subURI, version: 1, text: sub))
        let own = try #require(await client.diagnostics(of: subURI) { !$0.isEmpty })
        #expect(own.count == 1 && own.first?["code"] == .string("RP0301"))
        #expect(await client.diagnostics(of: mainURI) { $0.isEmpty } != nil)
        #expect(await client.end() == 1)
    }

    @Test func requestsBeforeInitializeAndUnknownMethodsAreAnsweredWithErrorsAndTheServerGoesOn() async throws {
        let client = TestClient()
        #expect(await client.request(7, "textDocument/hover")?["error"]?["code"] == .int(-32002))
        _ = await client.initialize()
        #expect(await client.request(8, "workspace/nothing")?["error"]?["code"] == .int(-32601))
        #expect(await client.request(9, "initialize")?["error"]?["code"] == .int(-32600))
        // A frame whose header has no length, and a message that is not JSON: parse errors with a null id.
        client.sendBytes(Array("Content-Type: x\r\n\r\n".utf8))
        client.sendBytes(MessageFramer.frame(Array("{\"jsonrpc\": ".utf8)))
        #expect(await client.request(10, "shutdown")?["result"] == .null)
        let errors = client.messages.filter { $0["id"] == .null && $0["error"]?["code"] == .int(-32700) }
        #expect(errors.count == 2)
        #expect(await client.request(11, "shutdown")?["error"]?["code"] == .int(-32600))
        #expect(await client.exit() == 0)
    }

    @Test func aRequestCancelledInTheSameReadIsAnsweredAsCancelled() async throws {
        let client = TestClient()
        _ = await client.initialize()
        let cancel = TestClient.notification("$/cancelRequest", .object([.init("id", .int(5))]))
        client.sendBytes(TestClient.frame(TestClient.request(5, "shutdown")) + TestClient.frame(cancel))
        #expect(await client.response(to: 5)?["error"]?["code"] == .int(-32800))
        // Not shut down: the cancelled request did not happen.
        #expect(await client.exit() == 1)
    }
}

extension LanguageServerSessionTests {
    @Test func aCompletionMadeStaleByAChangeReadWithItIsAnsweredContentModified() async throws {
        let client = TestClient()
        _ = await client.initialize()
        let uri = "untitled:stale"
        client.notify("textDocument/didOpen", .document(uri, version: 1, text: Self.plan))
        let position: Value = .object([.init("line", .int(4)), .init("character", .int(47))])
        var params = Value.document(uri)
        if case .object(var fields) = params {
            fields.append(.init("position", position))
            params = .object(fields)
        }
        let change: Value = .object([
            .init("textDocument", .object([.init("uri", .string(uri)), .init("version", .int(2))])),
            .init("contentChanges", .list([.object([.init("text", .string("reqplan: 1\n"))])])),
        ])
        client.sendBytes(
            TestClient.frame(TestClient.request(3, "textDocument/completion", params))
                + TestClient.frame(TestClient.notification("textDocument/didChange", change)))
        #expect(await client.response(to: 3)?["error"]?["code"] == .int(-32801))
        // Asked again, after the change: answered.
        #expect(await client.request(4, "textDocument/completion", params)?["result"]?["items"] != nil)
        #expect(await client.end() == 1)
    }
}
