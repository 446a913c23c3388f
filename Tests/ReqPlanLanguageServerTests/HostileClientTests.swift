import ReqPlanLanguageServer
import ReqPlanSyntax
import Testing

/// What HOSTILE.md asks of the language server: after each frame or message a client should not send, the next
/// well-framed request is answered (issue 37).
@Suite struct HostileClientTests {
    /// A didOpen whose header counts its content in characters: `é`, `☕` and `𝄞` make it 6 bytes short.
    static let countedInCharacters: [UInt8] = {
        let content =
            #"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"untitled:c","#
            + #""languageId":"yaml","version":1,"text":"reqplan: 1\nsteps:\n  café: { description: \"☕ 𝄞\" }\n"}}}"#
        return Array("Content-Length: \(content.count)\r\n\r\n".utf8) + Array(content.utf8)
    }()

    static let hostileFrames: [(String, [UInt8])] = [
        (
            "a header without Content-Length, then its content",
            Array("Content-Type: application/json\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"shutdown\"}".utf8)
        ),
        ("a length counted in characters", countedInCharacters),
        ("a negative length", Array("Content-Length: -5\r\n\r\n{\"jsonrpc\":\"2.0\"}".utf8)),
        ("Int.max as the length", Array("Content-Length: 9223372036854775807\r\n\r\n{}".utf8)),
        ("a length beyond Int", Array("Content-Length: 99999999999999999999999\r\n\r\n{\"a\":1}".utf8)),
        ("a length over the limit", Array("Content-Length: 1000000000\r\n\r\n{\"a\":1}".utf8)),
        ("a header that never ends", Array(String(repeating: "x", count: 20_000).utf8)),
        ("bytes that are not a header", Array("hello\r\n\r\n{\"jsonrpc\":\"2.0\"}".utf8)),
        ("content that is not JSON", MessageFramer.frame(Array("{\"jsonrpc\": ".utf8))),
        ("content that is not UTF-8", MessageFramer.frame([0x7B, 0xFF, 0xFE, 0x7D])),
        ("a batch", MessageFramer.frame(Array("[{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"shutdown\"}]".utf8))),
        ("an id that is an object", MessageFramer.frame(Array(#"{"jsonrpc":"2.0","id":{},"method":"x"}"#.utf8))),
        ("an empty frame", MessageFramer.frame([])),
    ]

    @Test(arguments: hostileFrames.indices)
    func theNextRequestIsAnsweredAfterAMisframedMessage(case index: Int) async throws {
        let (name, bytes) = Self.hostileFrames[index]
        let client = TestClient()
        _ = await client.initialize()
        // In one read with the request, and in a read of its own before another.
        client.sendBytes(bytes + TestClient.frame(TestClient.request(41, "reqplan/ping")))
        #expect(await client.response(to: 41)?["error"]?["code"] == .int(-32601), "\(name)")
        client.sendBytes(bytes)
        #expect(await client.request(42, "shutdown")?["result"] == .null, "\(name)")
        #expect(await client.exit() == 0, "\(name)")
    }

    @Test func aNotificationBeforeInitializeIsDroppedAndTheSessionGoesOn() async throws {
        let client = TestClient()
        client.notify("textDocument/didOpen", .document("untitled:early", version: 1, text: "reqplan: 1\n"))
        client.notify("initialized")
        #expect(await client.request(1, "textDocument/documentSymbol")?["error"]?["code"] == .int(-32002))
        _ = await client.initialize()
        // The document opened too early was not kept.
        let early = await client.request(2, "textDocument/documentSymbol", .document("untitled:early"))
        #expect(early?["error"]?["code"] == .int(-32602))
        #expect(await client.request(3, "shutdown")?["result"] == .null)
        #expect(await client.exit() == 0)
    }

    /// Positions outside the text, inside a surrogate pair and between the `\r` and `\n` of a line break.
    static let hostilePositions: [(line: Int, character: Int)] = [
        (0, 4), (0, 6), (0, 7), (0, Int.max), (Int.max, 0), (Int.max, Int.max), (2, 1_000_000), (1_000_000, 3),
        (-1, 0), (0, -1), (Int.min, Int.min),
    ]

    @Test func requestsAndChangesAtPositionsOutsideTheTextAreAnswered() async throws {
        let uri = "untitled:positions"
        // `𝄞` is UTF-16 units 3 and 4 of line 0, its `\r\n` units 5 and 6.
        let text = "a: 𝄞\r\nsteps:\r\n  s: { request: { url: \"http://x/\" }, needs: [s] }\r\n"
        let client = await TestClient.opening(uri, text)
        var id = 100
        for position in Self.hostilePositions {
            let place: Value = .object([
                .init("line", .int(position.line)), .init("character", .int(position.character)),
            ])
            for method in [
                "textDocument/hover", "textDocument/completion", "textDocument/definition", "textDocument/references",
            ] {
                id += 1
                var params = Value.document(uri)
                if case .object(var fields) = params {
                    fields.append(.init("position", place))
                    params = .object(fields)
                }
                let answer = await client.request(id, method, params)
                #expect(answer != nil, "\(method) at \(position)")
            }
            let range: Value = .object([.init("start", place), .init("end", place)])
            id += 1
            let actions = await client.request(
                id, "textDocument/codeAction",
                .object([
                    .init("textDocument", .object([.init("uri", .string(uri))])), .init("range", range),
                    .init(
                        "context",
                        .object([
                            .init(
                                "diagnostics",
                                .list([
                                    .object([
                                        .init("range", range), .init("code", .string("RP0301")),
                                        .init("source", .string("reqplan")),
                                        .init("message", .string("unknown step `t`\ndid you mean `s`?")),
                                        .init(
                                            "data",
                                            .object([.init("replace", .string("t")), .init("with", .string("s"))])),
                                    ])
                                ]))
                        ])),
                ]))
            #expect(actions != nil, "codeAction at \(position)")
            // An edit there, then a request about the document: answered.
            client.notify(
                "textDocument/didChange",
                .object([
                    .init("textDocument", .object([.init("uri", .string(uri)), .init("version", .int(id))])),
                    .init("contentChanges", .list([.object([.init("range", range), .init("text", .string("é𝄞\r"))])])),
                ]))
            id += 1
            #expect(await client.request(id, "textDocument/documentSymbol", .document(uri)) != nil, "\(position)")
        }
        #expect(await client.request(1, "shutdown")?["result"] == .null)
        #expect(await client.exit() == 0)
    }

    /// Params of the wrong shape for each request the server takes: decoding them into the request's type
    /// fails with `invalidParams` (-32602) and a message naming what is missing, and the session goes on.
    static let malformedParams: [(method: String, params: Value, mentions: String)] = [
        ("textDocument/completion", .object([]), "textDocument.uri"),
        ("textDocument/completion", .document("untitled:m"), "position"),
        ("textDocument/definition", .object([.init("textDocument", .string("untitled:m"))]), "textDocument.uri"),
        (
            "textDocument/definition",
            .object([
                .init("textDocument", .object([.init("uri", .string("untitled:m"))])),
                .init("position", .object([.init("line", .string("1")), .init("character", .int(0))])),
            ]), "position"
        ),
        ("textDocument/references", .list([.int(1)]), "textDocument.uri"),
        ("textDocument/hover", .document("untitled:m"), "position"),
        ("textDocument/codeAction", .document("untitled:m"), "context.diagnostics"),
        (
            "textDocument/codeAction",
            .object([
                .init("textDocument", .object([.init("uri", .string("untitled:m"))])),
                .init("context", .object([.init("diagnostics", .int(3))])),
            ]), "context.diagnostics"
        ),
        ("textDocument/documentSymbol", .object([.init("textDocument", .object([]))]), "textDocument.uri"),
    ]

    @Test(arguments: malformedParams.indices)
    func malformedParamsAreInvalidParams(case index: Int) async throws {
        let (method, params, mentions) = Self.malformedParams[index]
        let client = await TestClient.opening("untitled:m", "reqplan: 1\nsteps: {}\n")
        let error = await client.request(1, method, params)?["error"]
        #expect(error?["code"] == .int(-32602), "\(method)")
        guard case .string(let message)? = error?["message"] else {
            Issue.record("\(method): no message")
            return
        }
        #expect(message.contains(mentions), "\(method): \(message)")
        // Malformed notifications are logged, not answered, and change nothing.
        client.notify("textDocument/didOpen", .object([.init("textDocument", .object([]))]))
        client.notify("textDocument/didChange", .document("untitled:m", version: 2))
        client.notify("textDocument/didClose", .object([]))
        client.notify("$/cancelRequest", .object([.init("id", .null)]))
        let symbols = await client.request(2, "textDocument/documentSymbol", .document("untitled:m"))
        #expect(symbols?["result"] == .list([]), "\(method)")
        #expect(await client.request(3, "shutdown")?["result"] == .null)
        #expect(await client.exit() == 0)
    }

    /// A `didChange` whose second change is not one: the first stays applied (the client sent them in order),
    /// the second is refused, and the document reads as the first left it.
    @Test func aChangeThatIsNotOneIsRefusedAndThoseBeforeItStay() async throws {
        let uri = "untitled:changes"
        let client = await TestClient.opening(uri, "reqplan: 1\nsteps:\n  a: { request: { url: \"http://x/\" } }\n")
        let start = TextPosition(line: 2, character: 2)
        let first: Value = .object([
            .init("range", TextRange(start: start, end: TextPosition(line: 2, character: 3)).value),
            .init("text", .string("b")),
        ])
        let notAChange: Value = .object([.init("range", .null), .init("text", .string(""))])
        client.notify(
            "textDocument/didChange",
            .object([
                .init("textDocument", .object([.init("uri", .string(uri)), .init("version", .int(2))])),
                .init("contentChanges", .list([first, notAChange])),
            ]))
        let symbols = await client.request(1, "textDocument/documentSymbol", .document(uri))
        guard case .list(let list)? = symbols?["result"] else {
            Issue.record("no symbols: \(String(describing: symbols))")
            return
        }
        #expect(list.map { $0["name"] } == [.string("b")])
        #expect(await client.request(2, "shutdown")?["result"] == .null)
        #expect(await client.exit() == 0)
    }
}
