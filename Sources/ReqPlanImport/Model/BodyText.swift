import ReqPlanSyntax

/// `application/x-www-form-urlencoded` text (a form body, a query string) as name and value pairs, and back.
enum FormFields {
    /// Whether every `&`-separated field of `text` is `name=value` with a literal name.
    static func isForm(_ text: PlanText) -> Bool {
        let fields = split(text)
        return !fields.isEmpty
            && fields.allSatisfy { field in
                guard case .literal(let first)? = field.pieces.first, let equals = first.firstIndex(of: "=") else {
                    return false
                }
                let name = first[..<equals]
                return !name.isEmpty && !name.contains { $0.isWhitespace || $0.isNewline }
            }
    }

    /// The fields of `text`, names and values percent-decoded (`+` a space); a field without `=` has an empty
    /// value.
    static func pairs(of text: PlanText) -> [Pair] {
        split(text).compactMap { field in
            guard case .literal(let first)? = field.pieces.first else { return nil }
            let equals = first.firstIndex(of: "=") ?? first.endIndex
            let name = decode(String(first[..<equals]), plusIsSpace: true)
            let rest = equals == first.endIndex ? "" : String(first[first.index(after: equals)...])
            let value = PlanText(
                pieces: ([PlanText.Piece.literal(rest)] + field.pieces.dropFirst()).compactMap { piece in
                    if case .literal(let part) = piece {
                        return part.isEmpty ? nil : .literal(decode(part, plusIsSpace: true))
                    }
                    return piece
                })
            return name.isEmpty ? nil : Pair(name, value)
        }
    }

    /// `text` split at the `&` of its literal pieces.
    private static func split(_ text: PlanText) -> [PlanText] {
        var fields: [PlanText] = []
        var current: [PlanText.Piece] = []
        for piece in text.pieces {
            guard case .literal(let part) = piece else {
                current.append(piece)
                continue
            }
            let chunks = part.split(separator: "&", omittingEmptySubsequences: false)
            for (index, chunk) in chunks.enumerated() {
                if index > 0 {
                    if !current.isEmpty { fields.append(PlanText(pieces: current)) }
                    current = []
                }
                if !chunk.isEmpty { current.append(.literal(String(chunk))) }
            }
        }
        if !current.isEmpty { fields.append(PlanText(pieces: current)) }
        return fields
    }

    /// Percent-decoded text; a `%` not followed by two hex digits, or bytes that are not UTF-8, stay as written.
    static func decode(_ text: String, plusIsSpace: Bool) -> String {
        guard text.contains("%") || (plusIsSpace && text.contains("+")) else { return text }
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), index + 2 < utf8.count,
                let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? text
    }

    /// Text percent-encoded as curl's `--data-urlencode` does (all but `A–Z a–z 0–9 - . _ ~`).
    static func encode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9")
                || "-._~".unicodeScalars.contains(scalar)
            {
                output.unicodeScalars.append(scalar)
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                output += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return output
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// JSON text, whose pieces may be references (shell variables), as a `json:` value.
enum JSONBody {
    /// The value of `text`, each reference inside a JSON string kept as a reference; `nil` when the text is not
    /// JSON (RFC 8259, within the reader's limits of depth), has a reference outside a string or in a key, or
    /// a number a double cannot hold (`1e400`): such a body is sent as written (`body:`).
    static func value(of text: PlanText) -> PlanValue? {
        var marked = ""
        var references: [Reference] = []
        for piece in text.pieces {
            switch piece {
            case .literal(let part): marked += part
            case .reference(let reference):
                marked += "\u{E000}\(references.count)\u{E001}"
                references.append(reference)
            }
        }
        guard let value = try? Value.parseJSON(marked), value.firstNonFinite == nil else { return nil }
        var failed = false
        let result = convert(value, references: references, failed: &failed)
        return failed ? nil : result
    }

    private static func convert(_ value: Value, references: [Reference], failed: inout Bool) -> PlanValue {
        switch value {
        case .string(let string):
            return .text(unmark(string, references: references))
        case .list(let items):
            return .list(items.map { convert($0, references: references, failed: &failed) })
        case .object(let fields):
            return .object(
                fields.map { field in
                    if field.key.unicodeScalars.contains("\u{E000}") { failed = true }
                    return PlanValue.Member(field.key, convert(field.value, references: references, failed: &failed))
                })
        default:
            return PlanValue(value)
        }
    }

    /// A string with its markers turned back into references.
    static func unmark(_ string: String, references: [Reference]) -> PlanText {
        guard !references.isEmpty, string.unicodeScalars.contains("\u{E000}") else { return PlanText(string) }
        var pieces: [PlanText.Piece] = []
        var literal = ""
        var scalars = string.unicodeScalars[...]
        while let scalar = scalars.first {
            scalars = scalars.dropFirst()
            guard scalar == "\u{E000}", let end = scalars.firstIndex(of: "\u{E001}"),
                let number = Int(String(String.UnicodeScalarView(scalars[..<end]))), references.indices.contains(number)
            else {
                literal.unicodeScalars.append(scalar)
                continue
            }
            if !literal.isEmpty { pieces.append(.literal(literal)) }
            literal = ""
            pieces.append(.reference(references[number]))
            scalars = scalars[scalars.index(after: end)...]
        }
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        return PlanText(pieces: pieces)
    }
}
