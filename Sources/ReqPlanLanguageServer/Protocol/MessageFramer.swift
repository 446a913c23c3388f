import ReqPlanSyntax

/// The base protocol of the Language Server Protocol: messages framed by a `Content-Length` header.
///
/// Each message is a header part (`Name: value` lines ending in `\r\n`, then an empty line) and a
/// content part of exactly `Content-Length` bytes of UTF-8 JSON. Hand-written, and small: no Swift
/// LSP library is in the package mirror, and the JSON-RPC of other packages (the MCP SDK's) frames
/// messages by lines, not by this header.
///
/// The framer never fails on bad input, and one bad frame loses one message, never the ones after it. A
/// header part without a usable `Content-Length` (none, two, one that is not a number of bytes), longer than
/// `maxHeaderBytes`, or declaring more than `maxContentBytes`, and bytes where a header should start that are
/// not one (what is left of a message whose length was counted in characters rather than bytes) become one
/// `.malformed` frame (the server answers it with a parse error). The framer then re-synchronises: it skips
/// to the next `Content-Length:` that starts a header part with a usable length, and reads on from there. A
/// declared length over the limit is not waited for either: its bytes are skipped up to the next header, as
/// those of a header without a length are. Such a header cannot be inside a message's content: JSON text
/// holds no raw line break inside a string, and none of these letters outside one.
///
/// Memory stays bounded by the two limits, whatever comes in: a message is held until its declared length
/// has come (at most `maxContentBytes`), a header until its end (at most `maxHeaderBytes`), and bytes being
/// skipped not at all.
public struct MessageFramer: Sendable {
    /// What `next()` takes from the bytes received.
    public enum Frame: Sendable, Equatable {
        /// The content part of one message.
        case message([UInt8])
        /// A header or message that could not be read; the reason, for the log and the error reply.
        case malformed(String)
    }

    /// The longest header part accepted, in bytes.
    public var maxHeaderBytes = 8 * 1024
    /// The longest content part accepted, in bytes (64 MiB: a plan file is at most 8 MiB, `ParseLimits`, and its
    /// JSON string at most six times that only if every character is escaped).
    public var maxContentBytes = 64 * 1024 * 1024

    private var buffer: [UInt8] = []
    /// Where unread bytes start in `buffer` (compacted when more than half is read).
    private var start = 0
    /// Whether bytes are being skipped up to the next header, after a frame that could not be read: nothing
    /// skipped is reported again.
    private var resynchronising = false

    /// A framer with nothing received yet.
    public init() {}

    /// Adds bytes received; read messages with `next()`.
    public mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or `nil` until more bytes come.
    public mutating func next() -> Frame? {
        defer { compact() }
        while true {
            if resynchronising {
                guard let header = nextHeaderStart() else { return nil }
                start = header
            }
            guard let headerEnd = headerEnd() else {
                guard buffer.count - start > maxHeaderBytes else { return nil }
                // No end of header in sight.
                if let lost = lose(from: start + 1, "a header longer than \(maxHeaderBytes) bytes") { return lost }
                continue
            }
            let contentStart = headerEnd + 4
            let lost: (reason: String, resume: Int, reportedAgain: Bool)
            switch Self.contentLength(in: buffer[start..<headerEnd]) {
            case .length(let length) where length <= maxContentBytes:
                guard buffer.count - contentStart >= length else { return nil }
                resynchronising = false
                let content = Array(buffer[contentStart..<(contentStart + length)])
                start = contentStart + length
                return .message(content)
            case .length(let length):
                lost = (tooLarge(String(length)), contentStart, true)
            case .tooLarge(let digits):
                lost = (tooLarge(digits), contentStart, true)
            case .unusable(let reason):
                // A header of the client's: skipped whole. While skipping, what looked like one but was not
                // may hold the next one.
                lost = (reason, resynchronising ? start + 1 : contentStart, false)
            case .notAHeader:
                // Bytes before a header (the end of a message longer than its length said): the header may be
                // among them.
                lost = ("bytes that are not a header where a header should start", start + 1, false)
            }
            if let frame = lose(from: lost.resume, lost.reason, reportedAgain: lost.reportedAgain) { return frame }
        }
    }

    /// Why a message is refused for its length (`digits` bytes).
    private func tooLarge(_ digits: String) -> String {
        "a message of \(digits) bytes, more than the \(maxContentBytes) accepted"
    }

    /// Skips to `resume` and looks for the next header from there.
    /// - Parameter reportedAgain: whether a frame lost while skipping is reported all the same (a header that
    ///   was read but declared too much: a message of its own, refused).
    /// - Returns: the frame that says why, unless the bytes lost were being skipped already.
    private mutating func lose(from resume: Int, _ reason: String, reportedAgain: Bool = false) -> Frame? {
        let report = !resynchronising || reportedAgain
        start = min(resume, buffer.count)
        resynchronising = true
        // What is skipped is dropped at once, not when the next frame is asked for.
        if let header = nextHeaderStart() { start = header }
        return report ? .malformed(reason) : nil
    }

    /// `content-length:`, as header names are compared: without case.
    private static let headerName = Array("content-length:".utf8)

    /// Where the next header part may start: a `Content-Length:` field (what comes before it, the end of a
    /// message or bytes that are not one, is not looked at). Bytes before it are dropped; with none yet,
    /// everything is but what may be the start of one.
    private mutating func nextHeaderStart() -> Int? {
        let name = Self.headerName
        var index = start
        while index + name.count <= buffer.count {
            if Self.lowercased(buffer[index]) == name[0],
                (1..<name.count).allSatisfy({ Self.lowercased(buffer[index + $0]) == name[$0] })
            {
                return index
            }
            index += 1
        }
        // Keep the longest end of the bytes that begins the name; drop the rest.
        var kept = min(name.count - 1, buffer.count - start)
        while kept > 0, !(0..<kept).allSatisfy({ Self.lowercased(buffer[buffer.count - kept + $0]) == name[$0] }) {
            kept -= 1
        }
        start = buffer.count - kept
        return nil
    }

    /// The index of the `\r\n\r\n` that ends the header part, if it has come.
    private func headerEnd() -> Int? {
        var index = start
        let end = min(buffer.count, start + maxHeaderBytes + 4)
        while index + 3 < end {
            if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 {
                return index
            }
            index += 1
        }
        return nil
    }

    /// What a header part says of its content's length.
    enum ContentLength: Equatable {
        /// A length in bytes.
        case length(Int)
        /// A number of bytes too large for an `Int` (its digits).
        case tooLarge(String)
        /// A header whose length cannot be used; why.
        case unusable(String)
        /// The first line is not a header field (`Name: value`): the bytes are not a header at all.
        case notAHeader
    }

    /// The value of the `Content-Length` field (names are case-insensitive), if there is exactly one and it
    /// is a number of bytes.
    static func contentLength(in header: ArraySlice<UInt8>) -> ContentLength {
        var lengths: [Substring] = []
        let text = String(decoding: header, as: UTF8.self)
        for (number, line) in text.split(separator: "\r\n", omittingEmptySubsequences: true).enumerated() {
            guard let colon = line.firstIndex(of: ":") else {
                return number == 0 ? .notAHeader : .unusable("a header line without `:`")
            }
            let name = line[..<colon].trimmingSpaces
            guard !name.isEmpty, name.utf8.allSatisfy(HeaderLine.isTokenByte) else {
                return number == 0 ? .notAHeader : .unusable("a header field name that is not one")
            }
            guard name.lowercased() == "content-length" else { continue }
            lengths.append(line[line.index(after: colon)...].trimmingSpaces)
        }
        guard let value = lengths.first else { return .unusable("a header without `Content-Length`") }
        guard lengths.count == 1 else { return .unusable("a header with \(lengths.count) `Content-Length` fields") }
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return .unusable("a `Content-Length` of `\(value.prefix(40))`, not a number of bytes")
        }
        guard let length = Int(value) else { return .tooLarge(String(value.prefix(40))) }
        return .length(length)
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// Drops the bytes read once they are more than half the buffer.
    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.count < 1 << 20)
            start = 0
        } else if start > 4096 && start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }

    /// The frame of one message: its header and `content`.
    public static func frame(_ content: [UInt8]) -> [UInt8] {
        Array("Content-Length: \(content.count)\r\n\r\n".utf8) + content
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
