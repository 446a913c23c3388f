/// A duration written in a plan: `250ms`, `5s`, `2m`, `1h`, or a sum such as `1m30s`.
public struct PlanDuration: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The length in milliseconds.
    public var milliseconds: Int

    /// Creates a duration from milliseconds.
    public init(milliseconds: Int) {
        self.milliseconds = milliseconds
    }

    /// The longest duration a plan may write (a week), which every duration read from outside is held to.
    public static let maximum = PlanDuration(milliseconds: 7 * 24 * 3_600_000)

    /// The duration as a Swift `Duration`.
    public var duration: Duration { .milliseconds(milliseconds) }

    public static func < (lhs: PlanDuration, rhs: PlanDuration) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// The shortest way to write it back: `250ms`, `5s`, `1m30s`.
    public var description: String {
        if milliseconds == 0 { return "0s" }
        var rest = milliseconds
        var out = ""
        for (unit, size) in [("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1)] where rest >= size {
            out += "\(rest / size)\(unit)"
            rest %= size
        }
        return out
    }

    /// Why a text is not a duration.
    public enum ParseError: Error, Sendable, Equatable {
        case empty
        case missingUnit
        case unknownUnit(String)
        case malformed
        case tooLong
    }

    /// Parses `250ms`, `5s`, `2m`, `1h`, `1m30s` (units `ms`, `s`, `m`, `h`; whole numbers).
    /// - Throws: `ParseError` saying what is wrong.
    public static func parse(_ text: String) throws(ParseError) -> PlanDuration {
        let scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty else { throw .empty }
        var index = 0
        var total = 0
        while index < scalars.count {
            var number = 0
            var digits = 0
            while index < scalars.count, ("0"..."9").contains(scalars[index]) {
                number = number * 10 + Int(scalars[index].value - 48)
                digits += 1
                index += 1
                if number > 100_000_000 { throw .tooLong }
            }
            guard digits > 0 else { throw .malformed }
            var unit = ""
            while index < scalars.count, !("0"..."9").contains(scalars[index]) {
                unit.unicodeScalars.append(scalars[index])
                index += 1
            }
            if unit.unicodeScalars.contains(where: { $0 == " " || $0 == "\t" }) { throw .malformed }
            let size: Int
            switch unit {
            case "ms": size = 1
            case "s": size = 1000
            case "m": size = 60_000
            case "h": size = 3_600_000
            case "": throw (index < scalars.count ? .malformed : .missingUnit)
            default: throw .unknownUnit(unit)
            }
            total += number * size
            if total > maximum.milliseconds { throw .tooLong }
        }
        return PlanDuration(milliseconds: total)
    }
}
