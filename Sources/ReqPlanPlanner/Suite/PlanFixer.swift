import Foundation
import ReqPlanSyntax

/// What `reqplan fix` did to one file: the text it read, the text with the safe fixes applied, and the
/// validation of the result.
public struct PlanFixResult: Sendable {
    /// The file, as given.
    public var path: String
    /// The file as diagnostics and the diff name it.
    public var displayPath: String
    /// The text read.
    public var original: String
    /// The text with the fixes applied; `original` when no fix applied or the fixes were refused (`refused`).
    public var fixed: String
    /// The diagnostics whose fixes were applied, in the order they were applied (pass by pass, each pass from
    /// the end of the file backward), with their ranges in the text of their pass.
    public var applied: [Diagnostic]
    /// The validation of `fixed`.
    public var report: ValidationReport
    /// How many errors the fixes leave: `report`'s, or for refused fixes, those the fixed text would have.
    public var errorsLeft: Int
    /// Whether fixes were found but not kept, because the fixed text still has errors that no fix fixes and
    /// errors were not allowed (`allowErrors`).
    public var refused: Bool

    /// Whether the file is to be changed.
    public var changed: Bool { fixed != original }
}

/// Applies the safe fixes of a plan's or an Arazzo document's diagnostics (`Diagnostic.Fix.isSafe`: a
/// misspelling with one candidate, another runner's shorthand in the specification's form), as `cargo fix`
/// and `eslint --fix` do: `reqplan fix`.
///
/// Each pass validates the text, takes the safe fixes of the diagnostics in the file itself (not in a file
/// it includes) whose range still holds the text each fix was made for, keeps those that do not overlap, and
/// applies them from the end of the file backward, so the ranges of the others stay valid. Passes repeat,
/// up to `maxPasses`, until none is left (a fix can reveal another problem: a misspelt key hides the misspelt
/// value under it). A fix that is not safe (RP0853's `default(…)`) is never applied, nor one that makes a
/// duplicate key (a misspelt key whose candidate the mapping has already).
///
/// The file is read once, through `FileReader` as the user named it; every pass validates the text held in
/// memory, given to the library as an editor's unsaved text, so the files it names are checked as
/// `validate` checks them. Nothing is written here (`AtomicFile.write`).
public enum PlanFixer {
    /// The most passes over one file.
    public static let maxPasses = 10

    /// Fixes the file at `path`.
    /// - Parameters:
    ///   - path: the plan or Arazzo document.
    ///   - displayPath: how diagnostics and the diff name it (default: `path`).
    ///   - limits: size and alias-expansion limits, as `validate` reads with.
    ///   - allowFilesOutside: let the files it names be outside its folder (`--allow-files-outside`).
    ///   - allowErrors: keep the fixes even when errors remain that no fix fixes.
    ///   - library: a fresh library for one pass, that reads a plan file's text from `unsavedText` (by its
    ///     absolute, standardized path, symbolic links resolved) when it gives one.
    /// - Returns: what was done; or the diagnostic of a file that could not be read.
    public static func fix(
        fileAt path: String, displayPath: String? = nil, limits: ParseLimits = ParseLimits(),
        allowFilesOutside: Bool = false,
        allowErrors: Bool = false,
        library: (_ unsavedText: @escaping @Sendable (String) -> String?) throws -> PlanLibrary
    ) rethrows -> PlanFixResult {
        let shown = displayPath ?? path
        let original: String
        switch FileReader.text(atPath: path, origin: .user, limit: limits.maxFileSize, what: "the plan") {
        case .success(let text): original = text
        case .failure:
            // Reported by the validation, as `validate` reports it.
            let report = PlanValidator.validate(
                fileAt: path, displayPath: shown, limits: limits, allowFilesOutside: allowFilesOutside,
                library: try library { _ in nil })
            return PlanFixResult(
                path: path, displayPath: shown, original: "", fixed: "", applied: [], report: report,
                errorsLeft: report.errorCount, refused: false)
        }
        let key = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        func validate(_ text: String) throws -> ValidationReport {
            PlanValidator.validate(
                fileAt: path, displayPath: shown, limits: limits, allowFilesOutside: allowFilesOutside,
                library: try library { $0 == key ? text : nil })
        }
        var text = original
        var report = try validate(text)
        var applied: [Diagnostic] = []
        for _ in 0..<maxPasses {
            let edits = safeEdits(report)
            guard !edits.isEmpty else { break }
            let before = conflicts(report)
            let all = apply(edits.map { ($0.range, $0.replacement) }, to: text)
            let after = try validate(all)
            if conflicts(after).isSubset(of: before) {
                (text, report) = (all, after)
                applied +=
                    edits
                    .map(\.diagnostic)
                continue
            }
            // A fix that makes a conflict (a key renamed to one the mapping has already) is left out: the
            // others are tried one by one, from the end of the file, each kept when it makes none. (A new
            // error of another kind is one a fix revealed: `needs: [logn]` once `need` is `needs`.)
            var kept = 0
            for edit in edits {
                let one = apply([(edit.range, edit.replacement)], to: text)
                let checked = try validate(one)
                guard conflicts(checked).isSubset(of: conflicts(report)) else { continue }
                (text, report) = (one, checked)
                applied.append(edit.diagnostic)
                kept += 1
            }
            if kept == 0 { break }
        }
        if text != original, report.errorCount > 0, !allowErrors {
            return PlanFixResult(
                path: path, displayPath: shown, original: original, fixed: original, applied: applied,
                report: try validate(original), errorsLeft: report.errorCount, refused: true)
        }
        return PlanFixResult(
            path: path, displayPath: shown, original: original, fixed: text, applied: applied, report: report,
            errorsLeft: report.errorCount, refused: false)
    }

    /// The conflicts of `report` (duplicate keys), by message, to tell one a fix made from one that was there.
    static func conflicts(_ report: ValidationReport) -> Set<String> {
        Set(report.diagnostics.filter { $0.code == .duplicateKey }.map(\.message))
    }

    /// One fix to apply: the diagnostic, its one-line range, and its replacement.
    struct Edit {
        var diagnostic: Diagnostic
        var range: SourceRange
        var replacement: String
    }

    /// The safe fixes of `report`'s diagnostics in its own file whose ranges hold the text they were made for,
    /// from the last in the file to the first, none overlapping another (of two that do, the later one).
    static func safeEdits(_ report: ValidationReport) -> [Edit] {
        guard let source = report.source else { return [] }
        let candidates = report.diagnostics.compactMap { diagnostic -> Edit? in
            guard (diagnostic.file ?? report.path) == report.path, let fix = diagnostic.fix, fix.isSafe,
                let range = diagnostic.range, let written = source.text(onOneLine: range), fix.applies(to: written),
                !fix.replacement.contains(where: \.isNewline)
            else { return nil }
            return Edit(diagnostic: diagnostic, range: range, replacement: fix.replacement)
        }
        var edits: [Edit] = []
        for edit in candidates.sorted(by: { ($0.range.start, $0.range.end) > ($1.range.start, $1.range.end) }) {
            if let last = edits.last {
                // The same change found twice (a name read in two places) is made once.
                if last.range == edit.range && last.replacement == edit.replacement { continue }
                guard edit.range.end <= last.range.start, edit.range.start < last.range.start else { continue }
            }
            edits.append(edit)
        }
        return edits
    }

    /// `text` with each one-line range replaced, the ranges ordered from the last to the first and not
    /// overlapping. Columns count Unicode scalars; a line ends at `\n`, `\r\n` or a lone `\r`, as in
    /// `SourceFile`.
    static func apply(_ edits: [(SourceRange, String)], to text: String) -> String {
        var scalars = Array(text.unicodeScalars)
        var lineStarts = [0]
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if scalar == "\r", index < scalars.count, scalars[index] == "\n" { index += 1 }
            if scalar == "\n" || scalar == "\r" { lineStarts.append(index) }
        }
        for (range, replacement) in edits {
            let line = range.start.line - 1
            guard line >= 0, line < lineStarts.count else { continue }
            let start = lineStarts[line] + range.start.column - 1
            let end = lineStarts[line] + range.end.column - 1
            guard start >= lineStarts[line], start <= end, end <= scalars.count else { continue }
            scalars.replaceSubrange(start..<end, with: Array(replacement.unicodeScalars))
        }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars)
        return String(result)
    }
}

extension PlanFixResult {
    /// Writes `fixed` in place of the file, whole or not at all (`OutputFile`: a file of its own in the same
    /// folder, renamed over it), keeping its permissions; a symbolic link stays a link, and the file it points
    /// to is replaced. Does nothing when nothing changed.
    /// - Throws: an `OutputFile.WriteError` naming the reason; the file is then as it was.
    public func write() throws(OutputFile.WriteError) {
        guard changed else { return }
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let mode = (try? FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? NSNumber)
            .map { mode_t($0.uint16Value) & 0o7777 }
        try OutputFile.write(fixed, toPath: target, permissions: mode ?? 0o644, creatingFolders: false)
    }
}
