#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address in network byte order, parsed by `inet_pton`.
enum IPAddress: Equatable {
    case v4([UInt8])
    case v6([UInt8])

    /// Nil unless `text` is a dotted IPv4 address or an IPv6 address (no brackets).
    init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self = .v4(withUnsafeBytes(of: &v4) { Array($0) })
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self = .v6(withUnsafeBytes(of: &v6) { Array($0) })
            return
        }
        return nil
    }

    var bytes: [UInt8] {
        switch self {
        case .v4(let bytes), .v6(let bytes): bytes
        }
    }

    /// Whether this address is in `network`/`bits` (same family; `bits` nil: the whole address).
    func isIn(_ network: IPAddress, bits: Int?) -> Bool {
        let mine = bytes
        let theirs = network.bytes
        guard mine.count == theirs.count else { return false }
        let bits = bits ?? mine.count * 8
        guard bits >= 0, bits <= mine.count * 8 else { return false }
        let whole = bits / 8
        guard mine[..<whole] == theirs[..<whole] else { return false }
        let rest = bits % 8
        guard rest > 0 else { return true }
        let mask = UInt8(0xFF) << (8 - rest)
        return mine[whole] & mask == theirs[whole] & mask
    }
}
