import Foundation

/// A JSON value whose objects keep their members in the order written, so the demo API
/// answers with the keys in the order clients sent them (and tests can rely on it).
enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([JSONMember])
}

/// One member of a JSON object.
struct JSONMember: Sendable, Equatable {
    /// The member's name.
    var key: String
    /// The member's value.
    var value: JSON
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A string literal is a JSON string.
    init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal is a JSON integer.
    init(integerLiteral value: Int) { self = .int(value) }
    /// A boolean literal is a JSON boolean.
    init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A float literal is a JSON decimal.
    init(floatLiteral value: Double) { self = .double(value) }
    /// An array literal is a JSON array.
    init(arrayLiteral elements: JSON...) { self = .array(elements) }
    /// A dictionary literal is a JSON object, members in the order written.
    init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(elements.map { JSONMember(key: $0.0, value: $0.1) })
    }
}

extension JSON {
    /// A string, or null for `nil`.
    static func optional(_ text: String?) -> JSON { text.map { .string($0) } ?? .null }

    /// A list of strings.
    static func strings(_ texts: [String]) -> JSON { .array(texts.map { .string($0) }) }

    /// The member `key` of an object; `nil` for a missing member or a value that is not an object.
    subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The members of an object, `nil` for any other value.
    var members: [JSONMember]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements of an array, `nil` for any other value.
    var elements: [JSON]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The text of a string, `nil` for any other value.
    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// A whole number: an integer, or a decimal without fraction.
    var integer: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value.rounded() == value && abs(value) < 9e15: return Int(value)
        default: return nil
        }
    }

    /// The value of a boolean, `nil` for any other value.
    var boolean: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// A scalar as text (strings as is, numbers and booleans as written), `nil` otherwise.
    var scalarText: String? {
        switch self {
        case .string(let text): return text
        case .int(let value): return String(value)
        case .double(let value): return JSON.format(value)
        case .bool(let value): return value ? "true" : "false"
        default: return nil
        }
    }

    /// This object with `key` set to `value`: replaced in place when present, appended otherwise.
    func setting(_ key: String, to value: JSON) -> JSON {
        guard case .object(var members) = self else { return self }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            members.append(JSONMember(key: key, value: value))
        }
        return .object(members)
    }

    /// This object without the member `key`.
    func removing(_ key: String) -> JSON {
        guard case .object(let members) = self else { return self }
        return .object(members.filter { $0.key != key })
    }
}

// MARK: - Writing

extension JSON {
    /// Compact JSON text.
    var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value): out += value.isFinite ? JSON.format(value) : "null"
        case .string(let value): JSON.quote(value, into: &out)
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                element.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                JSON.quote(member.key, into: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }

    /// The shortest text of a decimal (`2.5`, `1e-05`); whole values keep a `.0`.
    static func format(_ value: Double) -> String { "\(value)" }

    private static func quote(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

// MARK: - Reading

/// Why a text is not JSON.
struct JSONSyntaxError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    var message: String
    /// The byte offset where reading stopped.
    var offset: Int
    /// The message with its position.
    var description: String { "\(message) at byte \(offset)" }
}

extension JSON {
    /// Deepest nesting accepted, so hostile bodies cannot exhaust the stack.
    static let maximumDepth = 256

    /// Parses a complete JSON text (RFC 8259): one value, surrounded by optional whitespace.
    static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSON {
        var reader = JSONReader(bytes: bytes)
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.atEnd else { throw reader.error("unexpected text after the JSON value") }
        return value
    }
}

/// A recursive-descent JSON reader over UTF-8 bytes.
private struct JSONReader {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { position >= bytes.count }
    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    func error(_ message: String) -> JSONSyntaxError { JSONSyntaxError(message: message, offset: position) }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
    }

    mutating func expect(_ literal: String, _ value: JSON) throws(JSONSyntaxError) -> JSON {
        let expected = Array(literal.utf8)
        guard position + expected.count <= bytes.count,
            Array(bytes[position..<position + expected.count]) == expected
        else { throw error("invalid literal") }
        position += expected.count
        return value
    }

    mutating func value(depth: Int) throws(JSONSyntaxError) -> JSON {
        guard depth < JSON.maximumDepth else { throw error("nesting deeper than \(JSON.maximumDepth) levels") }
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character")
        }
    }

    mutating func object(depth: Int) throws(JSONSyntaxError) -> JSON {
        position += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected `:`") }
            position += 1
            skipWhitespace()
            let value = try value(depth: depth + 1)
            if let index = members.firstIndex(where: { $0.key == key }) {
                members[index].value = value  // the last duplicate wins, as in most parsers
            } else {
                members.append(JSONMember(key: key, value: value))
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(members)
            default: throw error("expected `,` or `}`")
            }
        }
    }

    mutating func array(depth: Int) throws(JSONSyntaxError) -> JSON {
        position += 1
        var elements: [JSON] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth + 1))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(elements)
            default: throw error("expected `,` or `]`")
            }
        }
    }

    mutating func number() throws(JSONSyntaxError) -> JSON {
        let start = position
        var isInteger = true
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, isDigit(first) else { throw error("expected a digit") }
        if first == UInt8(ascii: "0") {
            position += 1
        } else {
            while let byte = current, isDigit(byte) { position += 1 }
        }
        if current == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard let byte = current, isDigit(byte) else { throw error("expected a digit after `.`") }
            while let byte = current, isDigit(byte) { position += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard let byte = current, isDigit(byte) else { throw error("expected a digit in the exponent") }
            while let byte = current, isDigit(byte) { position += 1 }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger, let value = Int(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { throw error("number out of range") }
        return .double(value)
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    mutating func string() throws(JSONSyntaxError) -> String {
        position += 1
        var scalars = String.UnicodeScalarView()
        var run: [UInt8] = []  // raw UTF-8 bytes between escapes
        func flush(_ run: inout [UInt8], into scalars: inout String.UnicodeScalarView) {
            if !run.isEmpty {
                scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
                run.removeAll(keepingCapacity: true)
            }
        }
        while true {
            guard let byte = current else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                flush(&run, into: &scalars)
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush(&run, into: &scalars)
                position += 1
                guard let escape = current else { throw error("unterminated escape") }
                position += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"): scalars.append(try unicodeEscape())
                default: throw error("invalid escape")
                }
            case 0..<0x20:
                throw error("control character in string")
            default:
                run.append(byte)
                position += 1
            }
        }
    }

    /// The scalar of `\uXXXX` (the `\u` already read), joining a surrogate pair.
    mutating func unicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        let high = try hex4()
        if (0xD800...0xDBFF).contains(high) {
            guard current == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u")
            else { return "\u{FFFD}" }
            position += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low),
                let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            else { return "\u{FFFD}" }
            return scalar
        }
        return Unicode.Scalar(high) ?? "\u{FFFD}"
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard position + 4 <= bytes.count,
            bytes[position..<position + 4].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
            let value = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
        else { throw error("invalid \\u escape") }
        position += 4
        return value
    }
}
