import Foundation

/// A scan of YAML or JSON text for a key, as the usual spellings write it (`key:`, `"key":`, `'key' :`),
/// to tell cheaply that a walk over the parsed nodes has nothing to do. It errs one way only: an unusual
/// spelling makes the caller walk.
enum KeyScan {
    /// What follows an occurrence of the key's text.
    enum Occurrence {
        /// The key, with the value starting at this offset (spaces, tabs and, when `acrossLines`, line
        /// breaks skipped).
        case key(valueAt: Int)
        /// The text without a colon after it: a word in prose, or a key written some other way.
        case notAKey
    }

    /// Calls `body` for each occurrence of `key` until it returns true; returns whether one did.
    /// - Parameter acrossLines: skip line breaks after the colon too (a YAML block value).
    static func any(
        _ key: String, in data: Data, acrossLines: Bool = false,
        where body: (Occurrence, UnsafeRawBufferPointer) -> Bool
    ) -> Bool {
        let marker = Array(key.utf8)
        guard let first = marker.first else { return false }
        return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            let count = bytes.count
            let isBlank = { (byte: UInt8) in
                byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
                    || (acrossLines && (byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")))
            }
            var index = 0
            while index + marker.count <= count {
                guard bytes[index] == first, marker.indices.allSatisfy({ bytes[index + $0] == marker[$0] }) else {
                    index += 1
                    continue
                }
                var next = index + marker.count
                // Part of a longer word (`subtype`) is not the key.
                if index > 0, !isQuote(bytes[index - 1]), !isBlank(bytes[index - 1]),
                    ![UInt8(ascii: "\n"), UInt8(ascii: "{"), UInt8(ascii: ",")].contains(bytes[index - 1])
                {
                    index = next
                    continue
                }
                index = next
                if next < count, isQuote(bytes[next]) { next += 1 }
                while next < count, bytes[next] == UInt8(ascii: " ") || bytes[next] == UInt8(ascii: "\t") { next += 1 }
                guard next < count, bytes[next] == UInt8(ascii: ":") else {
                    if body(.notAKey, bytes) { return true }
                    continue
                }
                next += 1
                while next < count, isBlank(bytes[next]) { next += 1 }
                if body(.key(valueAt: next), bytes) { return true }
            }
            return false
        }
    }

    static func isQuote(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }
}
