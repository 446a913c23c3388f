/// The base protocol of the Language Server Protocol: messages framed by a `Content-Length` header.
///
/// Each message is a header part (`Name: value` lines ending in `\r\n`, then an empty line) and a
/// content part of exactly `Content-Length` bytes of UTF-8 JSON. Hand-written, and small: no Swift
/// LSP library is in the package mirror, and the JSON-RPC of other packages (the MCP SDK's) frames
/// messages by lines, not by this header.
///
/// The framer never fails on bad input: a header part without a usable `Content-Length`, one longer
/// than `maxHeaderBytes`, or a content part longer than `maxContentBytes` becomes a `.malformed` frame
/// (the server answers it with a parse error) and the bytes after it are read as the next message.
/// Memory stays bounded by the two limits, whatever comes in.
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
    /// The longest content part accepted, in bytes (a plan file is far smaller).
    public var maxContentBytes = 64 * 1024 * 1024

    private var buffer: [UInt8] = []
    /// Where unread bytes start in `buffer` (compacted when more than half is read).
    private var start = 0
    /// Bytes of an oversized message still to skip as they arrive.
    private var skipping = 0

    /// A framer with nothing received yet.
    public init() {}

    /// Adds bytes received; read messages with `next()`.
    public mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        buffer.append(contentsOf: bytes)
    }

    /// How many bytes are held, unread.
    public var pendingByteCount: Int { buffer.count - start }

    /// The next complete frame, or `nil` until more bytes come.
    public mutating func next() -> Frame? {
        defer { compact() }
        if skipping > 0 {
            let skipped = min(skipping, buffer.count - start)
            start += skipped
            skipping -= skipped
            if skipping > 0 { return nil }
        }
        guard let headerEnd = headerEnd() else {
            if buffer.count - start > maxHeaderBytes {
                // No end of header in sight: drop what came, up to the next line, and say so.
                let line = buffer[start...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? buffer.count
                start = line
                return .malformed("a header longer than \(maxHeaderBytes) bytes")
            }
            return nil
        }
        let header = String(decoding: buffer[start..<headerEnd], as: UTF8.self)
        let contentStart = headerEnd + 4
        guard let length = Self.contentLength(in: header) else {
            start = contentStart
            return .malformed("a header without a valid Content-Length")
        }
        guard length <= maxContentBytes else {
            start = contentStart
            skipping = length
            return .malformed("a message of \(length) bytes, more than the \(maxContentBytes) accepted")
        }
        guard buffer.count - contentStart >= length else { return nil }
        let content = Array(buffer[contentStart..<(contentStart + length)])
        start = contentStart + length
        return .message(content)
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

    /// The value of the `Content-Length` field (names are case-insensitive), if there is exactly one and it
    /// is a number.
    static func contentLength(in header: String) -> Int? {
        var lengths: [Int?] = []
        for line in header.split(separator: "\r\n", omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimmingSpaces.lowercased()
            guard name == "content-length" else { continue }
            let value = line[line.index(after: colon)...].trimmingSpaces
            lengths.append(value.allSatisfy(\.isASCII) && value.allSatisfy(\.isNumber) ? Int(value) : nil)
        }
        guard lengths.count == 1, let length = lengths[0] else { return nil }
        return length
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
