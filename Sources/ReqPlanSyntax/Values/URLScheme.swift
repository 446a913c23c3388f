extension String {
    /// The scheme of an absolute URL (`https` in `https://host/`), or nil when the text does not
    /// start with one followed by `://` (grammar.md §6.3). A scheme is a letter, then letters,
    /// digits, `+`, `-` or `.`; `/login?next=https://x/` has none, so it is relative.
    public var urlScheme: Substring? {
        let bytes = utf8
        guard let first = bytes.first, first.isASCIILetter,
            let colon = bytes.firstIndex(where: {
                !($0.isASCIILetter || $0.isASCIIDigit || $0 == UInt8(ascii: "+")
                    || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "."))
            }),
            bytes[colon...].starts(with: "://".utf8)
        else { return nil }
        return Substring(bytes[..<colon])
    }
}

extension UInt8 {
    fileprivate var isASCIILetter: Bool { (self | 0x20) >= UInt8(ascii: "a") && (self | 0x20) <= UInt8(ascii: "z") }
    fileprivate var isASCIIDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
}
