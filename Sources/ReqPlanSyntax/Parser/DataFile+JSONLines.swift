/// The JSON Lines reader of `DataFile`: each line that is not blank is one JSON object, read by reqplan's own
/// strict JSON parser (`JSONParser`, as response bodies are: key order and integer digits kept, nesting bounded),
/// which gives where each top-level key and value are, so a value of the wrong type is pointed at.
enum JSONLinesReader {
    /// Reads `source` as JSON Lines, adding every problem to `problems`.
    /// - Returns: the file, or nil when it has problems (in `problems`).
    static func read(_ source: SourceFile, limits: ParseLimits, problems: inout CappedDiagnostics) -> DataFile? {
        let contiguous = source.text.utf8.withContiguousStorageIfAvailable { bytes in
            read(bytes, source: source, limits: limits, problems: &problems)
        }
        if let contiguous { return contiguous }
        let bytes = Array(source.text.utf8)
        return bytes.withUnsafeBufferPointer { read($0, source: source, limits: limits, problems: &problems) }
    }

    private static func read(
        _ bytes: UnsafeBufferPointer<UInt8>, source: SourceFile, limits: ParseLimits,
        problems: inout CappedDiagnostics
    ) -> DataFile? {
        let lines = readLines(bytes, source: source, limits: limits, wholeValues: false, problems: &problems)
        if lines.rowLines.isEmpty, problems.isEmpty {
            problems.append(DataFile.noRows(in: source, format: .jsonLines, hasHeader: false))
        }
        guard problems.isEmpty else { return nil }
        return DataFile(
            source: source, format: .jsonLines, columns: lines.columns, cells: lines.cells,
            rowStarts: lines.rowStarts, rowLines: lines.rowLines)
    }

    /// Reads `source` as the items of a `for_each`: each line that is not blank is one JSON value of any type, and
    /// no line at all is no item.
    /// - Returns: the items, or nil when the file has problems (in `problems`).
    static func readItems(_ source: SourceFile, limits: ParseLimits, problems: inout CappedDiagnostics)
        -> DataFile.Items?
    {
        func items(_ bytes: UnsafeBufferPointer<UInt8>, problems: inout CappedDiagnostics) -> DataFile.Items? {
            let lines = readLines(bytes, source: source, limits: limits, wholeValues: true, problems: &problems)
            guard problems.isEmpty else { return nil }
            let values = lines.values ?? []
            return DataFile.Items(
                values: values, fields: lines.allObjects && !values.isEmpty ? lines.columns.map(\.value) : nil,
                format: .jsonLines, path: source.path)
        }
        let contiguous = source.text.utf8.withContiguousStorageIfAvailable { items($0, problems: &problems) }
        if let contiguous { return contiguous }
        let bytes = Array(source.text.utf8)
        return bytes.withUnsafeBufferPointer { items($0, problems: &problems) }
    }

    /// Reads every line of `bytes`: into cells (`wholeValues` false: each line an object of input values), or
    /// into whole values (true: each line any JSON value, the items of a `for_each`).
    private static func readLines(
        _ bytes: UnsafeBufferPointer<UInt8>, source: SourceFile, limits: ParseLimits, wholeValues: Bool,
        problems: inout CappedDiagnostics
    ) -> Lines {
        var lines = Lines(source: source, limits: limits)
        if wholeValues { lines.values = [] }
        // At most a row a line; the cells are reserved after the first row, as many a line as it has.
        let lineCount = DataFile.lineCount(bytes)
        lines.rowStarts.reserveCapacity(lineCount + 1)
        lines.rowLines.reserveCapacity(lineCount)
        var index = 0
        var line = 1
        while index < bytes.count {
            var end = index
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n"), bytes[end] != UInt8(ascii: "\r") { end += 1 }
            lines.read(UnsafeBufferPointer(rebasing: bytes[index..<end]), line: line, problems: &problems)
            if lines.rowLines.count == 1, lines.cells.capacity < lines.cells.count * 2 {
                // A member takes five bytes at least (`"":0,`).
                lines.cells.reserveCapacity(
                    DataFile.reservation(rows: lineCount, perRow: lines.cells.count, bound: bytes.count / 5 + 1))
            }
            line += 1
            guard end < bytes.count else { break }
            let isCRLF =
                bytes[end] == UInt8(ascii: "\r") && end + 1 < bytes.count
                && bytes[end + 1] == UInt8(ascii: "\n")
            index = end + (isCRLF ? 2 : 1)
        }
        return lines
    }

    /// The rows read so far.
    private struct Lines {
        let source: SourceFile
        let limits: ParseLimits
        var columns: [Located<String>] = []
        var columnIndex: [String: Int] = [:]
        var cells: [DataFile.Cell] = []
        var rowStarts = [0]
        var rowLines: [Int32] = []
        /// Each row as a whole value, when lines are read as a `for_each`'s items (any JSON value a line);
        /// nil when they are read into `cells`.
        var values: [Value]?
        /// Whether every row read as a whole value is an object.
        var allObjects = true

        init(source: SourceFile, limits: ParseLimits) {
            self.source = source
            self.limits = limits
        }

        /// Reads one line (without its line break), the `line`th of the file.
        mutating func read(_ bytes: UnsafeBufferPointer<UInt8>, line: Int, problems: inout CappedDiagnostics) {
            guard let first = bytes.firstIndex(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else {
                return
            }
            if problems.isFull {
                // Only counted from here on: the line is still read, to count its problem.
                var counted = CappedDiagnostics(limit: 1)
                read(bytes, first: first, line: line, problems: &counted)
                problems.countDropped(counted.kept.count + counted.dropped)
                return
            }
            read(bytes, first: first, line: line, problems: &problems)
        }

        private mutating func read(
            _ bytes: UnsafeBufferPointer<UInt8>, first: Int, line: Int, problems: inout CappedDiagnostics
        ) {
            var places = Columns(bytes: bytes, line: line)
            if let nul = bytes.firstIndex(of: 0) {
                problems.append(
                    problem(
                        "a NUL byte (U+0000) in the data file", at: SourceRange(at: places.location(of: nul)),
                        hint: "a data file is text; in a JSON string, write NUL as `\\u0000`"))
                return
            }
            var parser = JSONParser(bytes: Array(bytes))
            let members: [JSONParser.Member]
            do throws(JSONParseError) {
                switch try parser.parseDocumentMembers() {
                case .members(let read): members = read
                case .value(let value):
                    if values != nil {
                        let range = SourceRange(
                            start: places.location(of: first), end: places.location(of: bytes.count))
                        if let problem = valueProblem(value, at: range, topLevel: true) {
                            problems.append(problem)
                            return
                        }
                        values?.append(value)
                        allObjects = false
                        rowLines.append(Int32(clamping: line))
                        return
                    }
                    problems.append(
                        problem(
                            "this line is \(value.type.withArticle), not a JSON object",
                            at: SourceRange(at: places.location(of: first)),
                            hint: "each line of a JSON Lines data file is one object of input names and values: "
                                + "`{\"user\": \"ada\", \"id\": 3}`"))
                    return
                }
            } catch {
                problems.append(
                    problem(
                        "this line is not JSON: \(error.message)",
                        at: SourceRange(at: places.location(of: min(error.offset, bytes.count))),
                        hint: "each line of a JSON Lines data file is one JSON object, on one line"))
                return
            }
            // A line of a few keys looks for a repeated one among those before it; a line of many, in a dictionary.
            var seen: [String: Int] = [:]
            let start = cells.count
            var lineHasProblem = false
            for (position, member) in members.enumerated() {
                let key = SourceRange(
                    start: places.location(of: member.keyStart), end: places.location(of: member.keyEnd))
                let value = SourceRange(
                    start: places.location(of: member.valueStart), end: places.location(of: member.valueEnd))
                let earlier: Int?
                if members.count <= 16 {
                    earlier = members[..<position].firstIndex { $0.key == member.key }
                } else {
                    earlier = seen[member.key]
                    if earlier == nil { seen[member.key] = position }
                }
                if let earlier {
                    let first = members[earlier]
                    var again = places
                    let firstRange = SourceRange(
                        start: again.location(of: first.keyStart), end: again.location(of: first.keyEnd))
                    problems.append(
                        problem(
                            "key \(DataFile.quoted(member.key)) is given twice on this line", at: key,
                            notes: [.init("first given here", at: firstRange)], hint: "give each input once per line"))
                    lineHasProblem = true
                    continue
                }
                if let problem = valueProblem(member.value, at: value) {
                    problems.append(problem)
                    lineHasProblem = true
                    continue
                }
                let column: Int
                if let known = columnIndex[member.key] {
                    column = known
                } else {
                    column = columns.count
                    columnIndex[member.key] = column
                    columns.append(Located(member.key, at: key))
                }
                if values == nil {
                    cells.append(DataFile.Cell(column: column, value: member.value, range: value))
                }
            }
            guard !lineHasProblem else {
                cells.removeSubrange(start...)
                return
            }
            values?.append(.object(members.map { Value.Field($0.key, $0.value) }))
            rowStarts.append(cells.count)
            rowLines.append(Int32(clamping: line))
        }

        /// RP0009 for a number JSON reads as infinite (`1e400`), RP0008 for a value nested past the limit.
        /// - Parameter topLevel: whether `value` is a whole line's (a `for_each` item), not a member of its object.
        private func valueProblem(_ value: Value, at range: SourceRange, topLevel: Bool = false) -> Diagnostic? {
            // Most values are scalars: checked without walking them.
            switch value {
            case .double(let number) where number.isFinite: return nil
            case .double, .list, .object: break
            default: return nil
            }
            if let pointer = value.firstNonFinite?.pointer {
                return problem(
                    "the number \(pointer.isEmpty ? "" : "at `\(pointer)` ")is too large for a double", at: range,
                    hint: "numbers are read as 64-bit doubles (at most about 1.8e308), or as integers of any size")
            }
            // The top-level object is the first level: a member's value starts at the second.
            if let level = Self.levelPast(topLevel ? limits.maxDepth : limits.maxDepth - 1, in: value) {
                return problem(
                    "the value nests lists and objects more than \(limits.maxDepth) levels deep", code: .nestedTooDeep,
                    at: range, hint: "level \(level + 1) is past the limit")
            }
            return nil
        }

        /// The first level of `value` deeper than `limit` (a list or object is one level, its items the next),
        /// or nil. No recursion.
        private static func levelPast(_ limit: Int, in value: Value) -> Int? {
            var pending: [(Value, Int)] = [(value, 1)]
            while let (value, level) = pending.popLast() {
                switch value {
                case .list(let items):
                    if level > limit { return level }
                    for item in items { pending.append((item, level + 1)) }
                case .object(let fields):
                    if level > limit { return level }
                    for field in fields { pending.append((field.value, level + 1)) }
                default: break
                }
            }
            return nil
        }

        private func problem(
            _ message: String, code: DiagnosticCode = .invalidDataFile, at range: SourceRange,
            notes: [Diagnostic.Note] = [], hint: String? = nil
        ) -> Diagnostic {
            DataFile.problem(message, code: code, at: range, in: source, notes: notes, hint: hint)
        }
    }

    /// The columns of byte offsets of one line, asked for in increasing order (as a line's members are), so a line
    /// of many members is walked once; an offset before the last one asked for is counted from the start again.
    private struct Columns {
        let bytes: UnsafeBufferPointer<UInt8>
        let line: Int
        private var offset = 0
        private var column = 1

        init(bytes: UnsafeBufferPointer<UInt8>, line: Int) {
            self.bytes = bytes
            self.line = line
        }

        /// Where the byte at `target` (at most the line's length) is.
        mutating func location(of target: Int) -> SourceLocation {
            if target < offset {
                offset = 0
                column = 1
            }
            while offset < target, offset < bytes.count {
                // Every byte that does not continue a scalar starts a column.
                if bytes[offset] & 0xC0 != 0x80 { column += 1 }
                offset += 1
            }
            return SourceLocation(line: line, column: column)
        }
    }
}
