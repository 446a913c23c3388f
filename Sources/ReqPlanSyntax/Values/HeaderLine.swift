/// The one rule for text that becomes part of a header line: request headers, credentials, multipart
/// part headers (`Content-Type`, the part's name and file name) and cookies. A field value is visible
/// characters, spaces and tabs (RFC 9110 §5.5); any other control character is refused, by `validate`
/// where the plan writes it literally and by `run` where an expression computes it, with one code
/// (`DiagnosticCode.controlCharacterInHeader`) and one wording (`problem(_:_:)`). A line break in
/// particular would end the header and let the value write headers of its own.
public enum HeaderLine {
    /// The first character of `text` that cannot stand in a header line (a control character other
    /// than a horizontal tab, or DEL); nil when there is none.
    public static func forbiddenCharacter(in text: some StringProtocol) -> Unicode.Scalar? {
        // Scalars, not Characters: in Swift "\r\n" is one Character, equal neither to "\r" nor to "\n".
        text.unicodeScalars.first { ($0.value < 0x20 && $0.value != 0x09) || $0.value == 0x7F }
    }

    /// RFC 9110's `tchar`, a byte of a token (a header's name, a method, an auth scheme's parameter name): the one
    /// test of it, for the transport, reqplan's response decoder, the auth schemes and the language server's framing.
    @inlinable
    public static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"),
            UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"),
            UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// What is wrong with `what` (``header `X-Token` ``, ``the `Content-Type` of multipart part `file` ``),
    /// which holds `scalar`.
    public static func problem(_ what: String, _ scalar: Unicode.Scalar) -> String {
        "\(what) contains a control character (\(name(of: scalar))), which cannot be sent in a header line"
    }

    /// The hint that goes with `problem`.
    public static let hint =
        "a header value is one line of visible text, spaces and tabs: remove line breaks and other control characters"

    /// `text` with its control characters written as escapes (`\r`, `\n`, `\t`, `\u{1}`), to quote it on
    /// one line of a message.
    public static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0..<0x20, 0x7F: out += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func name(of scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        switch scalar.value {
        case 0x0A: return "\(code) line feed"
        case 0x0D: return "\(code) carriage return"
        case 0x00: return "\(code) NUL"
        case 0x7F: return "\(code) DEL"
        default: return code
        }
    }
}
