import Foundation
import ReqPlanTestSupport
import Testing

/// `reqplan lsp` driven by a real LSP client library: pytest-lsp (on pygls and lsprotocol) starts the built
/// binary and goes through initialize, didOpen, incremental and whole-text didChange, published diagnostics
/// (code, UTF-16 range after non-ASCII text, message), didClose, an unknown method and malformed frames,
/// completion of step ids, result fields and keys in a half-written plan, definition of a step id, the steps
/// as document symbols, the quick fix of a misspelt need, hover, shutdown and exit with status 0
/// (`Tests/lsp/test_lsp.py`).
@Suite struct LanguageServerProtocolTests {
    static let tests = CommandRunner.packageRoot.appendingPathComponent("Tests/lsp")

    @Test(.enabled(if: ExternalServers.canRun(.pytestLSP)))
    func aRealClientLibraryGetsDiagnosticsAndErrorsAndACleanExit() throws {
        let run = try runCommand(
            "env",
            [
                // `timeout`: a server that stops answering fails the test rather than hanging the suite.
                "REQPLAN_BINARY=\(CommandRunner.binary.path)", "timeout", "300", "python3", "-m", "pytest", "-q", "-p",
                "no:cacheprovider",
                "-c", Self.tests.appendingPathComponent("pytest.ini").path, Self.tests.path,
            ])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("7 passed"), "\(run.output)")
    }
}

/// `reqplan lsp` in a real editor: Neovim, headless, with its built-in LSP client (`Tests/lsp/neovim.lua`)
/// opens a plan, types a misspelt step id after non-ASCII text, waits for the diagnostic, accepts the
/// completion that fixes it and waits for the diagnostics to clear.
@Suite struct NeovimLSPTests {
    static let script = CommandRunner.packageRoot.appendingPathComponent("Tests/lsp/neovim.lua")

    @Test(.enabled(if: ExternalServers.canRun(.neovim)))
    func neovimShowsTheDiagnosticWhereTheMistakeIsAndItsCompletionFixesIt() throws {
        let plan = try CommandRunner.temporaryPlan(
            """
            reqplan: 1
            defaults: { base_url: "http://127.0.0.1:8080" }
            steps:
              login: { request: { url: /login } }
              fetch: { description: "Café ☕ 𝄞", needs: [], request: { url: /b } }

            """)
        let seen = plan.deletingLastPathComponent().appendingPathComponent("seen.txt")
        let run = try runCommand(
            "env",
            [
                "REQPLAN_BINARY=\(CommandRunner.binary.path)", "REQPLAN_PLAN=\(plan.path)", "REQPLAN_SEEN=\(seen.path)",
                // `timeout`: an editor waiting on a stuck server fails the test rather than hanging the suite.
                "timeout", "120", "nvim", "--headless", "-u", "NONE", "-n", "-c", "luafile \(Self.script.path)",
            ])
        let lines = (try? String(contentsOf: seen, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        #expect(run.status == 0, "\(run.output)\n\(lines)")
        // Neovim shows columns in bytes: `logn` starts at byte 50 (44 characters, `é` 2 bytes, `☕` 3, `𝄞` 4),
        // converted from the server's UTF-16 offset 45.
        #expect(
            lines == [
                "diagnostic RP0301 4:50-4:54 `needs` names `logn`, but there is no such step | did you mean `login`?",
                "line   fetch: { description: \"Café ☕ 𝄞\", needs: [login], request: { url: /b } }",
                "cleared true",
            ])
    }
}
