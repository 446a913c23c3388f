import Foundation
import ReqPlanPlanner
import ReqPlanSyntax

/// How a language server checks documents and names itself.
public struct LanguageServerConfiguration: Sendable {
    /// The version `initialize` reports in `serverInfo`.
    public var version: String
    /// How long after the last change a document is checked: a burst of keystrokes is checked once.
    public var checkDelay: Duration
    /// Size and alias-expansion limits for the documents and the files they include.
    public var limits: ParseLimits
    /// The folder a document that is not a file (`untitled:`) is checked in: its sub-plans are read there.
    public var workingFolder: String
    /// A library for one check, given the text of the plan files open in the editor (by absolute path;
    /// nil for a file that is not open): the command line gives one that reads OpenAPI descriptions and
    /// Arazzo documents. A new one per check, so the sub-plans a plan reads are read again (from the editor
    /// when open there, unsaved edits included) and a change to them is seen.
    public var makeLibrary: @Sendable (_ unsavedText: @escaping @Sendable (String) -> String?) -> PlanLibrary
    /// Told when the client says files changed on disk (`workspace/didChangeWatchedFiles`), with their
    /// paths, before the open documents are checked again: what the libraries keep across checks (API
    /// descriptions) is dropped there.
    public var filesChanged: @Sendable (_ paths: [String]) -> Void

    /// A configuration.
    /// - Parameters:
    ///   - version: the version `initialize` reports.
    ///   - checkDelay: how long a burst of changes waits after its last change before it is checked; a change
    ///     after a pause is checked at once (default 30 ms, see `CheckScheduler`).
    ///   - limits: size and alias-expansion limits.
    ///   - workingFolder: where a document that is not a file is checked (default: the current folder).
    ///   - makeLibrary: a library for one check (default: one that reads no API description).
    ///   - filesChanged: told which files changed on disk (default: nothing is done).
    public init(
        version: String, checkDelay: Duration = .milliseconds(30), limits: ParseLimits = ParseLimits(),
        workingFolder: String = FileManager.default.currentDirectoryPath,
        makeLibrary: @escaping @Sendable (_ unsavedText: @escaping @Sendable (String) -> String?) -> PlanLibrary = {
            PlanLibrary(unsavedText: $0)
        },
        filesChanged: @escaping @Sendable (_ paths: [String]) -> Void = { _ in }
    ) {
        self.version = version
        self.checkDelay = checkDelay
        self.limits = limits
        self.workingFolder = workingFolder
        self.makeLibrary = makeLibrary
        self.filesChanged = filesChanged
    }
}
