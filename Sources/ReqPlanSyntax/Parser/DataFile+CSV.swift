/// The CSV reader of `DataFile`: RFC 4180 with a header row, over the UTF-8 bytes of the text. Every byte it
/// looks for (`,`, `"`, CR, LF, NUL) is ASCII, which no byte of a longer UTF-8 sequence is, so fields are cut
/// at those bytes and columns counted in Unicode scalars as `SourceLocation` counts them. One pass, no
/// recursion, no backtracking.
enum CSVReader {
    /// Reads `source` as CSV, adding every problem to `problems`.
    /// - Returns: the file, or nil when it has problems (in `problems`).
    static func read(_ source: SourceFile, problems: inout CappedDiagnostics) -> DataFile? {
        scan(source) { scanner in scanner.read(problems: &problems) }
    }

    /// Reads `source` (not empty) as the items of a `for_each`: each row an object of the header's names, built as
    /// the row is read (no cells kept); a header with no rows is no item.
    /// - Returns: the items, or nil when the file has problems (in `problems`).
    static func readItems(_ source: SourceFile, problems: inout CappedDiagnostics) -> DataFile.Items? {
        scan(source) { scanner -> DataFile.Items? in
            var objects: [Value] = []
            guard
                let header = scanner.readRows(
                    allowsNoRows: true, problems: &problems,
                    // At most a row a line: reserved once, rather than grown by doubling.
                    header: { _, rest in objects.reserveCapacity(DataFile.lineCount(rest)) },
                    row: { names, fields, _ in
                        objects.append(.object(zip(names, fields).map { Value.Field($0.value, .string($1.value)) }))
                    }), problems.isEmpty
            else { return nil }
            return DataFile.Items(values: objects, fields: header.map(\.value), format: .csv, path: source.path)
        }
    }

    /// Runs `body` with a scanner over the UTF-8 bytes of `source`.
    private static func scan<T>(_ source: SourceFile, _ body: (inout Scanner) -> T) -> T {
        let contiguous = source.text.utf8.withContiguousStorageIfAvailable { bytes in
            var scanner = Scanner(bytes: bytes, source: source)
            return body(&scanner)
        }
        if let contiguous { return contiguous }
        let bytes = Array(source.text.utf8)
        return bytes.withUnsafeBufferPointer { bytes in
            var scanner = Scanner(bytes: bytes, source: source)
            return body(&scanner)
        }
    }

    /// One field as read: its text and where it is written (with its quotes).
    struct Field {
        var value: String
        var range: SourceRange
    }

    /// Reads the records of the text one after the other.
    struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        let source: SourceFile
        /// The next byte to read, always at the start of a scalar.
        var index = 0
        /// Where `index` is.
        var line = 1
        var column = 1

        static let comma = UInt8(ascii: ",")
        static let quote = UInt8(ascii: "\"")
        static let carriageReturn = UInt8(ascii: "\r")
        static let lineFeed = UInt8(ascii: "\n")

        init(bytes: UnsafeBufferPointer<UInt8>, source: SourceFile) {
            self.bytes = bytes
            self.source = source
        }

        var location: SourceLocation { SourceLocation(line: line, column: column) }

        var atEnd: Bool { index >= bytes.count }

        static func isLineBreak(_ byte: UInt8) -> Bool { byte == lineFeed || byte == carriageReturn }

        /// Moves past the scalar at `index` (not a line break).
        mutating func step() {
            let lead = bytes[index]
            index += lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            column += 1
        }

        /// Moves past the line break at `index`: CRLF, LF or a lone CR.
        mutating func stepLineBreak() {
            let isCRLF =
                bytes[index] == Self.carriageReturn && index + 1 < bytes.count
                && bytes[index + 1] == Self.lineFeed
            index += isCRLF ? 2 : 1
            line += 1
            column = 1
        }

        /// The text of `bytes[range]` (whole scalars of valid UTF-8: the text was checked when it was read).
        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }

        func problem(_ message: String, at range: SourceRange, notes: [Diagnostic.Note] = [], hint: String? = nil)
            -> Diagnostic
        {
            DataFile.problem(message, at: range, in: source, notes: notes, hint: hint)
        }

        // MARK: The file

        mutating func read(problems: inout CappedDiagnostics) -> DataFile? {
            var cells: [DataFile.Cell] = []
            var rowStarts = [0]
            var rowLines: [Int32] = []
            let header = readRows(
                allowsNoRows: false, problems: &problems,
                header: { names, rest in
                    // At most a row a line, each a field a column (and a field takes a byte, its `,` or line break).
                    let lines = DataFile.lineCount(rest)
                    cells.reserveCapacity(DataFile.reservation(rows: lines, perRow: names.count, bound: rest.count + 1))
                    rowStarts.reserveCapacity(lines + 1)
                    rowLines.reserveCapacity(lines)
                },
                row: { _, fields, line in
                    for (column, field) in fields.enumerated() {
                        cells.append(DataFile.Cell(column: column, value: .string(field.value), range: field.range))
                    }
                    rowStarts.append(cells.count)
                    rowLines.append(Int32(clamping: line))
                })
            guard let header, problems.isEmpty else { return nil }
            return DataFile(
                source: source, format: .csv, columns: header, cells: cells, rowStarts: rowStarts, rowLines: rowLines)
        }

        /// Reads the header, then hands each row of as many fields as the header has names to `row` (with the
        /// header's names and the line it starts on); a row of more or fewer fields is a problem.
        /// - Parameters:
        ///   - allowsNoRows: whether a header with no rows is read (a `for_each` over no items) rather than refused
        ///     (the inputs of no iteration).
        ///   - header: called once the header is read, with its names and the bytes after it.
        /// - Returns: the header, or nil when the file has none or the rest of it cannot be read.
        mutating func readRows(
            allowsNoRows: Bool, problems: inout CappedDiagnostics,
            header headerRead: ([Located<String>], UnsafeBufferPointer<UInt8>) -> Void = { _, _ in },
            row: ([Located<String>], [Field], Int) -> Void
        ) -> [Located<String>]? {
            var header: [Located<String>]?
            var records = 0
            var fields: [Field] = []
            while !atEnd {
                if Self.isLineBreak(bytes[index]) {
                    // An empty line is no record.
                    stepLineBreak()
                    continue
                }
                let rowLine = line
                fields.removeAll(keepingCapacity: true)
                // A quote left open, or text after a closing one: what follows cannot be told apart.
                guard readRecord(into: &fields, problems: &problems) else { return nil }
                guard let names = header else {
                    let names = readHeader(fields, problems: &problems)
                    header = names
                    headerRead(names, UnsafeBufferPointer(rebasing: bytes[index...]))
                    continue
                }
                records += 1
                guard fields.count == names.count else {
                    if problems.isFull {
                        problems.countDropped()
                    } else {
                        problems.append(ragged(fields, header: names))
                    }
                    continue
                }
                row(names, fields, rowLine)
            }
            if records == 0, !allowsNoRows || header == nil {
                problems.append(DataFile.noRows(in: source, format: .csv, hasHeader: header != nil))
            }
            return header
        }

        /// The header's names; an empty one, or one given twice, is a problem.
        func readHeader(_ fields: [Field], problems: inout CappedDiagnostics) -> [Located<String>] {
            var seen: [String: SourceRange] = [:]
            for (index, field) in fields.enumerated() {
                if field.value.isEmpty {
                    problems.append(
                        problem(
                            "column \(index + 1) of the header has no name", at: field.range,
                            hint: "the header names each column after the input it gives a value"))
                } else if let first = seen[field.value] {
                    problems.append(
                        problem(
                            "column \(DataFile.quoted(field.value)) is named twice in the header", at: field.range,
                            notes: [.init("first named here", at: first)],
                            hint: "each column gives one input; remove or rename one of them"))
                } else {
                    seen[field.value] = field.range
                }
            }
            return fields.map { Located($0.value, at: $0.range) }
        }

        /// The problem of a row with more or fewer fields than the header has names.
        func ragged(_ fields: [Field], header: [Located<String>]) -> Diagnostic {
            let counts = "\(fields.count) \(fields.count == 1 ? "field" : "fields")"
            let columns = "\(header.count) \(header.count == 1 ? "column" : "columns")"
            if fields.count > header.count {
                return problem(
                    "this row has \(counts), but the header names \(columns)", at: fields[header.count].range,
                    notes: [.init("the header is here", at: header[0].range)],
                    hint: "a field holding a comma is quoted: `\"a, b\"`")
            }
            let missing = header[fields.count...].prefix(3).map { DataFile.quoted($0.value) }.joined(separator: ", ")
            let end = fields.last.map(\.range.end) ?? location
            return problem(
                "this row ends after \(counts), but the header names \(columns) (no \(missing)"
                    + (header.count - fields.count > 3 ? ", …)" : ")"),
                at: SourceRange(at: SourceLocation(line: end.line, column: max(1, end.column - 1))),
                notes: [.init("the header is here", at: header[0].range)],
                hint: "give every column a field, an empty one as nothing between two commas")
        }

        // MARK: Records and fields

        /// Reads the record at `index` (not a line break) and its line break.
        /// - Returns: false when the rest of the file cannot be read (the problem is in `problems`).
        mutating func readRecord(into fields: inout [Field], problems: inout CappedDiagnostics) -> Bool {
            while true {
                let start = location
                let value: String
                if !atEnd, bytes[index] == Self.quote {
                    guard let quoted = readQuoted(problems: &problems) else { return false }
                    value = quoted
                } else {
                    value = readUnquoted(problems: &problems)
                }
                fields.append(Field(value: value, range: SourceRange(start: start, end: location)))
                if atEnd { return true }
                if bytes[index] == Self.comma {
                    step()
                    continue
                }
                stepLineBreak()
                return true
            }
        }

        /// A field that does not start with a quote: up to the next `,`, line break or the end.
        mutating func readUnquoted(problems: inout CappedDiagnostics) -> String {
            let start = index
            var quoteReported = false
            while !atEnd {
                let byte = bytes[index]
                if byte == Self.comma || Self.isLineBreak(byte) { break }
                if byte == Self.quote, !quoteReported {
                    quoteReported = true
                    problems.append(
                        problem(
                            "a quote inside a field that does not start with one", at: SourceRange(at: location),
                            hint: "quote the whole field and write each quote in it twice: `\"5'11\"\"\"`"))
                }
                if byte == 0 { problems.append(nul()) }
                step()
            }
            return text(start..<index)
        }

        /// A quoted field, at its opening quote: up to the lone quote that closes it, `""` read as one quote.
        /// - Returns: its text, or nil when it is never closed or text follows the closing quote.
        mutating func readQuoted(problems: inout CappedDiagnostics) -> String? {
            let opening = location
            step()
            var segment = index
            // Only a field with `""` in it is built piece by piece, appended to in place.
            var built = ""
            while !atEnd {
                let byte = bytes[index]
                if byte == Self.quote {
                    if index + 1 < bytes.count, bytes[index + 1] == Self.quote {
                        built += text(segment..<index + 1)
                        step()
                        step()
                        segment = index
                        continue
                    }
                    let value = built.isEmpty ? text(segment..<index) : built + text(segment..<index)
                    step()
                    if !atEnd, bytes[index] != Self.comma, !Self.isLineBreak(bytes[index]) {
                        problems.append(
                            problem(
                                "text after the closing quote of a quoted field", at: SourceRange(at: location),
                                notes: [.init("the field is quoted from here", at: SourceRange(at: opening))],
                                hint: "a quote inside a quoted field is written twice (`\"\"`)"))
                        return nil
                    }
                    return value
                }
                if Self.isLineBreak(byte) {
                    // Kept in the value as written.
                    stepLineBreak()
                    continue
                }
                if byte == 0 { problems.append(nul()) }
                step()
            }
            problems.append(
                problem(
                    "this quote is never closed: the field runs to the end of the file", at: SourceRange(at: opening),
                    hint: "close the field with `\"`, and write each quote inside it twice (`\"\"`)"))
            return nil
        }

        func nul() -> Diagnostic {
            problem(
                "a NUL byte (U+0000) in the data file", at: SourceRange(at: location),
                hint: "a data file is text; NUL is no part of a value")
        }
    }
}
