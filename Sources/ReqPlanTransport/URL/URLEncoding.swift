/// The encodings of text in URLs and form bodies.
public enum URLEncoding {
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// RFC 3986 percent-encoding of everything but unreserved characters (a query value, a path segment).
    public static func percentEncode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `application/x-www-form-urlencoded`: like percent-encoding, with spaces as `+`.
    public static func formEncode(_ text: String) -> String {
        percentEncode(text).replacingOccurrences(of: "%20", with: "+")
    }
}
