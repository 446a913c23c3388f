import Foundation
import Synchronization

/// Why a pattern is not a regular expression.
public struct RegularExpressionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The engine's reason, in words.
    public var reason: String

    public var description: String { reason }
}

/// The language's regular expressions (`matches`, `match()`): ICU syntax, through Foundation's
/// `NSRegularExpression`.
public enum RegularExpression {
    /// Patterns compiled so far: a plan's patterns are literals, evaluated once per response (a `match()`
    /// in a for_each of 2,000 items compiles once). Bounded: emptied when it reaches `cacheLimit`.
    private static let cache = Mutex<[String: NSRegularExpression]>([:])
    private static let cacheLimit = 256

    /// Compiles `pattern` (or finds it compiled already).
    /// - Throws: `RegularExpressionError` with the reason it is not a regular expression.
    public static func compile(_ pattern: String) throws(RegularExpressionError) -> NSRegularExpression {
        if let regex = cache.withLock({ $0[pattern] }) { return regex }
        if let regex = try? NSRegularExpression(pattern: pattern) {
            cache.withLock { cache in
                if cache.count >= cacheLimit { cache.removeAll(keepingCapacity: true) }
                cache[pattern] = regex
            }
            return regex
        }
        // On Linux, NSRegularExpression's error gives no reason (ICU's status is not kept), so the reason
        // comes from the standard library's parser, whose syntax is ICU's for what plans use (groups,
        // classes, quantifiers, escapes).
        let reason: String
        do {
            _ = try Regex(pattern)
            reason = "ICU does not accept it"
        } catch {
            reason = "\(error)"
        }
        throw RegularExpressionError(reason: reason)
    }

    /// The first match of `regex` in `text`: the whole match first, then each capture group
    /// (`nil` for a group that took no part in the match); `nil` when nothing matches.
    ///
    /// ICU backtracks without end on some patterns (`(a*)*b` on a long run of `a`), and the text is a
    /// server's: the match runs under `EvaluationLimits.current`, ICU asking every half millisecond or so
    /// whether to go on (`reportProgress`), which stops it at the deadline, after the longest evaluation, or
    /// when the task is cancelled.
    /// - Throws: `EvaluationStopped` when the match was stopped.
    public static func firstMatch(of regex: NSRegularExpression, in text: String) throws(EvaluationStopped)
        -> [String?]?
    {
        let meter = EvaluationMeter()
        var found: NSTextCheckingResult?
        var stopped: EvaluationStopped?
        // Checked once before: a run that was cancelled, or is past its deadline, does not start a match.
        try meter.check()
        regex.enumerateMatches(in: text, options: [.reportProgress], range: NSRange(text.startIndex..., in: text)) {
            result, _, stop in
            if let result {
                found = result
                stop.pointee = true
                return
            }
            do throws(EvaluationStopped) {
                try meter.check()
            } catch {
                stopped = error
                stop.pointee = true
            }
        }
        if let stopped { throw stopped }
        guard let match = found else { return nil }
        return (0..<match.numberOfRanges).map { group in
            Range(match.range(at: group), in: text).map { String(text[$0]) }
        }
    }

    /// Why `firstMatch(of:in:)` on a pattern gave no answer: the pattern is not a regular expression, or the
    /// match was stopped.
    public enum MatchFailure: Error, Sendable {
        case invalid(RegularExpressionError)
        case stopped(EvaluationStopped)
    }

    /// The first match of `pattern` in `text`, as `firstMatch(of:in:)`.
    /// - Throws: `MatchFailure` when `pattern` is not a regular expression, or the match was stopped.
    public static func firstMatch(of pattern: String, in text: String) throws(MatchFailure) -> [String?]? {
        let regex: NSRegularExpression
        do {
            regex = try compile(pattern)
        } catch {
            throw .invalid(error)
        }
        do {
            return try firstMatch(of: regex, in: text)
        } catch {
            throw .stopped(error)
        }
    }
}
