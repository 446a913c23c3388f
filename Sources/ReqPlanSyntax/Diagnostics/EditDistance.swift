/// Suggestions for misspelled names ("did you mean `needs`?").
public enum Suggestion {
    /// The edit distance between two strings (optimal string alignment: insertions, deletions,
    /// substitutions and transpositions of neighbours each cost one, so `nmae` is one edit from
    /// `name`), compared case-insensitively.
    /// - Complexity: O(*m* × *n*).
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased().unicodeScalars)
        let b = Array(b.lowercased().unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = Swift.min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }

    /// The candidate closest to `name` within `maxDistance` edits, preferring the
    /// earliest candidate on ties; `nil` when none is close enough.
    public static func closest<S: Sequence>(to name: String, in candidates: S, maxDistance: Int = 2) -> String?
    where S.Element == String {
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != name {
            let distance = editDistance(name, candidate)
            guard distance <= maxDistance else { continue }
            // A one-letter name is "close" to every other short name; require real overlap.
            guard distance < max(name.count, candidate.count) else { continue }
            // Two edits in a name of four letters or fewer leave too little of it (`len` is
            // not `set`), unless one name begins the other (`pet` for `petId`).
            guard distance <= 1 || min(name.count, candidate.count) > 4 || isPrefix(name, candidate) else { continue }
            if let current = best, current.distance <= distance { continue }
            best = (candidate, distance)
        }
        return best?.name
    }

    private static func isPrefix(_ a: String, _ b: String) -> Bool {
        let (a, b) = (a.lowercased(), b.lowercased())
        return a.hasPrefix(b) || b.hasPrefix(a)
    }

    /// "did you mean `x`?" for the closest candidate, or `nil`.
    public static func didYouMean<S: Sequence>(_ name: String, in candidates: S) -> String?
    where S.Element == String {
        closest(to: name, in: candidates).map { "did you mean `\($0)`?" }
    }
}
