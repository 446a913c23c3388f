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
    /// Whether two header names are the same, ignoring ASCII case (no allocation). Names of other lengths are
    /// told apart by their lengths alone (a response's headers are looked through for one name again and again).
    package func equalsIgnoringCase(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in
                for index in 0..<mine.count where Self.lowered(mine[index]) != Self.lowered(theirs[index]) {
                    return false
                }
                return true
            }
        }
        return (compared ?? nil) ?? utf8.elementsEqual(other.utf8) { Self.lowered($0) == Self.lowered($1) }
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte | 0x20 : byte
    }
}
