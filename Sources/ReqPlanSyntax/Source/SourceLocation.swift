/// A position in a source file: 1-based line and 1-based column.
///
/// Columns count Unicode scalars, as libyaml does, so a location taken from a
/// YAML mark and one computed from the text agree.
public struct SourceLocation: Hashable, Comparable, Sendable, CustomStringConvertible {
    // Stored as 32-bit numbers: every AST node carries ranges, and plans can be large.
    private var storedLine: Int32
    private var storedColumn: Int32

    /// The line, starting at 1.
    public var line: Int {
        get { Int(storedLine) }
        set { storedLine = Int32(clamping: newValue) }
    }
    /// The column, starting at 1, in Unicode scalars.
    public var column: Int {
        get { Int(storedColumn) }
        set { storedColumn = Int32(clamping: newValue) }
    }

    /// Creates a location from a 1-based line and column.
    public init(line: Int, column: Int) {
        self.storedLine = Int32(clamping: line)
        self.storedColumn = Int32(clamping: column)
    }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }

    /// The location `count` columns to the right on the same line.
    public func advanced(by count: Int) -> SourceLocation {
        SourceLocation(line: line, column: column + count)
    }

    public var description: String { "\(line):\(column)" }
}

/// A half-open range of source positions; `end` is the position just after the last character.
public struct SourceRange: Hashable, Sendable, CustomStringConvertible {
    /// The first position in the range.
    public var start: SourceLocation
    /// The position just past the range.
    public var end: SourceLocation

    /// Creates a range from its bounds.
    public init(start: SourceLocation, end: SourceLocation) {
        self.start = start
        self.end = max(start, end)
    }

    /// A range of `length` columns starting at `start` (at least one column).
    public init(start: SourceLocation, length: Int) {
        self.start = start
        self.end = start.advanced(by: max(1, length))
    }

    /// A one-column range at `location`.
    public init(at location: SourceLocation) {
        self.init(start: location, length: 1)
    }

    public var description: String { "\(start)-\(end)" }
}

/// A value together with the source range it was read from.
public struct Located<Value> {
    /// The value.
    public var value: Value
    /// Where the value was written.
    public var range: SourceRange

    /// Wraps a value and its range.
    public init(_ value: Value, at range: SourceRange) {
        self.value = value
        self.range = range
    }
}

extension Located: Sendable where Value: Sendable {}
extension Located: Equatable where Value: Equatable {}
extension Located: Hashable where Value: Hashable {}
