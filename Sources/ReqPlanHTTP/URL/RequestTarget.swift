/// The parts of an `http://` or `https://` URL a request on the wire needs: where to connect
/// (and whether over TLS), the `Host` header and the request target (path and query,
/// percent-encoded).
struct RequestTarget: Equatable {
    var endpoint: ReqPlanClient.Endpoint
    var hostHeader: String
    var path: String

    /// Nil unless `url` is `http://` or `https://` (the scheme in any case), then
    /// `host[:port][/path][?query][#fragment]` with a host and a port in 1...65535. Works on the
    /// UTF-8 bytes: this runs for every request.
    init?(_ url: String) {
        let bytes = url.utf8
        let tls: Bool
        if Self.hasScheme(bytes, "http://") {
            tls = false
        } else if Self.hasScheme(bytes, "https://") {
            tls = true
        } else {
            return nil
        }
        let rest = bytes.dropFirst(tls ? 8 : 7)
        // Credentials in the URL are not sent (as with AsyncHTTPClient); they are not part of the host.
        guard let authority = URLAuthority(rest, defaultPort: tls ? 443 : 80) else { return nil }
        var path = rest[authority.end...]
        if let hash = path.firstIndex(of: UInt8(ascii: "#")) { path = path[..<hash] }
        endpoint = ReqPlanClient.Endpoint(host: String(Substring(authority.host)), port: authority.port, tls: tls)
        hostHeader = String(Substring(authority.hostAndPort))
        if path.isEmpty {
            self.path = "/"
        } else if path.first == UInt8(ascii: "?") {
            self.path = "/" + Self.encode(path)
        } else {
            self.path = Self.encode(path)
        }
    }

    /// Whether `bytes` starts with `scheme` (lower case, with `://`), in any case.
    private static func hasScheme(_ bytes: String.UTF8View, _ scheme: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: scheme.utf8Start, count: scheme.utf8CodeUnitCount)
        return bytes.starts(with: expected) { ($0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0) == $1 }
    }

    /// Percent-encodes what may not appear raw in a request line (spaces, controls, non-ASCII,
    /// `"<>\^`{|}`), as browsers do; `%` is left alone, as the URL is taken to be encoded already.
    static func encode(_ path: Substring.UTF8View) -> String {
        func isRaw(_ byte: UInt8) -> Bool {
            byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "<")
                && byte != UInt8(ascii: ">") && byte != UInt8(ascii: "\\") && byte != UInt8(ascii: "^")
                && byte != UInt8(ascii: "`") && byte != UInt8(ascii: "{") && byte != UInt8(ascii: "|")
                && byte != UInt8(ascii: "}")
        }
        guard !path.allSatisfy(isRaw) else { return String(Substring(path)) }
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.count * 3)
        for byte in path {
            if isRaw(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
