/// A JSON pointer (RFC 6901): `/a/b~1c` names member `b/c` of member `a`. Arazzo's runtime expressions
/// (`$response.body#/id`), its payload replacements' targets, and `set(value, pointer, new)` read them.
public enum JSONPointer {
    /// Why a text is not a JSON pointer.
    public struct SyntaxError: Error, Sendable, Hashable {
        public var message: String
    }

    /// The reference tokens of `text`: `/a/b~1c` is `a`, `b/c`; the empty pointer has none.
    public static func tokens(_ text: String) throws(SyntaxError) -> [String] {
        if text.isEmpty { return [] }
        guard text.hasPrefix("/") else { throw SyntaxError(message: "a JSON pointer starts with `/`") }
        var tokens: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var index = raw.startIndex
            while index < raw.endIndex {
                let character = raw[index]
                if character == "~" {
                    let next = raw.index(after: index)
                    guard next < raw.endIndex, raw[next] == "0" || raw[next] == "1" else {
                        throw SyntaxError(message: "`~` in a JSON pointer is written `~0`, and `/` is `~1`")
                    }
                    token.append(raw[next] == "0" ? "~" : "/")
                    index = raw.index(after: next)
                } else {
                    token.append(character)
                    index = raw.index(after: index)
                }
            }
            tokens.append(token)
        }
        return tokens
    }

    /// `value` with `new` at `tokens`: a member an object does not have is added (at the last token only), a
    /// list's item replaced, and `-` appends to a list. Nil when the place's parent is not in `value` (a
    /// member missing on the way, an index past the end, a token into a string or a number).
    public static func setting(_ new: Value, at tokens: ArraySlice<String>, in value: Value) -> Value? {
        guard let first = tokens.first else { return new }
        let rest = tokens.dropFirst()
        switch value {
        case .object(var fields):
            if let index = fields.firstIndex(where: { $0.key == first }) {
                guard let changed = setting(new, at: rest, in: fields[index].value) else { return nil }
                fields[index].value = changed
            } else {
                guard rest.isEmpty else { return nil }
                fields.append(.init(first, new))
            }
            return .object(fields)
        case .list(var items):
            if first == "-", rest.isEmpty {
                items.append(new)
                return .list(items)
            }
            guard let index = index(first), items.indices.contains(index),
                let changed = setting(new, at: rest, in: items[index])
            else { return nil }
            items[index] = changed
            return .list(items)
        default:
            return nil
        }
    }

    /// A token as a list index: decimal digits, without a leading zero (RFC 6901 §4).
    public static func index(_ token: String) -> Int? {
        guard !token.isEmpty, token.utf8.allSatisfy({ (48...57).contains($0) }),
            token == "0" || !token.hasPrefix("0")
        else { return nil }
        return Int(token)
    }
}
