import ArgumentParser
import ReqPlanLanguageServer
import ReqPlanPipeline
import ReqPlanPlanner
import ReqPlanPresentation
import ReqPlanRuntime
import ReqPlanSyntax

struct LSPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lsp",
        abstract: "Run the language server (LSP 3.17) on standard input and output, for editors.",
        discussion: """
            An editor starts it and talks to it; it publishes what `reqplan validate` finds in the open plans \
            as you type. Set-ups for Neovim, VS Code, Helix, Emacs and Zed: docs/lsp.md.
            """
    )

    @Flag(help: "Talk over standard input and output (the only way; accepted as editors' clients pass it).")
    var stdio = false

    @Option(
        help:
            "Milliseconds after the last change of a burst of typing before a document is checked (a change after a pause is checked at once)."
    )
    var checkDelay: Int = 30

    func validate() throws {
        guard (0...10_000).contains(checkDelay) else { throw ValidationError("--check-delay is 0 to 10000 ms") }
    }

    func run() async throws {
        // A library per check (plans change as the user types); the API descriptions they bind are kept across
        // checks by the pipeline, and read again when their files change.
        let pipeline = Pipeline()
        // What was read and found of each plan's steps, so a keystroke reads and checks again only the step it
        // changed (and the steps that read it).
        let steps = PlanReadCache()
        let checks = APICheckCache()
        let configuration = LanguageServerConfiguration(
            version: ReqPlanVersion.current, checkDelay: .milliseconds(checkDelay),
            makeLibrary: { unsaved in pipeline.library(unsavedText: unsaved, readCache: steps, apiCheckCache: checks) },
            filesChanged: { pipeline.forget(changed: $0) })
        StandardStreams.exit(await LanguageServer.runOnStandardIO(configuration: configuration))
    }
}
