import Foundation

/// One part of a `multipart/form-data` body (RFC 7578).
struct MultipartPart: Sendable {
    /// The `name` of its `Content-Disposition`.
    var name: String
    /// The `filename` of its `Content-Disposition`, for file parts.
    var filename: String?
    /// Its `Content-Type`, if it has one.
    var contentType: String?
    /// Its content.
    var body: [UInt8]
}

/// Why a multipart body could not be read.
struct MultipartError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    var description: String
}

/// A reader of `multipart/form-data` bodies.
enum Multipart {
    /// The `boundary` parameter of a `multipart/form-data` Content-Type, unquoted.
    static func boundary(inContentType value: String) -> String? {
        let parameters = Self.parameters(value)
        guard let boundary = parameters["boundary"], !boundary.isEmpty, boundary.utf8.count <= 70 else { return nil }
        return boundary
    }

    /// The parts of `body`, in order.
    static func parse(_ body: [UInt8], boundary: String) throws(MultipartError) -> [MultipartPart] {
        let delimiter = Array("--\(boundary)".utf8)
        let crlf: [UInt8] = [0x0D, 0x0A]
        // The first delimiter starts the body or follows a preamble line.
        var position: Int
        if body.starts(with: delimiter) {
            position = delimiter.count
        } else if let found = find(crlf + delimiter, in: body, from: 0) {
            position = found + 2 + delimiter.count
        } else {
            throw MultipartError(description: "the body does not contain the boundary `\(boundary)`")
        }
        var parts: [MultipartPart] = []
        while true {
            // After a delimiter: `--` closes the body; otherwise optional padding then CRLF.
            if body[position...].starts(with: [0x2D, 0x2D]) { return parts }
            while position < body.count, body[position] == 0x20 || body[position] == 0x09 { position += 1 }
            guard body[position...].starts(with: crlf) else {
                throw MultipartError(description: "expected a line break after the boundary")
            }
            position += 2
            guard let end = find(crlf + delimiter, in: body, from: position) else {
                throw MultipartError(description: "the body ends without the closing boundary `--\(boundary)--`")
            }
            parts.append(try part(body[position..<end]))
            position = end + 2 + delimiter.count
            guard position <= body.count else {
                throw MultipartError(description: "the body ends without the closing boundary")
            }
        }
    }

    /// One part: header lines, an empty line, the content.
    private static func part(_ slice: ArraySlice<UInt8>) throws(MultipartError) -> MultipartPart {
        let bytes = Array(slice)
        let headerEnd: Int
        let contentStart: Int
        if bytes.starts(with: [0x0D, 0x0A]) {
            headerEnd = 0
            contentStart = 2
        } else if let found = find([0x0D, 0x0A, 0x0D, 0x0A], in: bytes, from: 0) {
            headerEnd = found
            contentStart = found + 4
        } else {
            throw MultipartError(description: "a part has no empty line after its headers")
        }
        var disposition: String?
        var contentType: String?
        let headerText = String(decoding: bytes[..<headerEnd], as: UTF8.self)
        for line in headerText.components(separatedBy: "\r\n") where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                throw MultipartError(description: "malformed part header `\(line)`")
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch name {
            case "content-disposition": disposition = value
            case "content-type": contentType = value
            default: break
            }
        }
        guard let disposition, disposition.lowercased().hasPrefix("form-data") else {
            throw MultipartError(description: "a part has no `Content-Disposition: form-data` header")
        }
        let parameters = Self.parameters(disposition)
        guard let name = parameters["name"] else {
            throw MultipartError(description: "a part's Content-Disposition has no `name`")
        }
        return MultipartPart(
            name: name, filename: parameters["filename*"] ?? parameters["filename"],
            contentType: contentType, body: Array(bytes[contentStart...]))
    }

    /// The `key=value` parameters after the first `;` of a header value (names in lower case).
    /// Values may be quoted strings with `\` escapes; `key*=UTF-8''…` values are percent-decoded.
    static func parameters(_ header: String) -> [String: String] {
        var result: [String: String] = [:]
        var scalars = Array(header.unicodeScalars)[...]
        // Skip the leading value (`form-data`, `multipart/form-data`).
        guard let first = scalars.firstIndex(of: ";") else { return result }
        scalars = scalars[(first + 1)...]
        while !scalars.isEmpty {
            while let next = scalars.first, next == " " || next == "\t" || next == ";" { scalars.removeFirst() }
            var key = ""
            while let next = scalars.first, next != "=", next != ";" {
                key.unicodeScalars.append(next)
                scalars.removeFirst()
            }
            key = key.trimmingCharacters(in: .whitespaces).lowercased()
            guard scalars.first == "=" else { continue }
            scalars.removeFirst()
            var value = ""
            if scalars.first == "\"" {
                scalars.removeFirst()
                while let next = scalars.first {
                    scalars.removeFirst()
                    if next == "\"" { break }
                    if next == "\\", let escaped = scalars.first {
                        value.unicodeScalars.append(escaped)
                        scalars.removeFirst()
                    } else {
                        value.unicodeScalars.append(next)
                    }
                }
            } else {
                while let next = scalars.first, next != ";" {
                    value.unicodeScalars.append(next)
                    scalars.removeFirst()
                }
                value = value.trimmingCharacters(in: .whitespaces)
            }
            if key.hasSuffix("*"), let quote = value.range(of: "''") {
                value = value[quote.upperBound...].removingPercentEncoding ?? value
            }
            if !key.isEmpty { result[key] = value }
        }
        return result
    }

    /// The first index of `needle` in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, needle.count <= bytes.count else { return nil }
        var index = start
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == first {
                var matched = true
                for offset in 1..<needle.count where bytes[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }
}
