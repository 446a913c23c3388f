/// Step ids for imported requests: from the source's names, else from the method and the path
/// (`POST /items` → `post_items`, `GET /items/42` → `get_items`: a segment that looks like an id is left
/// out), unique in the plan (`get_items_2`).
public enum StepNaming {
    /// Gives every step of `plan` its id.
    public static func name(_ plan: inout ImportedPlan) {
        var taken: Set<String> = []
        // The next number to try after each base: a session of 2,000 `get_items` numbers each in one step,
        // not by trying every number taken before it.
        var next: [String: Int] = [:]
        for index in plan.steps.indices {
            let step = plan.steps[index]
            let base =
                step.name.map { identifier($0, fallback: step.method.lowercased(), keepingCase: true) }
                ?? identifier(derivedName(step), fallback: step.method.lowercased())
            var id = base
            var number = next[base] ?? 2
            while taken.contains(id) {
                id = "\(base)_\(number)"
                number += 1
            }
            if id != base { next[base] = number }
            taken.insert(id)
            plan.steps[index].id = id
        }
    }

    /// `text` as a name of the language (`[A-Za-z_][A-Za-z0-9_-]*`): other characters become `_`, runs of
    /// them one, at most 48 characters, in lower case unless `keepingCase` (a name the source gave, such as
    /// a reqplan step's id); `fallback` when nothing is left.
    public static func identifier(_ text: String, fallback: String, keepingCase: Bool = false) -> String {
        var name = ""
        for scalar in (keepingCase ? text : text.lowercased()).unicodeScalars {
            let keep =
                (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9")
                || scalar == "-"
            if keep {
                name.unicodeScalars.append(scalar)
            } else if !name.hasSuffix("_") {
                name += "_"
            }
        }
        while name.hasPrefix("_") || name.hasPrefix("-") { name.removeFirst() }
        while name.hasSuffix("_") || name.hasSuffix("-") { name.removeLast() }
        name = String(name.prefix(48))
        if name.isEmpty { return fallback.isEmpty ? "step" : identifier(fallback, fallback: "step") }
        if let first = name.unicodeScalars.first, first >= "0" && first <= "9" { name = "_" + name }
        return name
    }

    /// `method_segment`, the segment the last of the URL's path that does not look like an id.
    static func derivedName(_ step: ImportedStep) -> String {
        var shown = ""
        for piece in step.url.pieces {
            switch piece {
            case .literal(let text): shown += text
            case .reference: shown += "\u{1}"
            }
        }
        let path = URLParts(shown).path
        let segments = path.split(separator: "/").map(String.init).filter { !looksLikeID($0) }
        guard let last = segments.last else { return step.method.lowercased() }
        return step.method.lowercased() + "_" + last
    }

    /// Whether a path segment is a value rather than a name: a reference, digits, a UUID, a long hex string,
    /// or a mix of letters and digits such as `a1b2c3d4`.
    static func looksLikeID(_ segment: String) -> Bool {
        if segment.contains("\u{1}") || segment.isEmpty { return true }
        let digits = segment.utf8.count { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        if digits == segment.count { return true }
        if segment.count >= 16 && segment.allSatisfy({ $0.isHexDigit || $0 == "-" }) { return true }
        return digits >= 3 && digits * 3 >= segment.count
    }
}

/// The parts of a URL as text: `scheme://authority`, the path, and the query after `?` (without it).
struct URLParts {
    /// Where `://` is in `url`, if it is.
    private static func schemeEnd(of url: String) -> Range<String.Index>? {
        let utf8 = url.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: ":") {
                let slash1 = utf8.index(after: index)
                if slash1 != utf8.endIndex, utf8[slash1] == UInt8(ascii: "/") {
                    let slash2 = utf8.index(after: slash1)
                    if slash2 != utf8.endIndex, utf8[slash2] == UInt8(ascii: "/") {
                        return index..<utf8.index(after: slash2)
                    }
                }
            }
            index = utf8.index(after: index)
        }
        return nil
    }

    /// `https://api.example.com:8443`, or empty for a URL without a scheme.
    var origin: String
    /// From the first `/` after the authority to `?` or `#`.
    var path: String
    /// After `?`, up to `#`; `nil` when there is no `?`.
    var query: String?

    init(_ url: String) {
        var rest = Substring(url)
        // `://` found in the text's UTF-8, not through Foundation's `range(of:)`: every request of a long HAR
        // asks, several times.
        if let schemeEnd = Self.schemeEnd(of: url) {
            let authorityStart = schemeEnd.upperBound
            let authorityEnd = url[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
            origin = String(url[..<authorityEnd])
            rest = url[authorityEnd...]
        } else {
            origin = ""
        }
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        if let mark = rest.firstIndex(of: "?") {
            path = String(rest[..<mark])
            query = String(rest[rest.index(after: mark)...])
        } else {
            path = String(rest)
            query = nil
        }
    }
}
