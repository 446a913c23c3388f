/// Text that came from outside (a body, a header, a reason phrase, a library's error, a file's contents),
/// made safe to show on a terminal or in a CI log: every character a terminal would obey instead of show is
/// shown instead, as `cat -v` and git do, so a server cannot retitle the window (OSC 0), write the clipboard
/// (OSC 52), clear the screen (`ESC[2J`), hide text (`ESC[8m`) or draw a fake green line over a failure.
///
/// - C0 controls in caret notation: ESC as `^[`, BEL as `^G`, CR as `^M`, NUL as `^@`; DEL as `^?`;
/// - C1 controls (U+0080–U+009F, CSI among them), the line and paragraph separators (U+2028, U+2029) and the
///   bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069, which reorder what
///   follows: "Trojan Source") as `<U+202E>`.
///
/// Newlines and tabs are kept by `lines(_:)` (a body, a multi-line message; a carriage return just before a
/// newline too, as CRLF line ends are harmless) and shown by `line(_:)` (a value that must stay on its line:
/// a header, a URL, a reason in a summary line).
public enum VisibleText {
    /// `text` with every control character but newline and tab shown.
    public static func lines(_ text: String) -> String { visible(text, keepingLines: true) }

    /// `text` with every control character shown, newlines and tabs too (`^J`, `^I`).
    public static func line(_ text: String) -> String { visible(text, keepingLines: false) }

    /// The last net before a terminal, for everything a command prints: `text` as `lines(_:)` shows it, except
    /// the escape sequences reqplan's own displays write, kept as they are: colors (`ESC[…m`), cursor up
    /// (`ESC[nA`), erase the line (`ESC[2K`) and erase below (`ESC[J`). Whatever text from outside a future
    /// display forgets to show safely, it cannot move the cursor, clear the screen or talk to the terminal
    /// (OSC); the displays show it safely themselves, so that it cannot color a line either.
    public static func keepingOwnEscapes(_ text: String) -> String {
        guard needsWork(text, keepingLines: true) else { return text }
        var out = ""
        var rest = Substring(text)
        while let escape = rest.firstIndex(of: "\u{1B}") {
            out += lines(String(rest[..<escape]))
            let after = rest[rest.index(after: escape)...]
            if let length = ownSequenceLength(after) {
                out += "\u{1B}" + after.prefix(length)
                rest = after.dropFirst(length)
            } else {
                out += "^["
                rest = after
            }
        }
        return out + lines(String(rest))
    }

    /// The length of the sequence after an ESC when it is one of reqplan's own (see `keepingOwnEscapes`).
    private static func ownSequenceLength(_ text: Substring) -> Int? {
        let scalars = text.unicodeScalars
        guard scalars.first == "[" else { return nil }
        var index = scalars.index(after: scalars.startIndex)
        var parameters = ""
        while index < scalars.endIndex, scalars[index] == ";" || ("0"..."9").contains(scalars[index]),
            parameters.count < 16
        {
            parameters.unicodeScalars.append(scalars[index])
            index = scalars.index(after: index)
        }
        guard index < scalars.endIndex else { return nil }
        let final = scalars[index]
        let allowed: Bool
        switch final {
        case "m": allowed = true
        case "A": allowed = !parameters.isEmpty && !parameters.contains(";")
        case "K": allowed = parameters == "2"
        case "J": allowed = parameters.isEmpty
        default: allowed = false
        }
        return allowed ? 1 + parameters.unicodeScalars.count + 1 : nil
    }

    /// Whether `scalar` is shown rather than written (newline and tab aside).
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F, 0x80...0x9F, 0x2028, 0x2029, 0x061C, 0x200E, 0x200F, 0x202A...0x202E,
            0x2066...0x2069:
            return true
        default:
            return false
        }
    }

    private static func visible(_ text: String, keepingLines: Bool) -> String {
        // Most text has nothing to show: one pass over its bytes says so.
        guard needsWork(text, keepingLines: keepingLines) else { return text }
        var out = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            let endsLine = scalar == "\r" && index + 1 < scalars.count && scalars[index + 1] == "\n"
            if keepingLines && (scalar == "\n" || scalar == "\t" || endsLine) {
                out.append(scalar)
            } else if scalar.value < 0x20 {
                out.append("^")
                out.append(Unicode.Scalar(UInt8(scalar.value) + 0x40))
            } else if scalar.value == 0x7F {
                out.append(contentsOf: "^?".unicodeScalars)
            } else if isControl(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out.append(
                    contentsOf: ("<U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + ">")
                        .unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Whether any byte of `text` may start a character to show: a C0 control or DEL, or a lead byte of the
    /// few multi-byte controls (0xC2 for C1, 0xD8 for U+061C, 0xE2 for U+200E–U+2069).
    private static func needsWork(_ text: String, keepingLines: Bool) -> Bool {
        for byte in text.utf8 {
            switch byte {
            case 0x0A, 0x09: if !keepingLines { return true }
            case 0x00...0x1F, 0x7F, 0xC2, 0xD8, 0xE2: return true
            default: continue
            }
        }
        return false
    }
}
