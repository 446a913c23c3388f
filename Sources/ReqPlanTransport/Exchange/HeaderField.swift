/// One header.
public struct HeaderField: Sendable, Hashable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

extension String {
    /// Whether two header names are the same, ignoring ASCII case (no allocation).
    package func equalsIgnoringCase(_ other: String) -> Bool {
        utf8.elementsEqual(other.utf8) { a, b in
            (a >= 65 && a <= 90 ? a | 0x20 : a) == (b >= 65 && b <= 90 ? b | 0x20 : b)
        }
    }
}
