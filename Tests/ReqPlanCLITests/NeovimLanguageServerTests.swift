import Foundation
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

/// `reqplan lsp` in a real editor: Neovim from Debian, headless, with its built-in LSP client
/// (`Tests/lsp/neovim/session.lua`). The script opens a plan, types a misspelt step id with keys, waits for the
/// diagnostic, asks for completion where the word was and accepts the real id with the edit the item carries,
/// then waits for the diagnostics to clear; it writes what it saw, which this test reads.
@Suite struct NeovimLanguageServerTests {
    static let session = CommandRunner.packageRoot.appendingPathComponent("Tests/lsp/neovim/session.lua")

    /// Non-ASCII text before the mistake on its line: Neovim turns the server's UTF-16 columns into bytes.
    static let plan = """
        reqplan: 1
        name: "Café ☕ checkout"
        steps:
          login:
            request: { method: POST, url: "http://127.0.0.1:1/login" }
          profile: { description: "Café ☕ 𝄞", needs: [login], request: { url: "http://127.0.0.1:1/me" } }

        """

    @Test(ExternalServers.needed(.neovim))
    func neovimShowsTheDiagnosticAndAcceptsTheCompletionThatFixesIt() throws {
        let file = try CommandRunner.temporaryPlan(Self.plan, name: "checkout.yaml")
        let out = file.deletingLastPathComponent().appendingPathComponent("neovim-session.json")
        let run = try runCommand(
            "env",
            [
                "REQPLAN=\(CommandRunner.binary.path)", "PLAN=\(file.path)", "OUT=\(out.path)",
                "timeout", "120", "nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n",
                "-c", "luafile \(Self.session.path)",
            ])
        #expect(run.status == 0, "\(run.output)")
        let seen = try Value.parseJSON(String(contentsOf: out, encoding: .utf8))
        #expect(seen["error"] == nil, "\(seen.jsonText())")
        #expect(
            seen["steps"] == .list(["initialized", "diagnostic", "accepted", "cleared"].map(Value.string)),
            "\(seen.jsonText())")
        #expect(seen["diagnostics_at_open"] == .int(0))
        let diagnostic = try #require(seen["diagnostic"])
        #expect(diagnostic["code"] == .string("RP0301"))
        #expect(diagnostic["line"] == .int(5))
        #expect(diagnostic["under"] == .string("logni"), "the range is not the misspelt id: \(diagnostic.jsonText())")
        if case .string(let message)? = diagnostic["message"] {
            #expect(message.contains("did you mean `login`?"), "\(message)")
        }
        guard case .list(let labels)? = seen["completion_labels"] else {
            Issue.record("no completion: \(seen.jsonText())")
            return
        }
        #expect(labels.contains(.string("login")))
        if case .string(let line)? = seen["accepted_line"] { #expect(line.contains("needs: [login]"), "\(line)") }
    }
}
