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

    @Test(ExternalServers.needed(.pytestLSP))
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
        #expect(run.output.contains("10 passed"), "\(run.output)")
    }
}
