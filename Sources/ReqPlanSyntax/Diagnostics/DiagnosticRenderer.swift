import Foundation

/// Renders diagnostics for people (compiler style), machines (JSON) and
/// GitHub Actions (workflow annotations).
///
/// The text form, for every diagnostic whether found by `validate` or by a run:
/// ```
/// error[RP0101]: unknown key `need` in step `home`
///   --> plans/launch.yaml:12:5
///    |
/// 12 |     need: [bootstrap]
///    |     ^^^^
///    |
///    = hint: did you mean `needs`?
/// ```
public struct DiagnosticRenderer: Sendable {
    /// Looks up the text of a file by display path, to print source excerpts.
    public typealias SourceLookup = @Sendable (String) -> SourceFile?

    /// Whether to color with ANSI escapes.
    public var colors: Bool
    /// Texts no output may show (a run's secrets of 8 characters or more, longest first): `***` in every
    /// message, note, hint and source line, the carets still under what they point at.
    public var hiding: [String] = []
    private let sources: SourceLookup

    /// Creates a renderer.
    /// - Parameters:
    ///   - colors: emit ANSI colors.
    ///   - sources: finds the source of a file for excerpts; return `nil` to omit them.
    public init(colors: Bool = false, sources: @escaping SourceLookup) {
        self.colors = colors
        self.sources = sources
    }

    /// Creates a renderer that shows excerpts from the given files.
    public init(colors: Bool = false, files: [SourceFile]) {
        let byPath = Dictionary(files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        self.init(colors: colors, sources: { byPath[$0] })
    }

    // MARK: Text

    /// The text form of one diagnostic, ending with a newline. Every text in it that may have come from
    /// outside (messages quote servers, libraries and files; file names and source lines are someone's) shows
    /// its control characters instead of obeying them (`VisibleText`); the renderer's own colors are the only
    /// escapes it writes.
    public func text(_ diagnostic: Diagnostic) -> String {
        let source = diagnostic.file.flatMap(sources)
        var lineNumbers = [diagnostic.range?.start.line].compactMap { $0 }
        lineNumbers += diagnostic.notes.filter(\.showsSource).compactMap { $0.range?.start.line }
        let gutterWidth = String(lineNumbers.max() ?? 0).count
        let pad = String(repeating: " ", count: gutterWidth)

        var out = style(diagnostic.severity.rawValue + "[\(diagnostic.code)]", severityColor(diagnostic.severity))
        out += style(": " + shown(diagnostic.message), bold)
        out += "\n"
        if let file = diagnostic.file {
            out += excerpt(
                file: file, source: source, range: diagnostic.range, pad: pad,
                caretColor: severityColor(diagnostic.severity), label: nil)
        }
        for note in diagnostic.notes {
            // A note may point into another file (a sub-plan's declaration, the plan including a sub-plan).
            if note.showsSource, let range = note.range, let file = note.file ?? diagnostic.file {
                let noteSource = note.file.map { $0 == diagnostic.file ? source : sources($0) } ?? source
                out += style("note", cyan) + ": " + shown(note.message) + "\n"
                out += excerpt(file: file, source: noteSource, range: range, pad: pad, caretColor: cyan, label: nil)
            } else {
                out += pad + style(" = ", blue) + style("note", bold) + ": " + shown(note.message) + "\n"
            }
        }
        if let hint = diagnostic.hint {
            out += pad + style(" = ", blue) + style("hint", bold) + ": " + shown(hint) + "\n"
        }
        return out
    }

    /// The text form of many diagnostics, separated by blank lines.
    public func text(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map(text).joined(separator: "\n")
    }

    private func excerpt(
        file: String, source: SourceFile?, range: SourceRange?, pad: String, caretColor: String, label: String?
    ) -> String {
        let file = VisibleText.line(file)
        guard let range else {
            return pad + style("--> ", blue) + file + "\n"
        }
        var out = pad + style("--> ", blue) + "\(file):\(range.start.line):\(range.start.column)\n"
        guard let written = source?.line(range.start.line) else { return out }
        // Shown as `VisibleText` shows it, tabs kept, each hidden text as `***`; the caret counts what each
        // character became (a hidden text's first character `***`, the others nothing). Only the characters
        // around the caret are turned into pieces: a line of a megabyte (a data file of 200,000 columns, a
        // minified document) is shown by its window, and each of its diagnostics costs that window, not the line.
        let hidden = hiddenScalars(in: written)
        let scalars = Array(written.unicodeScalars)
        func piece(_ index: Int) -> String {
            switch hidden[index] {
            case .start: return "***"
            case .inside: return ""
            case nil: return scalars[index] == "\t" ? "\t" : VisibleText.line(String(scalars[index]))
            }
        }
        let number = String(range.start.line)
        let numberPad = String(repeating: " ", count: pad.count - number.count)
        let startIndex = min(max(0, range.start.column - 1), scalars.count)
        let endColumn = range.end.line == range.start.line ? range.end.column : scalars.count + 1
        let endIndex = min(max(startIndex, endColumn - 1), scalars.count)
        // A long line (a minified JSON file is one) is shown as a window around the caret, its cut ends as
        // `…`, as rustc shows one: a file's every diagnostic would otherwise print the whole file again.
        var window = 0..<scalars.count
        var widths: [Int: Int] = [:]
        func width(_ index: Int) -> Int {
            if let known = widths[index] { return known }
            let counted = piece(index).unicodeScalars.count
            widths[index] = counted
            return counted
        }
        var total = 0
        var counted = 0
        while counted < scalars.count, total <= Self.excerptWidth {
            total += width(counted)
            counted += 1
        }
        if total > Self.excerptWidth {
            var low = startIndex
            var used = 0
            while low > 0, used + width(low - 1) <= Self.excerptWidth / 3 {
                low -= 1
                used += width(low)
            }
            var high = startIndex
            while high < scalars.count, used + width(high) <= Self.excerptWidth {
                used += width(high)
                high += 1
            }
            window = low..<max(high, min(startIndex + 1, scalars.count))
        }
        let cutBefore = window.lowerBound > 0
        let cutAfter = window.upperBound < scalars.count
        let line = (cutBefore ? "…" : "") + window.map(piece).joined() + (cutAfter ? "…" : "")
        // Keep tabs so the caret lines up under tab-indented text.
        var prefix = cutBefore ? " " : ""
        for position in window.lowerBound..<max(window.lowerBound, startIndex) {
            prefix += scalars[position] == "\t" ? "\t" : String(repeating: " ", count: width(position))
        }
        let shownEnd = min(endIndex, window.upperBound)
        let carets = max(1, startIndex < shownEnd ? (startIndex..<shownEnd).reduce(0) { $0 + width($1) } : 0)
        out += pad + style(" |", blue) + "\n"
        out += numberPad + style(number + " |", blue) + (line.isEmpty ? "" : " " + String(line)) + "\n"
        out += pad + style(" |", blue) + " " + prefix + style(String(repeating: "^", count: carets), caretColor)
        if let label { out += " " + label }
        out += "\n"
        out += pad + style(" |", blue) + "\n"
        return out
    }

    /// The most columns of a source line an excerpt shows (a longer line is shown around the caret).
    static let excerptWidth = 160

    /// `text` as a message shows it: control characters shown, hidden texts as `***`.
    private func shown(_ text: String) -> String {
        var text = text
        for secret in hiding where !secret.isEmpty && text.contains(secret) {
            text = text.replacingOccurrences(of: secret, with: "***")
        }
        return VisibleText.lines(text)
    }

    private enum Hidden { case start, inside }

    /// Which scalars of `line` belong to a hidden text, by position.
    private func hiddenScalars(in line: Substring) -> [Int: Hidden] {
        var marks: [Int: Hidden] = [:]
        guard !hiding.isEmpty else { return marks }
        let scalars = Array(line.unicodeScalars)
        for secret in hiding {
            let needle = Array(secret.unicodeScalars)
            guard !needle.isEmpty, needle.count <= scalars.count else { continue }
            var start = 0
            while start + needle.count <= scalars.count {
                if marks[start] == nil, scalars[start..<start + needle.count].elementsEqual(needle) {
                    marks[start] = .start
                    for index in start + 1..<start + needle.count { marks[index] = .inside }
                    start += needle.count
                } else {
                    start += 1
                }
            }
        }
        return marks
    }

    // MARK: GitHub

    /// GitHub Actions workflow commands, one per diagnostic (notes and hints folded into the message).
    public func github(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map { diagnostic in
            let command: String
            switch diagnostic.severity {
            case .error: command = "error"
            case .warning: command = "warning"
            case .note: command = "notice"
            }
            var properties: [String] = []
            if let file = diagnostic.file { properties.append("file=" + escapeProperty(VisibleText.line(file))) }
            if let range = diagnostic.range {
                properties.append("line=\(range.start.line)")
                properties.append("col=\(range.start.column)")
                if range.end.line == range.start.line {
                    properties.append("endColumn=\(range.end.column)")
                }
            }
            properties.append("title=" + escapeProperty("\(diagnostic.code) \(diagnostic.code.title)"))
            var message = diagnostic.message
            for note in diagnostic.notes {
                message += "\nnote: " + note.message
                if let range = note.range, note.showsSource {
                    if let file = note.file, file != diagnostic.file {
                        message += " (\(file):\(range.start.line))"
                    } else {
                        message += " (line \(range.start.line))"
                    }
                }
            }
            if let hint = diagnostic.hint { message += "\nhint: " + hint }
            // A CI log shows it: control characters shown, as on a terminal (`VisibleText`).
            return "::\(command) " + properties.joined(separator: ",") + "::" + escapeData(shown(message))
        }.map { $0 + "\n" }.joined()
    }

    private func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    private func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    // MARK: JSON

    /// The diagnostics as a JSON value: a list of objects with stable keys.
    public static func json(_ diagnostics: [Diagnostic]) -> Value {
        .list(diagnostics.map(json))
    }

    /// One diagnostic as a JSON value: `severity`, `code`, `message`, `file`, its place, `hint`, `notes`,
    /// and `fix` (`{ "title", "replacement", "safe" }`, for the diagnostic's range) when it has one.
    public static func json(_ diagnostic: Diagnostic) -> Value {
        var fields: [Value.Field] = [
            .init("severity", .string(diagnostic.severity.rawValue)),
            .init("code", .string(diagnostic.code.rawValue)),
            .init("message", .string(diagnostic.message)),
            .init("file", diagnostic.file.map(Value.string) ?? .null),
        ]
        fields += rangeFields(diagnostic.range)
        fields.append(.init("hint", diagnostic.hint.map(Value.string) ?? .null))
        fields.append(
            .init(
                "notes",
                .list(
                    diagnostic.notes.map { note in
                        var fields: [Value.Field] = [.init("message", .string(note.message))]
                        // Only a note into another file says which: the key is new, and the other notes keep their shape.
                        if let file = note.file, file != diagnostic.file { fields.append(.init("file", .string(file))) }
                        return .object(fields + rangeFields(note.range))
                    })))
        // Only a diagnostic that has a fix says so: the key is new, and the others keep their shape.
        if let fix = diagnostic.fix {
            fields.append(
                .init(
                    "fix",
                    .object([
                        .init("title", .string(fix.title)), .init("replacement", .string(fix.replacement)),
                        .init("safe", .bool(fix.isSafe)),
                    ])))
        }
        return .object(fields)
    }

    private static func rangeFields(_ range: SourceRange?) -> [Value.Field] {
        guard let range else { return [.init("line", .null), .init("column", .null)] }
        return [
            .init("line", .int(range.start.line)),
            .init("column", .int(range.start.column)),
            .init("end_line", .int(range.end.line)),
            .init("end_column", .int(range.end.column)),
        ]
    }

    // MARK: Colors

    private var bold: String { "\u{1B}[1m" }
    private var blue: String { "\u{1B}[1;34m" }
    private var cyan: String { "\u{1B}[1;36m" }
    private func severityColor(_ severity: Severity) -> String {
        switch severity {
        case .error: "\u{1B}[1;31m"
        case .warning: "\u{1B}[1;33m"
        case .note: "\u{1B}[1;36m"
        }
    }

    private func style(_ text: String, _ code: String) -> String {
        colors ? code + text + "\u{1B}[0m" : text
    }
}
