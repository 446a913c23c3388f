#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The parts of an absolute `http://` or `https://` URL that cookies and proxies look at: the
/// scheme, the host (lower case, an IPv6 address without its brackets), the port and the path
/// (without query or fragment; `/` when empty). Works on the UTF-8 bytes.
struct URLParts: Equatable {
    var isHTTPS: Bool
    var host: String
    /// The port, or the scheme's (80, 443).
    var port: Int
    var path: String

    /// Nil unless `url` is `http://` or `https://` (any case) with a host.
    init?(_ url: String) {
        let bytes = url.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) else {
            return nil
        }
        let scheme = String(Substring(bytes[..<colon])).lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        isHTTPS = scheme == "https"
        let rest = bytes[bytes.index(colon, offsetBy: 3)...]
        guard let authority = URLAuthority(rest, defaultPort: isHTTPS ? 443 : 80) else { return nil }
        let authorityEnd = authority.end
        port = authority.port
        host = String(Substring(authority.host)).lowercased()
        let pathEnd =
            rest[authorityEnd...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? rest.endIndex
        let path = rest[authorityEnd..<pathEnd]
        self.path = path.isEmpty ? "/" : String(Substring(path))
    }

    /// `host:port` (an IPv6 address in brackets), as `CONNECT` names it.
    var hostPort: String {
        URLAuthority.hostPort(host, port)
    }

    /// Whether the host is an IPv4 or IPv6 address rather than a name.
    var hostIsAddress: Bool { IPAddress(host) != nil }

    /// Whether the host is this machine: `localhost`, a name under `.localhost`, 127.0.0.0/8 or
    /// `::1` (RFC 6761; what RFC 6265bis and browsers call a potentially trustworthy origin).
    var isLoopback: Bool {
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        switch IPAddress(host) {
        case .v4(let bytes)?: return bytes[0] == 127
        case .v6(let bytes)?: return bytes == [UInt8](repeating: 0, count: 15) + [1]
        case nil: return false
        }
    }
}

/// The authority part of an `http(s)://` URL, split on UTF-8 bytes: credentials (`user:pw@`)
/// left out, the host (an IPv6 literal without its brackets) and the port (the default when none).
struct URLAuthority {
    /// `host:port`, an IPv6 address in brackets (`[::1]:443`), as `CONNECT` and messages name it.
    static func hostPort(_ host: String, _ port: Int) -> String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    typealias Bytes = Substring.UTF8View
    /// `host[:port]` as written, without credentials (a `Host` header).
    var hostAndPort: Bytes
    var host: Bytes
    var port: Int
    /// Where the authority ends: the path, query or fragment starts there.
    var end: String.Index

    /// Nil unless `rest` (what follows `scheme://`) starts with a host, and a port in 1...65535
    /// when one is written.
    init?(_ rest: Bytes, defaultPort: Int) {
        end =
            rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? rest.endIndex
        var authority = rest[..<end]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[authority.index(after: at)...] }
        hostAndPort = authority
        host = authority
        var portBytes = authority[authority.endIndex...]
        if authority.first == UInt8(ascii: "[") {
            // An IPv6 literal: [::1]:8080
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if let colon = after.first {
                guard colon == UInt8(ascii: ":") else { return nil }
                portBytes = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
            host = authority[..<colon]
            portBytes = authority[authority.index(after: colon)...]
        }
        port = defaultPort
        if !portBytes.isEmpty {
            guard portBytes.count <= 5, portBytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return nil }
            port = portBytes.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        guard !host.isEmpty, (1...65535).contains(port) else { return nil }
    }
}

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
