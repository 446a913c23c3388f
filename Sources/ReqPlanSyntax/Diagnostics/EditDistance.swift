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

    /// "did you mean `x`?" for the closest candidate, or `nil`. Where the diagnostic's range holds exactly
    /// the misspelt name, `replacement(for:in:)` gives the fix with it.
    public static func didYouMean<S: Sequence>(_ name: String, in candidates: S) -> String?
    where S.Element == String {
        closest(to: name, in: candidates).map(hint)
    }

    /// A did-you-mean with its one candidate: the hint as the diagnostic shows it, and the fix that writes
    /// the candidate in place of the misspelt name.
    public struct Replacement: Sendable, Hashable {
        /// "did you mean `x`?".
        public var hint: String
        /// "Replace `y` with `x`", safe; `nil` when either name is more than letters, digits, `_` and `-`,
        /// whose text in the file may differ from the name (quotes, escapes).
        public var fix: Diagnostic.Fix?
    }

    /// The did-you-mean for the closest candidate to `name`, with its fix, or `nil`: for a diagnostic whose
    /// range holds exactly `name` (a key, a step id, an input), so the fix replaces the name and nothing else.
    /// The hint is `didYouMean(_:in:)`'s.
    public static func replacement<S: Sequence>(for name: String, in candidates: S) -> Replacement?
    where S.Element == String {
        closest(to: name, in: candidates).map { candidate in
            Replacement(hint: hint(candidate), fix: fix(replacing: name, with: candidate))
        }
    }

    /// The safe fix that writes `candidate` where `name` is, when both are plain names.
    public static func fix(replacing name: String, with candidate: String) -> Diagnostic.Fix? {
        guard isPlainName(name), isPlainName(candidate), name != candidate else { return nil }
        return Diagnostic.Fix(
            title: "Replace `\(name)` with `\(candidate)`", replacement: candidate, isSafe: true, original: name)
    }

    private static func hint(_ candidate: String) -> String { "did you mean `\(candidate)`?" }

    /// Whether `text` is one name, written as it reads: ASCII letters, digits, `_` and `-`.
    private static func isPlainName(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_"
                        || scalar == "-")
            }
    }
}
