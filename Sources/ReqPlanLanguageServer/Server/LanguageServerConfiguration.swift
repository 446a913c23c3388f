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
    /// A library for one check: the command line gives one that reads OpenAPI descriptions and Arazzo
    /// documents. A new one per check, so the sub-plans and descriptions a plan reads are read again and a
    /// change to them on disk is seen.
    public var makeLibrary: @Sendable () -> PlanLibrary

    /// A configuration.
    /// - Parameters:
    ///   - version: the version `initialize` reports.
    ///   - checkDelay: how long after the last change a document is checked (default 120 ms).
    ///   - limits: size and alias-expansion limits.
    ///   - workingFolder: where a document that is not a file is checked (default: the current folder).
    ///   - makeLibrary: a library for one check (default: one that reads no API description).
    public init(
        version: String, checkDelay: Duration = .milliseconds(120), limits: ParseLimits = ParseLimits(),
        workingFolder: String = FileManager.default.currentDirectoryPath,
        makeLibrary: @escaping @Sendable () -> PlanLibrary = { PlanLibrary() }
    ) {
        self.version = version
        self.checkDelay = checkDelay
        self.limits = limits
        self.workingFolder = workingFolder
        self.makeLibrary = makeLibrary
    }
}
