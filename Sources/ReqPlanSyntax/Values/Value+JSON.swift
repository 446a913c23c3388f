import Foundation

extension Value {
    /// Compact JSON text; with `pretty`, indented by two spaces, keys in their order.
    public func jsonText(pretty: Bool = false) -> String {
        var output = ""
        write(to: &output, pretty: pretty, indent: 0)
        return output
    }

    private func write(to output: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .largeInt(let digits): output += digits
        case .double(let value): output += Value.format(value)
        case .string(let value): Value.writeString(value, to: &output)
        case .list(let items):
            if items.isEmpty {
                output += "[]"
                return
            }
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                if pretty { output += "\n" + String(repeating: "  ", count: indent + 1) }
                item.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { output += "\n" + String(repeating: "  ", count: indent) }
            output += "]"
        case .object(let fields):
            if fields.isEmpty {
                output += "{}"
                return
            }
            output += "{"
            for (index, field) in fields.enumerated() {
                if index > 0 { output += "," }
                if pretty { output += "\n" + String(repeating: "  ", count: indent + 1) }
                Value.writeString(field.key, to: &output)
                output += pretty ? ": " : ":"
                field.value.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { output += "\n" + String(repeating: "  ", count: indent) }
            output += "}"
        }
    }

    /// A double as JSON: integral values without a fraction, non-finite ones as `null`.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }

    /// Appends `string` as a JSON string literal (RFC 8259): quotes, backslashes and control characters
    /// escaped, the rest as is.
    static func writeString(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case let c where c.value < 0x20:
                output +=
                    "\\u" + String(repeating: "0", count: 4 - String(c.value, radix: 16).count)
                    + String(c.value, radix: 16)
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    /// Parses JSON text into a value, keeping object key order.
    /// - Throws: `JSONParseError` with the byte offset of the problem.
    public static func parseJSON(_ text: String) throws(JSONParseError) -> Value {
        var parser = JSONParser(bytes: Array(text.utf8))
        return try parser.parseDocument()
    }

    /// Parses JSON bytes into a value, keeping object key order.
    public static func parseJSON(bytes: [UInt8]) throws(JSONParseError) -> Value {
        var parser = JSONParser(bytes: bytes)
        return try parser.parseDocument()
    }
}

/// Why a text is not JSON, and where.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The byte offset of the problem.
    public var offset: Int
    public var description: String { "\(message) at byte \(offset)" }
}

/// A small strict JSON parser (RFC 8259) that keeps key order and integer precision.
struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0
    /// The top-level object's members with their places, gathered while `parseDocumentMembers` parses; `nil`
    /// otherwise.
    private var recorded: [Member]?
    static let maxDepth = 512

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(JSONParseError) -> Value {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected text after the JSON value") }
        return value
    }

    private func fail(_ message: String) -> JSONParseError {
        JSONParseError(message: message, offset: index)
    }

    /// The character at `index` for a message: `,` in backticks, or its code when it is not printable ASCII.
    private func describeCharacter() -> String {
        let byte = bytes[index]
        return byte > 0x20 && byte < 0x7F
            ? "`\(Character(Unicode.Scalar(byte)))`" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private mutating func skipWhitespace() {
        // Compared one by one: `[…].contains` built an array for every byte in a debug build.
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> Value {
        guard index < bytes.count else { throw fail("unexpected end of JSON") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected \(describeCharacter())")
        }
    }

    private mutating func parseLiteral(_ word: String, _ value: Value) throws(JSONParseError) -> Value {
        let utf8 = Array(word.utf8)
        guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
            throw fail("invalid literal")
        }
        index += utf8.count
        return value
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > JSONParser.maxDepth { throw fail("JSON nested deeper than \(JSONParser.maxDepth) levels") }
    }

    private mutating func parseObject() throws(JSONParseError) -> Value {
        try enter()
        defer { depth -= 1 }
        index += 1
        var fields: [Value.Field] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(fields)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let keyStart = index
            let key = try parseString()
            let keyEnd = index
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected `:`") }
            index += 1
            skipWhitespace()
            let valueStart = index
            let value = try parseValue()
            fields.append(Value.Field(key, value))
            // The top-level object's members, with their places, when `parseDocumentMembers` asks for them.
            if depth == 1, recorded != nil {
                recorded?.append(
                    Member(
                        key: key, keyStart: keyStart, keyEnd: keyEnd, valueStart: valueStart, valueEnd: index,
                        value: value))
            }
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of JSON") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(fields)
            }
            throw fail("expected `,` or `}`")
        }
    }

    /// One member of a document's top-level object, with where it is written.
    struct Member {
        var key: String
        /// The byte offset of the key's opening quote.
        var keyStart: Int
        /// The byte offset just past the key's closing quote.
        var keyEnd: Int
        /// The byte offsets of the value's first byte and just past its last.
        var valueStart: Int
        var valueEnd: Int
        var value: Value
    }

    /// Parses the whole text as one JSON value, as `parseDocument()` does; when it is an object, gives its
    /// members in the order written, each with the byte offsets of its key and value (a JSON Lines data file
    /// points at a value of the wrong type), else the value.
    mutating func parseDocumentMembers() throws(JSONParseError) -> MembersOrValue {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else {
            index = 0
            return .value(try parseDocument())
        }
        recorded = []
        defer { recorded = nil }
        _ = try parseDocument()
        return .members(recorded ?? [])
    }

    /// A document's top-level object as its members, or the document's value when it is not an object.
    enum MembersOrValue {
        case members([Member])
        case value(Value)
    }

    private mutating func parseArray() throws(JSONParseError) -> Value {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [Value] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .list(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of JSON") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .list(items)
            }
            throw fail("expected `,` or `]`")
        }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        // Most strings have no escape: up to the closing quote, their bytes are the string's, taken at once.
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: bytes[start..<(index - 1)], as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            index += 1
        }
        var result = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: result, as: UTF8.self)
            }
            if byte < 0x20 { throw fail("control character in string") }
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): result.append(0x22)
                case UInt8(ascii: "\\"): result.append(0x5C)
                case UInt8(ascii: "/"): result.append(0x2F)
                case UInt8(ascii: "b"): result.append(0x08)
                case UInt8(ascii: "f"): result.append(0x0C)
                case UInt8(ascii: "n"): result.append(0x0A)
                case UInt8(ascii: "r"): result.append(0x0D)
                case UInt8(ascii: "t"): result.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800...0xDBFF).contains(code), index + 1 < bytes.count,
                        bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                    {
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("invalid surrogate pair") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    result.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: throw fail("invalid escape")
                }
                continue
            }
            result.append(byte)
            index += 1
        }
        throw fail("unterminated string")
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("invalid \\u escape") }
        var code: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("invalid \\u escape")
            }
            code = code * 16 + digit
            index += 1
        }
        return code
    }

    private mutating func parseNumber() throws(JSONParseError) -> Value {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        var isInteger = true
        func digits() -> Int {
            let from = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - from
        }
        // RFC 8259: `int = zero / ( digit1-9 *DIGIT )`, so `012` and `-01` are not numbers.
        let integerStart = index
        guard digits() > 0 else { throw fail("invalid number") }
        if bytes[integerStart] == UInt8(ascii: "0"), index - integerStart > 1 {
            index = integerStart
            throw fail("a number cannot start with 0 followed by a digit")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard digits() > 0 else { throw fail("invalid number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() > 0 else { throw fail("invalid number") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let integer = Value.integer(fromDecimal: text) { return integer }
        guard let double = Double(text) else { throw fail("invalid number") }
        return .double(double)
    }
}
