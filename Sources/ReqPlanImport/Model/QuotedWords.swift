/// Words of a line that may quote some of them (a Hurl assert, an Insomnia template tag): split at the
/// separators outside quotes; a quote's text is one word, a `\` inside it escaping the next character.
struct QuotedWords {
    /// The characters that open and close a quoted word.
    var quotes: Set<Character> = ["\""]
    /// The characters between words.
    var separators: Set<Character> = [" "]
    /// Characters that open a quote only at a word's start (Hurl's `/regex/`).
    var quotesAtStart: Set<Character> = []
    /// Whether a quoted word keeps its quotes and escapes (to be read later), or is its text alone.
    var keepingQuotes = true

    /// The words of `line`.
    func split(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var escaped = false
        for character in line {
            if let open = quote {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == open {
                    quote = nil
                    if !keepingQuotes { continue }
                }
                current.append(character)
            } else if quotes.contains(character) || (quotesAtStart.contains(character) && current.isEmpty) {
                quote = character
                if keepingQuotes { current.append(character) }
            } else if separators.contains(character) {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
