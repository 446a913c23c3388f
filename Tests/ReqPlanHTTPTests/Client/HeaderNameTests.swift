import Testing

@testable import ReqPlanTransport

/// `String.equalsIgnoringCase`, the one comparison of header names (a response's headers are looked through with
/// it for `Set-Cookie`, `Location`, `Content-Length` and the rest on every exchange): ASCII letters match in either
/// case and nothing else is folded, whatever the lengths.
@Suite struct HeaderNameTests {
    static let names = [
        "Content-Length", "content-length", "CONTENT-LENGTH", "Content-Lengtj", "Content-Length ", "ContentLength",
        "Set-Cookie", "set-cookie", "Connection", "connection", "", "é", "É", "e", "Ée", "[", "{", "@", "`",
        "Content-Length\u{0}", "x-\u{1F600}", "X-\u{1F600}",
    ]

    /// What the names' bytes are with only A to Z lowered.
    static func folded(_ name: String) -> [UInt8] {
        name.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
    }

    @Test func namesAreEqualWhenTheirBytesAreWithASCIILettersFolded() {
        for name in Self.names {
            for other in Self.names {
                #expect(
                    name.equalsIgnoringCase(other) == (Self.folded(name) == Self.folded(other)),
                    "\(name.debugDescription) and \(other.debugDescription)")
            }
        }
        // A string that is a slice of a longer one, and one built character by character.
        let sliced = String("xxContent-Lengthxx".dropFirst(2).dropLast(2))
        #expect(sliced.equalsIgnoringCase("CONTENT-LENGTH"))
        #expect(String("content-length".map { $0 }).equalsIgnoringCase("Content-Length"))
        #expect(!"Content-Length".equalsIgnoringCase("Content-Lengthx"))
    }
}
