import Foundation

/// An absolute `http://` or `https://` URL, parsed once, where a request is built, and read by
/// everything after it: the connection (host, port, TLS), the request line (`target`), the `Host`
/// header, the cookie jar (host, path, secure origin), the proxy choice (host, loopback), redirects
/// (`resolving(_:)`), and messages (`hostPort`, `authority`).
///
/// Parsed on the UTF-8 bytes, as RFC 3986 splits a URL: `scheme://[userinfo@]host[:port][/path][?query][#fragment]`.
/// The user information is taken out (`credentials`: sent as basic credentials, never as part of
/// the URL); the fragment is kept for what outputs show and never sent.
public struct RequestURL: Sendable, Hashable, CustomStringConvertible {
    /// Why a text is not an absolute http(s) URL reqplan can send a request to.
    ///
    /// A struct over a private enum, as `TransportError.Kind` is: a problem found later is a new static member,
    /// not a new case that breaks a caller's exhaustive `switch` (callers switch with a `default`).
    public struct Problem: Error, Sendable, Hashable {
        private enum Base: Sendable, Hashable {
            case notHTTP, noHost, badAuthority, invalidCharacter
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The scheme is not `http` or `https` (or there is no `scheme://`).
        public static let notHTTP = Problem(.notHTTP)
        /// There is no host.
        public static let noHost = Problem(.noHost)
        /// The port is not a number from 1 to 65535, or an IPv6 literal is not closed.
        public static let badAuthority = Problem(.badAuthority)
        /// A space or a control character: it cannot go on a request line.
        public static let invalidCharacter = Problem(.invalidCharacter)
    }

    /// The user and password of the URL's user information, percent-decoded (the password empty when
    /// the URL gives none).
    public struct Credentials: Sendable, Hashable {
        public var user: String
        public var password: String
    }

    /// Whether the scheme is `https`.
    public let isHTTPS: Bool
    /// The host, in lower case; an IPv6 address without its brackets.
    public let host: String
    /// The port written, or the scheme's (80, 443).
    public let port: Int
    /// The authority as written, without user information: `host[:port]` (an IPv6 address in
    /// brackets), the `Host` header and what messages name.
    public let authority: String
    /// The path as written, `/` when empty (for cookies: RFC 6265 §5.1.4).
    public let path: String
    /// The request target of the request line: the path and query, with what may not appear raw in
    /// one percent-encoded as browsers do (`%` is left alone: the URL is taken to be encoded already).
    public let target: String
    /// The user information, when the URL has some.
    public let credentials: Credentials?
    /// The URL as outputs show it: the scheme in lower case, no user information, the rest as written.
    public let text: String

    /// Parses `text`.
    /// - Throws: the `Problem` that makes it unusable.
    public init(parsing text: String) throws(Problem) {
        let bytes = Array(text.utf8)
        guard !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { throw .invalidCharacter }
        let https: Bool
        if Self.startsWith(bytes, "http://") {
            https = false
        } else if Self.startsWith(bytes, "https://") {
            https = true
        } else {
            throw .notHTTP
        }
        let scheme = https ? "https://" : "http://"
        var index = scheme.utf8.count
        let authorityEnd =
            bytes[index...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? bytes.endIndex
        var authorityStart = index
        // The last `@` of the authority ends the user information (an `@` in a password is often left
        // unencoded).
        if let at = bytes[index..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) {
            let userInfo = bytes[index..<at]
            let colon = userInfo.firstIndex(of: UInt8(ascii: ":"))
            let user = String(decoding: userInfo[..<(colon ?? userInfo.endIndex)], as: UTF8.self)
            let password = colon.map { String(decoding: userInfo[($0 + 1)...], as: UTF8.self) } ?? ""
            credentials = Credentials(
                user: user.removingPercentEncoding ?? user, password: password.removingPercentEncoding ?? password)
            authorityStart = at + 1
        } else {
            credentials = nil
        }
        let authority = bytes[authorityStart..<authorityEnd]
        var hostBytes = authority[...]
        var portBytes = authority[authority.endIndex...]
        if authority.first == UInt8(ascii: "[") {
            // An IPv6 literal: [::1]:8080
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { throw .badAuthority }
            hostBytes = authority[(authority.startIndex + 1)..<close]
            let after = authority[(close + 1)...]
            if let colon = after.first {
                guard colon == UInt8(ascii: ":") else { throw .badAuthority }
                portBytes = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
            hostBytes = authority[..<colon]
            portBytes = authority[(colon + 1)...]
        }
        guard !hostBytes.isEmpty else { throw .noHost }
        var port = https ? 443 : 80
        if !portBytes.isEmpty {
            guard portBytes.count <= 5, portBytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { throw .badAuthority }
            port = portBytes.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            guard (1...65535).contains(port) else { throw .badAuthority }
        }
        index = authorityEnd
        let fragmentStart = bytes[index...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        let pathEnd = bytes[index..<fragmentStart].firstIndex(of: UInt8(ascii: "?")) ?? fragmentStart
        let path = bytes[index..<pathEnd]
        let pathAndQuery = bytes[index..<fragmentStart]

        self.isHTTPS = https
        self.host = String(decoding: hostBytes, as: UTF8.self).lowercased()
        self.port = port
        self.authority = String(decoding: authority, as: UTF8.self)
        self.path = path.isEmpty ? "/" : String(decoding: path, as: UTF8.self)
        self.target = Self.encodedTarget(pathAndQuery)
        self.text = scheme + String(decoding: bytes[authorityStart...], as: UTF8.self)
    }

    public var description: String { text }

    /// `host:port` (an IPv6 address in brackets), as `CONNECT` names it.
    public var hostPort: String { Self.hostPort(host, port) }

    /// `host:port`, an IPv6 address in brackets (`[::1]:443`), as `CONNECT` and messages name it.
    public static func hostPort(_ host: String, _ port: Int) -> String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// Whether the host is an IPv4 or IPv6 address rather than a name.
    public var hostIsAddress: Bool { IPAddress(host) != nil }

    /// Whether the host is this machine: `localhost`, a name under `.localhost`, 127.0.0.0/8 or
    /// `::1` (RFC 6761; what RFC 6265bis and browsers call a potentially trustworthy origin).
    public var isLoopback: Bool {
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        switch IPAddress(host) {
        case .v4(let bytes)?: return bytes[0] == 127
        case .v6(let bytes)?: return bytes == [UInt8](repeating: 0, count: 15) + [1]
        case nil: return false
        }
    }

    /// Whether `other` has the same origin: scheme, host and port.
    public func isSameOrigin(as other: RequestURL) -> Bool {
        isHTTPS == other.isHTTPS && host == other.host && port == other.port
    }

    /// Whether `bytes` starts with `prefix` (lower case), in any case.
    private static func startsWith(_ bytes: [UInt8], _ prefix: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        return bytes.starts(with: expected) { ($0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0) == $1 }
    }

    /// The request target for `pathAndQuery` (`/` when the path is empty): what may not appear raw in
    /// a request line (controls, non-ASCII, `"<>\^`{|}`) percent-encoded.
    private static func encodedTarget(_ pathAndQuery: ArraySlice<UInt8>) -> String {
        func isRaw(_ byte: UInt8) -> Bool {
            byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "<")
                && byte != UInt8(ascii: ">") && byte != UInt8(ascii: "\\") && byte != UInt8(ascii: "^")
                && byte != UInt8(ascii: "`") && byte != UInt8(ascii: "{") && byte != UInt8(ascii: "|")
                && byte != UInt8(ascii: "}")
        }
        var out: [UInt8] = []
        out.reserveCapacity(pathAndQuery.count + 1)
        if pathAndQuery.first != UInt8(ascii: "/") { out.append(UInt8(ascii: "/")) }
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in pathAndQuery {
            if isRaw(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
