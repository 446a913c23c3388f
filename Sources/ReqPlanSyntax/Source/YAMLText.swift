/// Scalars and comments as YAML text that reads back as the same value, whatever the value holds.
///
/// A value is written plain only when it is made of letters, digits and `_ - . /` and starts with a
/// letter, `_` or `/`, and YAML 1.1 or 1.2 would not read it as anything but text (`yes`, `null`, `on`); every
/// other value is double-quoted, with every character that could end the line, be taken for syntax or
/// change the terminal escaped (`\n`, `\0`, `\x1B`, `\u2028`).
public enum YAMLText {
    /// `text` as a YAML scalar that reads back as the string `text`.
    public static func scalar(_ text: String) -> String {
        isPlainSafe(text) ? text : quoted(text)
    }

    /// `text` double-quoted, escaped.
    public static func quoted(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\t": output += "\\t"
            case "\r": output += "\\r"
            case "\0": output += "\\0"
            case "\u{85}": output += "\\N"
            case "\u{2028}": output += "\\L"
            case "\u{2029}": output += "\\P"
            case let other where needsEscape(other): output += hexEscape(other)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    /// A comment line's text: on one line, every control and invisible character shown as an escape, so no
    /// value in a comment can end it or reach a terminal that shows the plan.
    public static func comment(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            if scalar == "\t" {
                output += " "
            } else if needsEscape(scalar) || scalar == "\n" || scalar == "\r" || scalar == "\0" {
                output += hexEscape(scalar)
            } else {
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// Words YAML 1.1 (and so many tools) reads as booleans or null; quoted though 1.2 reads most as text.
    private static let specialWords: Set<String> = [
        "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~",
    ]

    private static func isPlainSafe(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, !specialWords.contains(text.lowercased()) else { return false }
        guard first.isASCIILetter || first == "_" || first == "/" else { return false }
        return text.unicodeScalars.allSatisfy {
            $0.isASCIILetter || $0.isASCIIDigit || "_-./".unicodeScalars.contains($0)
        }
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || value == 0xFEFF || (0x2028...0x2029).contains(value)
            || (0x200B...0x200F).contains(value) || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value) || (0xD800...0xDFFF).contains(value) || value == 0xFFFE
            || value == 0xFFFF
    }

    private static func hexEscape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        if scalar.value <= 0xFF { return "\\x" + String(repeating: "0", count: 2 - hex.count) + hex }
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { (self >= "a" && self <= "z") || (self >= "A" && self <= "Z") }
    fileprivate var isASCIIDigit: Bool { self >= "0" && self <= "9" }
}
