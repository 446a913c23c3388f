extension DataFile {
    /// The rows of a data file read as the items of a `for_each` (`for_each: { file: rows.csv }`), in the file's
    /// order.
    ///
    /// - **CSV**: each row is an object, the header's names its keys in order, every value text. A header with no
    ///   rows is no item; the item still has the header's fields.
    /// - **JSON Lines**: each line that is not blank is one JSON value of any type (an object, a string, a
    ///   number…), kept as it is. When every line is an object, the item's fields are the keys some line gives
    ///   (a line that leaves one out reads null there); otherwise the item's type is not known.
    /// - A file with nothing in it but line breaks is no item, in either format.
    ///
    /// The reading rules are those of `DataFile` (RFC 4180 as it is, strict JSON, NUL bytes refused, every problem
    /// located), but for the two above: no rows is no error, and a JSON Lines line need not be an object.
    public struct Items: Sendable, Hashable {
        /// The items, in the file's order.
        public var values: [Value]
        /// The fields every item is an object of, in order (a CSV header's names; the keys of JSON Lines whose
        /// lines are all objects, in the order they first appear); nil when the items are not all objects or
        /// there are none and no header names them.
        public var fields: [String]?
        /// The format the file was read as.
        public var format: Format
        /// The file, as diagnostics name it.
        public var path: String

        /// Creates the items of a data file.
        public init(values: [Value], fields: [String]?, format: Format, path: String) {
            self.values = values
            self.fields = fields
            self.format = format
            self.path = path
        }
    }

    /// Reads the data file at `path` as the items of a `for_each`.
    /// - Parameters:
    ///   - shown: how diagnostics name it (default: `path`).
    ///   - format: the format to read it as (the plan's `format:`, or what the file's name says).
    ///   - limits: its size limit (`maxFileSize`) and the depth of JSON values (`maxDepth`).
    ///   - origin: who named it (`FileReader`): a plan names it, so an input within a boundary.
    ///   - maxErrors: the most problems reported; the others are counted.
    /// - Returns: the items, or why they cannot be read (RP0001, RP0004, RP0008, RP0009), located in the file.
    public static func readItems(
        atPath path: String, shownAs shown: String? = nil, format: Format, limits: ParseLimits,
        origin: FileReader.Origin, maxErrors: Int = 20
    ) -> Result<Items, ReadError> {
        source(atPath: path, shownAs: shown ?? path, limits: limits, origin: origin).flatMap {
            parseItems($0, format: format, limits: limits, maxErrors: maxErrors)
        }
    }

    /// Reads text already read as the items of a `for_each`, in `format`.
    /// - Returns: the items, or every problem (up to `maxErrors`), located, with `file` set.
    public static func parseItems(_ source: SourceFile, format: Format, limits: ParseLimits, maxErrors: Int = 20)
        -> Result<Items, ReadError>
    {
        if source.text.utf8.allSatisfy({ $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
            return .success(Items(values: [], fields: nil, format: format, path: source.path))
        }
        var problems = CappedDiagnostics(limit: maxErrors)
        switch format {
        case .csv:
            guard let items = CSVReader.readItems(source, problems: &problems), problems.isEmpty else {
                return .failure(ReadError(problems.diagnostics, source: source))
            }
            return .success(items)
        case .jsonLines:
            guard let items = JSONLinesReader.readItems(source, limits: limits, problems: &problems),
                problems.isEmpty
            else {
                return .failure(ReadError(problems.diagnostics, source: source))
            }
            return .success(items)
        }
    }
}
