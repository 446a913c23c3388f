import ReqPlanSyntax

/// Reads a kind of document other than reqplan's own plans into plans (the AST the planner checks), so
/// that `PlanLibrary` checks, plans and runs it as it does plan files: an Arazzo workflow document
/// (`ReqPlanArazzo`) is one.
///
/// A document may hold several plans: `entry` names one (an Arazzo workflow's id); `nil` is the plan of
/// the whole document (every workflow it runs). A plan's sub-plan in the same or another document of the
/// kind names its entry in `SubPlanCall.entry`. Every diagnostic is located in the document itself, and the
/// planner's hints say what to write in it: the reader sets each plan's `notation`.
public protocol PlanDocumentReader: Sendable {
    /// Whether `source` is a document this reader reads (decided from its text, cheaply).
    func recognises(_ source: SourceFile) -> Bool

    /// Reads one plan of the document.
    /// - Parameters:
    ///   - source: the document's text and display path.
    ///   - file: the document's file (absolute), when read from one: the files it names are resolved from it.
    ///   - entry: the plan of the document to read; `nil` for the whole document's.
    ///   - limits: the limits every file is read under.
    /// - Returns: the plan (with every diagnostic of that part of the document), as `PlanParser` gives one.
    func parse(_ source: SourceFile, file: String?, entry: String?, limits: ParseLimits) -> ParseResult

    /// What one plan of such a document is called, in messages about several of them (`workflow`).
    var entryNoun: String { get }
}

extension PlanDocumentReader {
    /// `plan`.
    public var entryNoun: String { "plan" }
}
