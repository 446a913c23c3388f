/// Path templates: `/pets/{petId}` split into segments at `/`, each literal text, one parameter, or (as
/// RFC 6570 level 1 and OpenAPI allow) parameters beside text: `{Sid}.json`, `{owner}-{repo}`,
/// `{name}.{ext}`.
public enum APIPathTemplate {
    /// One segment of a path.
    public enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
        /// Text and parameters in one segment, in order: `{Sid}.json` is a parameter, then `.json`.
        case mixed([Piece])
        /// A segment whose text is computed (a `${{ }}` of the plan); matches any segment.
        case computed

        /// The names of its parameters, in order: a reserved expansion's (`{+parent}`) without its `+`.
        public var parameterNames: [String] {
            switch self {
            case .parameter(let name): [APIPathTemplate.parameterName(name)]
            case .mixed(let pieces):
                pieces.compactMap {
                    if case .parameter(let name) = $0 { return APIPathTemplate.parameterName(name) }
                    return nil
                }
            case .literal, .computed: []
            }
        }
    }

    /// A part of a mixed segment.
    public enum Piece: Sendable, Hashable {
        case text(String)
        case parameter(String)
    }

    /// The name of the parameter a template expression names: `{+parent}`, RFC 6570's reserved expansion
    /// (Google's APIs write it for a name whose value holds `/`: `projects/p/locations/l`), names `parent`.
    public static func parameterName(_ expression: String) -> String {
        expression.hasPrefix("+") ? String(expression.dropFirst()) : expression
    }

    /// Whether a template expression is a reserved expansion (`{+parent}`): its value keeps `/` and the
    /// other reserved characters of RFC 3986 rather than percent-encoding them.
    public static func isReserved(_ expression: String) -> Bool { expression.hasPrefix("+") }

    /// The segments of a path template.
    public static func segments(_ path: String) -> [Segment] {
        path.split(separator: "/", omittingEmptySubsequences: true).map { segment(String($0)) }
    }

    /// One segment: `{…}` are parameters (an unclosed `{` is text).
    static func segment(_ text: String) -> Segment {
        var pieces: [Piece] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}"),
            rest.index(after: open) < close
        {
            if open > rest.startIndex { pieces.append(.text(String(rest[..<open]))) }
            pieces.append(.parameter(String(rest[rest.index(after: open)..<close])))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        switch pieces.count {
        case 0: return .literal("")
        case 1:
            if case .parameter(let name) = pieces[0] { return .parameter(name) }
            return .literal(text)
        default: return .mixed(pieces)
        }
    }

    /// Whether a segment of a URL fits a mixed template segment. The URL's text is literal except where
    /// it holds `hole` (a `${{ }}` of the plan), which may stand for any text; each parameter stands for
    /// at least one character.
    static func matches(_ url: String, _ pieces: [Piece], hole: Character = "\u{0}") -> Bool {
        if url.contains(hole) {
            // Computed in part: the literal text before the first hole and after the last must fit the
            // template's text before its first parameter and after its last.
            let head = String(url.prefix { $0 != hole })
            let tail = String(url.reversed().prefix { $0 != hole }.reversed())
            var templateHead = ""
            if case .text(let text)? = pieces.first { templateHead = text }
            var templateTail = ""
            if case .text(let text)? = pieces.last { templateTail = text }
            return (head.hasPrefix(templateHead) || templateHead.hasPrefix(head))
                && (tail.hasSuffix(templateTail) || templateTail.hasSuffix(tail))
        }
        return matches(Substring(url), pieces[...])
    }

    private static func matches(_ url: Substring, _ pieces: ArraySlice<Piece>) -> Bool {
        guard let first = pieces.first else { return url.isEmpty }
        switch first {
        case .text(let text):
            return url.hasPrefix(text) && matches(url.dropFirst(text.count), pieces.dropFirst())
        case .parameter:
            // At least one character, then the rest (backtracking: `{name}.{ext}` on `a.b.c`).
            guard !url.isEmpty else { return false }
            var end = url.index(after: url.startIndex)
            while true {
                if matches(url[end...], pieces.dropFirst()) { return true }
                guard end < url.endIndex else { return false }
                end = url.index(after: end)
            }
        }
    }
}
