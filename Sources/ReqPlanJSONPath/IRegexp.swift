import Foundation
import ReqPlanSyntax

/// I-Regexp (RFC 9485), the regular expressions of `match()` and `search()`, translated to the ICU
/// syntax of reqplan's own `RegularExpression`.
///
/// The translation parses I-Regexp's grammar, so a pattern that is not I-Regexp (a `(?:`, a lazy
/// quantifier, `\d`) is refused rather than given ICU's meaning; every literal character is written as
/// `\x{…}`, so no character means in ICU what it does not mean in I-Regexp, and `.` becomes `[^\n\r]` as
/// I-Regexp defines it. `^` and `$` anchor at the start and end of the text, as in RFC 9485's mappings to
/// ECMAScript and PCRE (§5.3, §5.4) and in the JSONPath Compliance Test Suite ("explicit caret").
enum IRegexp {
    /// `pattern` compiled, matching the whole text when `anchored` (`match()`), any part of it otherwise
    /// (`search()`); nil when it is not an I-Regexp.
    static func compile(_ pattern: String, anchored: Bool) -> NSRegularExpression? {
        guard let translated = translate(pattern) else { return nil }
        return try? RegularExpression.compile(anchored ? "\\A(?:\(translated))\\z" : "(?:\(translated))")
    }

    /// `pattern` in ICU's syntax, or nil when it is not an I-Regexp.
    static func translate(_ pattern: String) -> String? {
        var translator = Translator(scalars: Array(pattern.unicodeScalars))
        guard let result = translator.regexp(depth: 0), translator.index == translator.scalars.count else {
            return nil
        }
        return result
    }

    private struct Translator {
        let scalars: [Unicode.Scalar]
        var index = 0

        var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        static func literal(_ scalar: Unicode.Scalar) -> String {
            if scalar.properties.isASCIIHexDigit || ("g"..."z").contains(scalar) || ("G"..."Z").contains(scalar) {
                return String(Character(scalar))
            }
            return "\\x{\(String(scalar.value, radix: 16))}"
        }

        /// `i-regexp = branch *( "|" branch )`.
        mutating func regexp(depth: Int) -> String? {
            guard depth < 64 else { return nil }
            var branches: [String] = []
            while true {
                var branch = ""
                while let scalar = peek, scalar != "|", scalar != ")" {
                    guard let piece = piece(depth: depth) else { return nil }
                    branch += piece
                }
                branches.append(branch)
                guard peek == "|" else { return branches.joined(separator: "|") }
                index += 1
            }
        }

        /// `piece = atom [ quantifier ]`.
        mutating func piece(depth: Int) -> String? {
            guard let atom = atom(depth: depth) else { return nil }
            switch peek {
            case "*", "+", "?":
                index += 1
                return atom + String(Character(scalars[index - 1]))
            case "{":
                index += 1
                guard let low = quantity() else { return nil }
                var quantifier = "{\(low)"
                if peek == "," {
                    index += 1
                    quantifier += ","
                    if peek != "}" {
                        guard let high = quantity(), high >= low else { return nil }
                        quantifier += "\(high)"
                    }
                }
                guard peek == "}" else { return nil }
                index += 1
                return atom + quantifier + "}"
            default:
                return atom
            }
        }

        mutating func quantity() -> Int? {
            let start = index
            while let scalar = peek, ("0"..."9").contains(scalar) { index += 1 }
            guard index > start else { return nil }
            return Int(String(String.UnicodeScalarView(scalars[start..<index])))
        }

        /// `atom = NormalChar / charClass / ( "(" i-regexp ")" )`.
        mutating func atom(depth: Int) -> String? {
            guard let scalar = peek else { return nil }
            index += 1
            switch scalar {
            case "(":
                guard let inner = regexp(depth: depth + 1), peek == ")" else { return nil }
                index += 1
                return "(?:\(inner))"
            case ".": return "[^\\n\\r]"
            case "^": return "^"
            case "$": return "\\z"
            case "[": return classExpression()
            case "\\": return escape()
            case ")", "*", "+", "?", "]", "{", "|", "}": return nil
            default: return Self.literal(scalar)
            }
        }

        /// After `\`: `SingleCharEsc`, `\p{…}` or `\P{…}`.
        mutating func escape() -> String? {
            guard let scalar = peek else { return nil }
            index += 1
            switch scalar {
            case "n": return "\\n"
            case "r": return "\\r"
            case "t": return "\\t"
            case "(", ")", "*", "+", "-", ".", "?", "[", "\\", "]", "^", "{", "|", "}": return Self.literal(scalar)
            case "p", "P":
                guard peek == "{" else { return nil }
                index += 1
                let start = index
                while let next = peek, next != "}" { index += 1 }
                let category = String(String.UnicodeScalarView(scalars[start..<index]))
                guard peek == "}", Self.categories.contains(category) else { return nil }
                index += 1
                return "\\\(Character(scalar)){\(category)}"
            default: return nil
            }
        }

        /// The general categories I-Regexp names (`IsCategory`).
        static let categories: Set<String> = [
            "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N", "Nd", "Nl", "No",
            "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "Z", "Zl", "Zp", "Zs",
            "S", "Sc", "Sk", "Sm", "So", "C", "Cc", "Cf", "Cn", "Co",
        ]

        /// After `[`: `[ "^" ] ( "-" / CCE1 ) *CCE1 [ "-" ] "]"`.
        mutating func classExpression() -> String? {
            var result = "["
            if peek == "^" {
                index += 1
                result += "^"
            }
            var isFirst = true
            while true {
                guard let scalar = peek else { return nil }
                if scalar == "]", !isFirst {
                    index += 1
                    return result + "]"
                }
                if scalar == "-" {
                    // Only first, or last before `]`.
                    guard isFirst || (index + 1 < scalars.count && scalars[index + 1] == "]") else { return nil }
                    index += 1
                    result += Self.literal("-")
                    isFirst = false
                    continue
                }
                isFirst = false
                if scalar == "\\", index + 1 < scalars.count, scalars[index + 1] == "p" || scalars[index + 1] == "P" {
                    index += 1
                    guard let category = escape() else { return nil }
                    result += category
                    continue
                }
                guard let low = classCharacter() else { return nil }
                if peek == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                    index += 1
                    guard let high = classCharacter(), low.value <= high.value else { return nil }
                    result += Self.literal(low) + "-" + Self.literal(high)
                } else {
                    result += Self.literal(low)
                }
            }
        }

        /// `CCchar`: a character of a class, or a `SingleCharEsc`.
        mutating func classCharacter() -> Unicode.Scalar? {
            guard let scalar = peek else { return nil }
            index += 1
            switch scalar {
            case "-", "[", "]": return nil
            case "\\":
                guard let escaped = peek else { return nil }
                index += 1
                switch escaped {
                case "n": return "\n"
                case "r": return "\r"
                case "t": return "\t"
                case "(", ")", "*", "+", "-", ".", "?", "[", "\\", "]", "^", "{", "|", "}": return escaped
                default: return nil
                }
            default: return scalar
            }
        }
    }
}
