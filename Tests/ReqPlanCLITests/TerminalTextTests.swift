import Foundation
import ReqPlanTestSupport
import Testing

/// Text from outside on a terminal (HOSTILE.md, "Text that reaches a terminal"): a server's body, headers and
/// reason phrase holding OSC 0 (the window's title), OSC 52 (the clipboard), `ESC[2J`, a carriage return, a
/// bidirectional override and a fake green "✓ all 12 steps succeeded" line; a description's value holding an
/// escape; a client's message to the language server. Whatever reqplan prints shows them (`^[`, `<U+202E>`)
/// and writes no escape but its own colors and cursor moves.
@Suite("Control characters from outside are shown, not obeyed", .timeSensitive)
struct TerminalTextTests {
    static let hostile =
        "\u{1B}]0;owned\u{07}\u{1B}]52;c;ZXZpbA==\u{07}\u{1B}[2J\u{1B}[32m✓ all 12 steps succeeded\u{1B}[0m\rfake\u{202E}txt"

    static let response: String = {
        let body = hostile + "\n"
        // (A reason phrase or a header value with a control character is refused by reqplan's client as not
        // HTTP; the body carries them.)
        return "HTTP/1.1 500 Bad\r\nContent-Type: text/plain\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
    }()

    /// Every escape in `output` is one reqplan writes itself: colors, cursor up, erase line, erase below;
    /// and no other control character but newline and tab reaches it.
    static func onlyOwnEscapes(_ output: String) -> [String] {
        var problems: [String] = []
        let scalars = Array(output.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            switch scalar.value {
            case 0x1B:
                let rest = String(String.UnicodeScalarView(scalars[(index + 1)...].prefix(12)))
                if rest.firstMatch(of: /^\[(?:[0-9;]*m|[0-9]+A|2K|J)/) == nil { problems.append("ESC\(rest)") }
            case 0x0A, 0x09: continue
            case 0x00...0x1F, 0x7F, 0x80...0x9F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029:
                problems.append("U+\(String(scalar.value, radix: 16)) at \(index)")
            default: continue
            }
        }
        return problems
    }

    @Test(arguments: ["never", "always"])
    func aServersBytesAreShownOnEveryOutput(_ color: String) async throws {
        try await RawServer.with(Self.response) { url in
            let plan = try CommandRunner.temporaryPlan(
                """
                reqplan: 1
                steps:
                  s:
                    request: { url: "\(url)/x" }
                    expect: { status: 200, body: { $: { matches: "^never" } } }
                  t:
                    request: { url: "\(url)/y" }
                    expect: { status: 500 }
                outputs:
                  body: ${{ steps.t.body }}
                """)
            let result = try await CommandRunner.run(
                ["run", plan.path, "--verbose", "--color", color], environment: ["no_proxy": "*"], within: .seconds(60))
            let output = result.stdout + result.stderr
            #expect(result.status == 1, "\(output)")
            #expect(Self.onlyOwnEscapes(output).isEmpty, "\(Self.onlyOwnEscapes(output)) in \(output)")
            // What the server sent is there, shown.
            #expect(
                output.contains("^[]0;owned^G^[]52;c;ZXZpbA==^G^[[2J^[[32m✓ all 12 steps succeeded^[[0m"), "\(output)")
            #expect(output.contains("^Mfake<U+202E>txt"), "\(output)")
            #expect(output.contains("outputs:") && output.contains(#"body: "\u001b]0;owned"#), "\(output)")
        }
    }

    @Test func aDescriptionsValueIsShownInADiagnostic() async throws {
        let folder = TestFolders.unique("terminal-text")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(
            """
            openapi: 3.0.3
            info: { title: t, version: "1" }
            paths:
              /pets:
                get:
                  operationId: list
                  parameters:
                    - { name: kind, in: query, schema: { type: string, enum: ["cat\\e]0;owned\\a\\e[2J"] } }
                  responses: { "200": { description: ok } }

            """.utf8
        ).write(to: folder.appendingPathComponent("api.yaml"))
        try Data(
            "reqplan: 1\nopenapi: { api: api.yaml }\nsteps:\n  s: { request: { operation: api.list, query: { kind: dog } } }\n"
                .utf8
        ).write(to: folder.appendingPathComponent("plan.yaml"))
        for format in ["text", "github"] {
            let result = try await CommandRunner.run(
                ["validate", "plan.yaml", "--format", format, "--color", "always"], in: folder, within: .seconds(60))
            let output = result.stdout + result.stderr
            #expect(result.status == 1, "\(output)")
            #expect(Self.onlyOwnEscapes(output).isEmpty, "\(Self.onlyOwnEscapes(output)) in \(output)")
            // JSON's escapes, as the value is quoted.
            #expect(output.contains(#"cat\u001b]0;owned\u0007\u001b[2J"#), "\(output)")
        }
    }
}
