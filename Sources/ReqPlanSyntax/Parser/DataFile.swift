/// A file of rows of input values, one row per iteration of `reqplan load`: CSV or JSON Lines, told apart by
/// the file's name, read through `FileReader` like every file something names (its size limit, what an input may
/// name, UTF-8 with a byte order mark dropped), every value located so that a problem points at its line and
/// column.
///
/// **CSV** (`.csv`), RFC 4180 with a header row:
/// - The first line that is not empty is the header: the names of the columns, which are the names of the
///   plan's inputs. A name may not be empty, nor given twice.
/// - Every other line that is not empty is a row of as many fields as the header has names; a row with more or
///   fewer is an error at that row. An empty line is no row (write `""` for a row of one empty field).
/// - Fields are separated by `,`; rows end with CRLF, LF or a lone CR. A field that starts with `"` is quoted:
///   it holds commas, line breaks (kept as written, CRLF included) and quotes written twice (`""`), and ends at
///   the next lone `"`, which must be followed by `,`, a line break or the end of the file. A quote inside a
///   field that does not start with one is an error (RFC 4180, §2.5), as is a quote left open at the end of the
///   file. Spaces are part of fields, as RFC 4180 says.
/// - Every value is text: the runtime converts it to its input's declared type as it converts `--input
///   NAME=VALUE` (`InputResolver`), so an empty field is the empty text.
///
/// **JSON Lines** (`.jsonl`, `.ndjson`): one JSON object (RFC 8259) per line, its keys input names and its values
/// of their JSON types (`Value`). Empty lines (or lines of spaces) are no rows. A line that is not JSON, or is a
/// JSON value other than an object, is an error at that line; so is a key twice on one line, and a number
/// too large for a double (`1e400`; `1e300` is read). A row need not give every key another row gives: an
/// input a row does not give takes its value from the other sources. Lines end with LF, CRLF or a lone CR (as
/// `SourceFile` counts lines, so that locations match the excerpts).
///
/// Either way a NUL byte is an error where it is, and a file with no rows (empty, or a header alone) is an
/// error. Problems are collected, each located (RP0009, RP0008), up to `maxErrors` (then counted: "and 1234
/// more problems not shown").
///
/// Why not SwiftCSV (0.10.0, in the package mirror): its errors have no location (`CSVParseError.quotation`
/// holds a message only); it accepts a quote left open at the end of the file, and rows with fewer or more
/// fields than the header (padded, or cut), without a word; it loses an empty last field at the end of the
/// file, drops the spaces that start a field, and reads a quote followed by a combining mark as no quote (so
/// refuses a valid field), since it walks `Character`s; and it builds every row as a dictionary or array of
/// `String`s before it hands back anything. `DataFileTests.swiftCSVDoesNotServe`
/// shows each of these but the last. A reader of the bytes, RFC 4180's grammar as it is, is some 150 lines.
///
/// Memory: the text (for excerpts), and one `Cell` per value, in one array for the whole file; rows are
/// ranges of it. Reading is linear in the file's size.
public struct DataFile: Sendable {
    /// The formats a data file may have.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// RFC 4180 CSV with a header row (`.csv`).
        case csv
        /// One JSON object per line (`.jsonl`, `.ndjson`).
        case jsonLines

        /// The format a file's name says, by its extension (in any case), or nil.
        public init?(path: String) {
            let name = path.lowercased()
            if name.hasSuffix(".csv") {
                self = .csv
            } else if name.hasSuffix(".jsonl") || name.hasSuffix(".ndjson") {
                self = .jsonLines
            } else {
                return nil
            }
        }

        /// What the format is called in messages: "CSV", "JSON Lines".
        public var name: String {
            switch self {
            case .csv: "CSV"
            case .jsonLines: "JSON Lines"
            }
        }

        /// What one of the format's named values is: "column" (CSV), "key" (JSON Lines).
        public var fieldName: String {
            switch self {
            case .csv: "column"
            case .jsonLines: "key"
            }
        }
    }

    /// One value of a row, where it is written.
    public struct Cell: Sendable, Hashable {
        /// The value: text in CSV, a JSON value in JSON Lines.
        public var value: Value
        // Stored in 32 bits, after `value` and before `range`: 40 bytes a cell, where an `Int` made 48.
        private var storedColumn: Int32
        /// Where the value is written (a CSV field with its quotes; a JSON value).
        public var range: SourceRange

        /// The column the value is in (an index into `columns`).
        public var column: Int {
            get { Int(storedColumn) }
            set { storedColumn = Int32(clamping: newValue) }
        }

        /// Creates a cell.
        public init(column: Int, value: Value, range: SourceRange) {
            self.value = value
            self.storedColumn = Int32(clamping: column)
            self.range = range
        }
    }

    /// Why a data file cannot be read: located diagnostics (`file` set), and the text they point into, when the
    /// file was read.
    public struct ReadError: Error, Sendable {
        /// What is wrong, at most `maxErrors` of them (the last one counting the rest).
        public var diagnostics: [Diagnostic]
        /// The file's text, for the excerpts.
        public var source: SourceFile?

        /// Creates a failure.
        public init(_ diagnostics: [Diagnostic], source: SourceFile?) {
            self.diagnostics = diagnostics
            self.source = source
        }
    }

    /// The text, for excerpts.
    public let source: SourceFile
    /// The format it was read as.
    public let format: Format
    /// The names of the columns, where each is written: a CSV header's, in order; the keys of JSON Lines, in the
    /// order they first appear (where they first appear).
    public let columns: [Located<String>]
    /// The values of every row, row after row; a row's cells are `cells[rowStarts[i]..<rowStarts[i + 1]]`.
    private let cells: [Cell]
    /// Where each row's cells start in `cells`, and one more: the end of the last row.
    private let rowStarts: [Int]
    /// The line each row starts on.
    private let rowLines: [Int32]

    /// Creates a data file from rows already read: `rows[i]` are the cells of row `i`, which starts on
    /// `lines[i]`.
    public init(source: SourceFile, format: Format, columns: [Located<String>], rows: [[Cell]], lines: [Int]) {
        var cells: [Cell] = []
        var starts = [0]
        for row in rows {
            cells += row
            starts.append(cells.count)
        }
        self.init(
            source: source, format: format, columns: columns, cells: cells, rowStarts: starts,
            rowLines: lines.map { Int32(clamping: $0) })
    }

    init(
        source: SourceFile, format: Format, columns: [Located<String>], cells: [Cell], rowStarts: [Int],
        rowLines: [Int32]
    ) {
        self.source = source
        self.format = format
        self.columns = columns
        self.cells = cells
        self.rowStarts = rowStarts
        self.rowLines = rowLines
    }

    /// How many rows the file has (at least one).
    public var rowCount: Int { rowLines.count }

    /// The line row `index` starts on.
    public func line(ofRow index: Int) -> Int { Int(rowLines[index]) }

    /// The values of row `index`: in CSV one per column, in order; in JSON Lines one per key, as written.
    public func cells(ofRow index: Int) -> ArraySlice<Cell> { cells[rowStarts[index]..<rowStarts[index + 1]] }

    // MARK: Reading

    /// Reads the data file at `path`.
    /// - Parameters:
    ///   - shown: how diagnostics name it (default: `path`).
    ///   - format: the format to read it as; nil: the one its name says (`.csv`, `.jsonl`, `.ndjson`), and
    ///     RP0009 when it says none, before the file is opened.
    ///   - limits: its size limit (`maxFileSize`) and the depth of JSON values (`maxDepth`).
    ///   - origin: who named it (`FileReader`): the user (a command's option), or an input within a boundary.
    ///   - maxErrors: the most problems reported; the others are counted.
    /// - Returns: the rows, or why they cannot be read (RP0001, RP0004, RP0008, RP0009), located.
    public static func read(
        atPath path: String, shownAs shown: String? = nil, format: Format? = nil, limits: ParseLimits,
        origin: FileReader.Origin = .user, maxErrors: Int = 20
    ) -> Result<DataFile, ReadError> {
        let name = shown ?? path
        guard let format = format ?? Format(path: path) else {
            var diagnostic = Diagnostic.error(
                .invalidDataFile, "cannot tell the format of the data file `\(name)` from its name", at: nil,
                hint: "a data file's name ends in `.csv` (CSV with a header row of input names) or in `.jsonl` or "
                    + "`.ndjson` (one JSON object per line)")
            diagnostic.file = name
            return .failure(ReadError([diagnostic], source: nil))
        }
        return source(atPath: path, shownAs: name, limits: limits, origin: origin).flatMap {
            parse($0, format: format, limits: limits, maxErrors: maxErrors)
        }
    }

    /// The text of the data file at `path` (shown as `name`), read through the one file reader, or why it
    /// cannot be read (RP0001, RP0004), located at the file.
    static func source(atPath path: String, shownAs name: String, limits: ParseLimits, origin: FileReader.Origin)
        -> Result<SourceFile, ReadError>
    {
        switch FileReader.text(
            atPath: path, origin: origin, limit: limits.maxFileSize, what: "the data file", shownAs: name)
        {
        case .failure(let failure):
            var diagnostic = Diagnostic.error(
                failure.isTooLarge ? .fileTooLarge : .unreadableFile, failure.text, at: nil,
                hint: failure.isTooLarge ? limits.tooLargeHint(splitting: "the data file") : failure.hint)
            diagnostic.file = name
            return .failure(ReadError([diagnostic], source: nil))
        case .success(let text):
            return .success(SourceFile(path: name, text: text))
        }
    }

    /// Reads text already read as a data file of `format`.
    /// - Returns: the rows, or every problem (up to `maxErrors`), located, with `file` set.
    public static func parse(_ source: SourceFile, format: Format, limits: ParseLimits, maxErrors: Int = 20)
        -> Result<DataFile, ReadError>
    {
        var problems = CappedDiagnostics(limit: maxErrors)
        let read: DataFile?
        switch format {
        case .csv: read = CSVReader.read(source, problems: &problems)
        case .jsonLines: read = JSONLinesReader.read(source, limits: limits, problems: &problems)
        }
        guard let read, problems.isEmpty else { return .failure(ReadError(problems.diagnostics, source: source)) }
        return .success(read)
    }

    // MARK: Shared by the readers

    /// A diagnostic of this file.
    static func problem(
        _ message: String, code: DiagnosticCode = .invalidDataFile, at range: SourceRange?, in source: SourceFile,
        notes: [Diagnostic.Note] = [], hint: String? = nil
    ) -> Diagnostic {
        var diagnostic = Diagnostic.error(code, message, at: range, notes: notes, hint: hint)
        diagnostic.file = source.path
        return diagnostic
    }

    /// RP0009 for a file with no rows.
    static func noRows(in source: SourceFile, format: Format, hasHeader: Bool) -> Diagnostic {
        let what =
            switch format {
            case .csv: hasHeader ? "the data file has no rows: its header is all there is" : "the data file has no rows"
            case .jsonLines: "the data file has no rows"
            }
        let hint =
            switch format {
            case .csv: "a CSV data file has a header row of input names, then one row of values per iteration"
            case .jsonLines: "a JSON Lines data file has one JSON object of input names and values per line"
            }
        return problem(
            what, at: source.text.isEmpty ? nil : SourceRange(at: SourceLocation(line: 1, column: 1)), in: source,
            hint: hint)
    }

    /// How many lines `bytes` has at most (its line breaks, and one), to reserve the rows' storage once rather
    /// than grow it by doubling (which holds the old and the new buffer at once).
    static func lineCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 1
        for byte in bytes where byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { count += 1 }
        return count
    }

    /// The cells to reserve for `rows` rows of `perRow` cells, at most `bound` (what the file's bytes can hold:
    /// a first row of many keys does not make every line as large).
    static func reservation(rows: Int, perRow: Int, bound: Int) -> Int {
        let (product, overflow) = rows.multipliedReportingOverflow(by: perRow)
        return overflow ? bound : min(product, bound)
    }

    /// `text` as a message quotes it: at most 40 characters, then `…`.
    public static func quoted(_ text: String) -> String {
        // At most 41 scalars looked at, however long the text (a field of megabytes).
        let head = text.unicodeScalars.prefix(41)
        guard head.count > 40 else { return "`\(text)`" }
        return "`" + String(String.UnicodeScalarView(head.dropLast())) + "…`"
    }
}
