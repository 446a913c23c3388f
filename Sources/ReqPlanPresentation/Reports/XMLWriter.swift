/// A small writer of indented XML elements, with the escaping XML 1.0 needs.
struct XMLWriter {
    private(set) var text = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
    private var open: [String] = []

    /// Opens `<name attributes…>`.
    mutating func start(_ name: String, _ attributes: [(String, String)] = []) {
        text += indent + "<" + name + Self.attributes(attributes) + ">\n"
        open.append(name)
    }

    /// Closes the innermost open element.
    mutating func end() {
        guard let name = open.popLast() else { return }
        text += indent + "</" + name + ">\n"
    }

    /// Writes `<name attributes…/>`, or `<name …>content</name>` when there is content.
    mutating func element(_ name: String, _ attributes: [(String, String)] = [], content: String? = nil) {
        let head = indent + "<" + name + Self.attributes(attributes)
        if let content, !content.isEmpty {
            text += head + ">" + Self.escapeText(content) + "</" + name + ">\n"
        } else {
            text += head + "/>\n"
        }
    }

    private var indent: String { String(repeating: "  ", count: open.count) }

    private static func attributes(_ attributes: [(String, String)]) -> String {
        attributes.map { " " + $0.0 + "=\"" + escapeAttribute($0.1) + "\"" }.joined()
    }

    /// Text content: `&`, `<`, `>` escaped; characters XML 1.0 cannot carry replaced by U+FFFD.
    static func escapeText(_ text: String) -> String { escape(text, attribute: false) }

    /// An attribute value (in double quotes): also `"` escaped, and tabs and line breaks as
    /// character references so that parsers keep them.
    static func escapeAttribute(_ text: String) -> String { escape(text, attribute: true) }

    private static func escape(_ text: String, attribute: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\r": out += "&#13;"
            case "\"" where attribute: out += "&quot;"
            case "\n" where attribute: out += "&#10;"
            case "\t" where attribute: out += "&#9;"
            default: out.unicodeScalars.append(allowed(scalar))
            }
        }
        return out
    }

    /// `scalar`, or U+FFFD when XML 1.0 does not allow it (control characters, U+FFFE, U+FFFF).
    private static func allowed(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: scalar
        default: "\u{FFFD}"
        }
    }
}
