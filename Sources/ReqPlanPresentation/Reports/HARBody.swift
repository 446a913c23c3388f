import Foundation
import ReqPlanRuntime
import ReqPlanSyntax

/// A request or response body as the HAR report keeps it: at most `limit` bytes written, the whole
/// size known, `_truncated` when cut.
///
/// A recorder keeps `kept` bytes (the limit and a margin), so the textual net still sees a secret that
/// straddles the limit whole before the text is cut; a body that is not UTF-8 is written in base64
/// (HAR 1.2 `encoding`), its secrets hidden byte for byte (ASCII secrets; the net works on text).
public struct HARBody: Sendable {
    /// Bytes of a body written at most (64 KiB).
    public static let limit = 64 << 10
    /// Bytes of a body kept while the run goes: the limit and a margin for the net.
    public static let kept = limit + 4096

    /// The first bytes of the body (`kept` at most).
    public var bytes: [UInt8]
    /// The whole body's size in bytes.
    public var size: Int
    /// The body's `Content-Type`, if given.
    public var mimeType: String?

    /// The start of `bytes` (the body, or its first bytes of `size`).
    public init(_ bytes: [UInt8], size: Int? = nil, mimeType: String?) {
        self.bytes = bytes.count > Self.kept ? Array(bytes.prefix(Self.kept)) : bytes
        self.size = size ?? bytes.count
        self.mimeType = mimeType
    }

    /// What the HAR report writes of the body.
    struct Written {
        /// The text (`***` for secrets), or base64 of the bytes.
        var text: String
        /// `base64` for a body that is not UTF-8.
        var encoding: String?
        /// Whether the body was cut.
        var truncated: Bool
    }

    /// The body as written: through `redactor`, cut to `HARBody.limit` bytes.
    func written(redactedBy redactor: Redactor) -> Written {
        let limit = Self.limit
        if let text = Self.utf8(bytes, cut: bytes.count < size) {
            let shown = redactor.redact(text)
            let cut = Self.prefix(shown, bytes: limit)
            return Written(text: cut, encoding: nil, truncated: cut.utf8.count < shown.utf8.count || size > bytes.count)
        }
        // One character per byte, so the net replaces a secret's bytes and leaves the others as they are.
        let latin = String(bytes.map { Character(Unicode.Scalar($0)) })
        let hidden = redactor.redact(latin).unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        let cut = hidden.prefix(limit)
        return Written(
            text: Data(cut).base64EncodedString(), encoding: "base64",
            truncated: cut.count < hidden.count || size > bytes.count)
    }

    /// `bytes` as text when they are UTF-8 (a cut start may end inside a character: that part is dropped).
    private static func utf8(_ bytes: [UInt8], cut: Bool) -> String? {
        let tail = cut ? min(3, bytes.count) : 0
        for drop in 0...tail {
            if let text = String(validating: bytes.dropLast(drop), as: UTF8.self) { return text }
        }
        return nil
    }

    /// The longest start of `text` of at most `bytes` UTF-8 bytes, whole scalars only.
    private static func prefix(_ text: String, bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var count = 0
        var end = text.unicodeScalars.startIndex
        for scalar in text.unicodeScalars {
            let width = UTF8.width(scalar)
            if count + width > bytes { break }
            count += width
            end = text.unicodeScalars.index(after: end)
        }
        return String(text.unicodeScalars[..<end])
    }
}
