/// The parts of an `http://` URL a request on the wire needs: where to connect, the `Host`
/// header and the request target (path and query, percent-encoded).
struct RequestTarget: Equatable {
    var endpoint: HTTP1Client.Endpoint
    var hostHeader: String
    var path: String

    /// Nil unless `url` is `http://host[:port][/path][?query][#fragment]` with a host and a
    /// port in 1...65535. Works on the UTF-8 bytes: this runs for every request.
    init?(_ url: String) {
        let bytes = url.utf8
        guard bytes.starts(with: "http://".utf8) else { return nil }
        let rest = bytes.dropFirst(7)
        let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        // Credentials in the URL are not sent (as with AsyncHTTPClient); they are not part of the host.
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[authority.index(after: at)...] }
        var host = authority
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
        var port = 80
        if !portBytes.isEmpty {
            guard portBytes.count <= 5, portBytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return nil }
            port = portBytes.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        guard !host.isEmpty, (1...65535).contains(port) else { return nil }
        var path = rest[authorityEnd...]
        if let hash = path.firstIndex(of: UInt8(ascii: "#")) { path = path[..<hash] }
        endpoint = HTTP1Client.Endpoint(host: String(Substring(host)), port: port)
        hostHeader = String(Substring(authority))
        if path.isEmpty {
            self.path = "/"
        } else if path.first == UInt8(ascii: "?") {
            self.path = "/" + Self.encode(path)
        } else {
            self.path = Self.encode(path)
        }
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
