import Foundation
import ReqPlanSyntax

/// Turns the validator's diagnostics of one checked document into LSP diagnostics (`Diagnostic` of LSP
/// 3.17), grouped by the document each belongs to.
///
/// - The range is the diagnostic's own, converted from reqplan's scalar columns to UTF-16 units with the
///   text it was found in; a diagnostic without one is at the start of the document.
/// - `code` is the RP code, `source` is `reqplan`; the hint ends the message, on a line of its own.
/// - Located notes (`first defined here`, `included from …`, the other end of a cycle) are related
///   information when the client takes it, else lines of the message, as notes without a place always are.
/// - A diagnostic with a fix (`Diagnostic.fix`: a misspelt name's one candidate, another runner's shorthand
///   rewritten, RP1014, RP0853's value wrapped in `default(…)`) carries it in its `data`, for `QuickFix`.
/// - RP0901 (an input never read) and RP0903 (a need listed twice) are tagged `Unnecessary`: editors fade
///   the text rather than underline it.
/// - A diagnostic in another file (a sub-plan it includes) goes to that file when it is open in the editor;
///   otherwise to the checked document, at the place that includes the file, with the place in that file
///   as related information.
public struct DiagnosticConversion {
    /// The path the document was checked as.
    public var path: String
    /// The document's URI.
    public var uri: DocumentURI
    /// The documents open in the editor, by path: where a diagnostic in one of them goes.
    public var openDocuments: [String: DocumentURI]
    /// Whether the client shows `relatedInformation` (its `publishDiagnostics.relatedInformation`).
    public var relatedInformation: Bool
    /// The text of each file, by path, for converting columns.
    private var sources: [String: SourceFile]

    /// A conversion for the document `uri`, checked as `path`.
    /// - Parameter sources: the texts the validator read (`ValidationReport.sources`); a file not among
    ///   them is read from disk when a position in it is converted.
    public init(
        path: String, uri: DocumentURI, openDocuments: [String: DocumentURI], relatedInformation: Bool,
        sources: [SourceFile]
    ) {
        self.path = path
        self.uri = uri
        self.openDocuments = openDocuments
        self.relatedInformation = relatedInformation
        self.sources = Dictionary(sources.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The LSP diagnostics of each document; the checked document is always there, with an empty list
    /// when it has none.
    public mutating func convert(_ diagnostics: [Diagnostic]) -> [DocumentURI: [Value]] {
        var result: [DocumentURI: [Value]] = [uri: []]
        for diagnostic in diagnostics {
            let (target, value) = convert(diagnostic)
            result[target, default: []].append(value)
        }
        return result
    }

    /// The document a diagnostic goes to, and the diagnostic as LSP's JSON.
    private mutating func convert(_ diagnostic: Diagnostic) -> (DocumentURI, Value) {
        let file = diagnostic.file ?? path
        var message = diagnostic.message
        var related: [Value] = []
        let target: DocumentURI
        let range: TextRange
        if let open = self.uri(ofOpen: file) {
            target = open
            range = textRange(diagnostic.range, in: file)
        } else {
            // In a file not open: shown where this document includes it.
            target = uri
            let inclusion = diagnostic.notes.last { ($0.file ?? file) == path && $0.range != nil }
            range = textRange(inclusion?.range, in: path)
            message = "in `\(shown(file))`: " + message
            related.append(location(file: file, range: diagnostic.range, message: diagnostic.message))
        }
        if let hint = diagnostic.hint { message += "\n" + hint }
        for note in diagnostic.notes {
            let noteFile = note.file ?? file
            if let noteRange = note.range, relatedInformation {
                related.append(location(file: noteFile, range: noteRange, message: note.message))
            } else {
                message += "\nnote: " + note.message
            }
        }
        var fields: [Value.Field] = [
            .init("range", range.value),
            .init("severity", .int(Self.severity(diagnostic.severity))),
            .init("code", .string(diagnostic.code.rawValue)),
            .init("source", .string("reqplan")),
            .init("message", .string(message)),
        ]
        if Self.unnecessary.contains(diagnostic.code) { fields.append(.init("tags", .list([.int(1)]))) }
        // The diagnostic's fix, for a diagnostic shown where it is (not at the inclusion of its file).
        if target != uri || file == path, let sourceRange = diagnostic.range,
            let written = source(file).text(onOneLine: sourceRange),
            let fix = QuickFix.data(fix: diagnostic.fix, replacing: written)
        {
            fields.append(.init("data", fix))
        }
        if relatedInformation, !related.isEmpty { fields.append(.init("relatedInformation", .list(related))) }
        return (target, .object(fields))
    }

    /// The codes tagged `Unnecessary` (LSP `DiagnosticTag` 1).
    static let unnecessary: Set<DiagnosticCode> = [.unusedInput, .redundantNeed]

    /// LSP's `DiagnosticSeverity`: 1 error, 2 warning, 3 information.
    static func severity(_ severity: Severity) -> Int {
        switch severity {
        case .error: 1
        case .warning: 2
        case .note: 3
        }
    }

    /// The URI a diagnostic in `file` is published under, when it is the checked document or open.
    private func uri(ofOpen file: String) -> DocumentURI? {
        file == path ? uri : openDocuments[file]
    }

    /// A `DiagnosticRelatedInformation`.
    private mutating func location(file: String, range: SourceRange?, message: String) -> Value {
        let location: Value = .object([
            .init("uri", .string((uri(ofOpen: file) ?? DocumentURI(filePath: file)).text)),
            .init("range", textRange(range, in: file).value),
        ])
        return .object([.init("location", location), .init("message", .string(message))])
    }

    /// A range in `file` in LSP positions; the start of the file when there is none.
    private mutating func textRange(_ range: SourceRange?, in file: String) -> TextRange {
        guard let range else {
            return TextRange(start: .init(line: 0, character: 0), end: .init(line: 0, character: 0))
        }
        return TextRange(range, in: source(file))
    }

    /// The text of `file`: the one the validator read, else the file on disk, read as every file a document
    /// names is, inside the document's project (`FileReader`: no symbolic link out of it, no FIFO, bounded);
    /// empty when it does not read (the columns are then taken as UTF-16 offsets).
    private mutating func source(_ file: String) -> SourceFile {
        if let known = sources[file] { return known }
        let text = try? FileReader.text(
            atPath: file, origin: .input(FileBoundary(planFile: path)), limit: ParseLimits().maxFileSize,
            what: "the file a diagnostic names"
        ).get()
        let read = SourceFile(path: file, text: text ?? "")
        sources[file] = read
        return read
    }

    /// A file's path as the message names it: relative to the checked document's folder when inside it.
    private func shown(_ file: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent + "/"
        return file.hasPrefix(folder) ? String(file.dropFirst(folder.count)) : file
    }
}
