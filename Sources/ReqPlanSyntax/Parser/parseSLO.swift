// `slo:` — the objectives a load run (`reqplan load`) holds the plan to (grammar.md §4.14): a list of items,
// each the limits of one subject (a step, or the whole iteration). Every number in them is read from text
// by hand (percentiles, durations, percentages), never through a conversion that traps.

extension PlanReader {
    /// The keys of an `slo` item besides its percentiles (`pN`).
    static let sloKeys = ["step", "max", "mean", "error_rate"]
    /// The percentiles offered when a key of an `slo` item is misspelt.
    static let commonPercentiles = ["p50", "p75", "p90", "p95", "p99", "p99.9"]
    /// The most decimals a percentile key has (`p99.9999`).
    static let percentileDecimals = 4

    /// `slo:` — a list of objectives; null is none.
    mutating func readObjectives(_ node: YAMLNode) -> [ServiceLevelObjective] {
        if case .scalar = node, scalarValue(node) == .null { return [] }
        guard let items = sequence(node, "`slo`") else { return [] }
        var result: [ServiceLevelObjective] = []
        for (number, item) in items.enumerated() {
            if let objective = readObjective(item, number: number + 1) { result.append(objective) }
            if budgetExceeded { break }
        }
        return result
    }

    /// One item of `slo:`: `step` (none: the whole iteration) and at least one limit.
    private mutating func readObjective(_ node: YAMLNode, number: Int) -> ServiceLevelObjective? {
        guard case .mapping = node else {
            guard charge(node) else { return nil }
            diagnostics.error(
                .wrongType, "item \(number) of `slo` must be a mapping, found \(describe(node))", at: range(node),
                hint: "write the limits of a step, or of the whole iteration, as in `- { step: checkout, p95: 300ms }`")
            return nil
        }
        guard let fields = mapping(node, "item \(number) of `slo`") else { return nil }
        var subject = ServiceLevelObjective.Subject.iteration
        var what = "the `slo` item for the whole iteration"
        var subjectRead = true
        if let stepNode = fields.value("step") {
            guard charge(stepNode) else { return nil }
            if case .string(let name) = scalarValue(stepNode) {
                subject = .step(Located(name, at: range(stepNode)))
                what = "the `slo` item of step `\(name)`"
            } else {
                diagnostics.error(
                    .wrongType, "`step` of item \(number) of `slo` must be a string, found \(describe(stepNode))",
                    at: range(stepNode),
                    hint: "write the id of one step, as in `step: checkout`; each step has its own items")
                subjectRead = false
                what = "item \(number) of `slo`"
            }
        }
        var limits: [ServiceLevelObjective.Limit] = []
        var firstOf: [ServiceLevelObjective.Limit.Measure: Located<String>] = [:]
        for (key, value) in fields.entries where key.value != "step" {
            guard let measure = measure(of: key, in: what) else { continue }
            if let first = firstOf[measure] {
                diagnostics.error(
                    .conflictingKeys, "`\(key.value)` in \(what) is the same figure as `\(first.value)`",
                    at: key.range, notes: [.init("`\(first.value)` is given here", at: first.range)],
                    hint: "give each figure one limit; remove one of them")
                continue
            }
            firstOf[measure] = key
            if let limit = readLimit(value, measure: measure, key: key, in: what) { limits.append(limit) }
        }
        if !fields.entries.contains(where: { $0.key.value != "step" }) {
            diagnostics.error(
                .missingKey, "\(what) has no limit", at: fields.key("step")?.range ?? range(node),
                hint: "give at least one limit: a percentile (`p50`, `p95`, `p99.9`…), `max`, `mean` or `error_rate`, "
                    + "as in `p95: 300ms`")
            return nil
        }
        guard subjectRead, !limits.isEmpty else { return nil }
        return ServiceLevelObjective(subject: subject, limits: limits, range: range(node))
    }

    /// The figure a key of an `slo` item names, or `nil` after reporting a key that names none.
    private mutating func measure(
        of key: Located<String>, in what: String
    ) -> ServiceLevelObjective.Limit.Measure? {
        switch key.value {
        case "max": return .max
        case "mean": return .mean
        case "error_rate": return .errorRate
        default: break
        }
        switch Self.percentile(key.value) {
        case .value(let value):
            return .percentile(value)
        case .invalid(let reason, hint: let hint):
            diagnostics.error(
                .invalidPercentile, "`\(key.value)` in \(what) is not a percentile: \(reason)", at: key.range,
                hint: hint)
            return nil
        case .notAPercentile:
            let suggestion = Suggestion.replacement(for: key.value, in: Self.sloKeys + Self.commonPercentiles)
            diagnostics.error(
                .unknownKey, "unknown key `\(key.value)` in \(what)", at: key.range,
                hint: suggestion?.hint
                    ?? "allowed keys: `step`, a percentile `pN` (such as `p95` or `p99.9`), `max`, `mean`, "
                    + "`error_rate`",
                fix: suggestion?.fix)
            return nil
        }
    }

    /// What a key makes of a percentile.
    enum PercentileKey: Equatable {
        /// `pN`, N decimal, 0 < N < 100, at most `percentileDecimals` decimals.
        case value(Double)
        /// A key written as a percentile that is not one, why, and what to write.
        case invalid(String, hint: String)
        /// A key that is not written as a percentile at all (`pmax`, `percentile`).
        case notAPercentile
    }

    /// Reads `p` and a decimal number (`p50`, `p99.9`); a `p` followed by anything number-like (a digit, a
    /// sign, a point, a space, `nan`, `inf`, an exponent) is an invalid percentile, anything else no percentile.
    static func percentile(_ key: String) -> PercentileKey {
        guard key.hasPrefix("p") else { return .notAPercentile }
        let written = key.dropFirst()
        let scalars = Array(written.unicodeScalars)
        let isDigit: (Unicode.Scalar) -> Bool = { ("0"..."9").contains($0) }
        let general = "a percentile key is `p` and a decimal number above 0 and below 100, as in `p95` or `p99.9`"
        guard let first = scalars.first else {
            return .invalid("`p` needs a number", hint: general)
        }
        let numberLike = isDigit(first) || ["+", "-", ".", " ", "\t"].contains(first) || Double(String(written)) != nil
        guard numberLike else { return .notAPercentile }
        if first == " " || first == "\t" {
            let trimmed = written.drop { $0 == " " || $0 == "\t" }
            return .invalid("there is a space after `p`", hint: "write `p\(trimmed)`, without a space")
        }
        // Digits, then optionally a point and digits.
        let point = scalars.firstIndex(of: ".")
        let whole = scalars[..<(point ?? scalars.count)]
        let fraction = point.map { scalars[($0 + 1)...] } ?? []
        guard !whole.isEmpty, whole.allSatisfy(isDigit), fraction.allSatisfy(isDigit), point == nil || !fraction.isEmpty
        else {
            if first == "-" || first == "+" {
                return .invalid("a percentile is above 0 and below 100, written without a sign", hint: general)
            }
            let lowered = written.lowercased()
            if lowered.contains("nan") || lowered.contains("inf") {
                return .invalid("`\(written)` is not a number between 0 and 100", hint: general)
            }
            if lowered.contains("e") && Double(String(written)) != nil {
                return .invalid("it has an exponent", hint: "write the number in decimal digits, as in `p99.9`")
            }
            return .invalid("`\(written)` is not a decimal number", hint: general)
        }
        if fraction.count > percentileDecimals {
            return .invalid(
                "it has more than \(percentileDecimals) decimals",
                hint: "a percentile has at most \(percentileDecimals) decimals, as in `p99.9999`")
        }
        // Only digits and one point: `Double` reads it; a long run of digits is at most infinity, never a trap.
        guard let value = Double(String(written)), value > 0, value < 100 else {
            let isZero = whole.allSatisfy { $0 == "0" } && fraction.allSatisfy { $0 == "0" }
            return .invalid(
                isZero ? "it is 0, and a percentile is above 0" : "it is 100 or more, and a percentile is below 100",
                hint: isZero ? general : "the longest latency is `max`")
        }
        return .value(value)
    }

    /// The value of one limit: a latency (`300ms`, `"< 1s"`, `"<= 2s"`) or, for `error_rate`, a percentage
    /// (`"1%"`, `"< 0.5%"`).
    private mutating func readLimit(
        _ node: YAMLNode, measure: ServiceLevelObjective.Limit.Measure, key: Located<String>, in what: String
    ) -> ServiceLevelObjective.Limit? {
        let name = "`\(key.value)` of \(what)"
        guard case .string(let text) = scalarValue(node) else {
            guard measure == .errorRate else {
                // The duration reader's own messages: a number without a unit, a value of another type.
                _ = duration(node, name)
                return nil
            }
            guard charge(node) else { return nil }
            let hint: String
            switch scalarValue(node) {
            case .int, .double, .largeInt:
                hint = "write a percentage in quotes, such as `\"1%\"` (one run in a hundred) or `\"< 0.5%\"`"
            default:
                hint = "write a percentage, such as `\"1%\"` or `\"< 0.5%\"`"
            }
            diagnostics.error(
                .wrongType, "\(name) must be a percentage such as `\"1%\"`, found \(describe(node))", at: range(node),
                hint: hint)
            return nil
        }
        guard charge(node) else { return nil }
        let located = Located(text, at: range(node))
        let example = measure == .errorRate ? "1%" : "300ms"
        guard let bound = comparison(of: located, name, example: example) else { return nil }
        if measure == .errorRate {
            guard let fraction = percentage(bound.rest, comparison: bound.comparison, written: located, name) else {
                return nil
            }
            return ServiceLevelObjective.Limit(
                measure: measure, comparison: bound.comparison, fraction: fraction, key: key, text: located)
        }
        guard let latency = parsedDuration(String(bound.rest), name, at: located.range) else { return nil }
        if latency.milliseconds == 0 {
            diagnostics.error(
                .invalidDuration, "\(name) is zero: no latency is below or at zero, so it could never be met",
                at: located.range, hint: "give the latency the figure must stay under, such as `300ms`")
            return nil
        }
        return ServiceLevelObjective.Limit(
            measure: measure, comparison: bound.comparison, latency: latency, key: key, text: located)
    }

    /// The comparator in front of a limit (`<`, `<=`, none: `<=`) and the text after it and its spaces;
    /// `nil` after reporting another comparator, or nothing after it.
    private mutating func comparison(
        of text: Located<String>, _ name: String, example: String
    ) -> (comparison: ServiceLevelObjective.Limit.Comparison, rest: Substring)? {
        let value = text.value[...]
        let comparison: ServiceLevelObjective.Limit.Comparison
        var rest: Substring
        if value.hasPrefix("<=") {
            comparison = .atMost
            rest = value.dropFirst(2)
        } else if value.hasPrefix("<") {
            comparison = .lessThan
            rest = value.dropFirst()
        } else if let first = value.first, [">", "=", "!", "≤", "≥", "≠"].contains(first) {
            diagnostics.error(
                .invalidValue, "\(name) compares with `\(value.prefix { "<>=!≤≥≠".contains($0) })`", at: text.range,
                hint: "a limit is an upper bound: write it bare (at most), or after `<` or `<=`")
            return nil
        } else {
            return (.atMost, value)
        }
        rest = rest.drop { $0 == " " }
        if rest.isEmpty {
            diagnostics.error(
                .invalidValue, "\(name) has `\(comparison.rawValue)` and nothing after it", at: text.range,
                hint: "write the limit after it, as in `\"\(comparison.rawValue) \(example)\"`")
            return nil
        }
        return (comparison, rest)
    }

    /// `N%` as a fraction (N / 100), N a decimal number from 0 to 100; `nil` after reporting anything else.
    private mutating func percentage(
        _ text: Substring, comparison: ServiceLevelObjective.Limit.Comparison, written: Located<String>,
        _ name: String
    ) -> Double? {
        let example = "write a percentage from 0% to 100%, such as `\"1%\"` or `\"< 0.5%\"`"
        guard text.hasSuffix("%") else {
            let digits = text.allSatisfy { ("0"..."9").contains($0) || $0 == "." }
            diagnostics.error(
                .invalidValue, "\(name) must be a percentage, found `\(written.value)`", at: written.range,
                hint: digits && !text.isEmpty ? "add `%`: `\"\(written.value)%\"`" : example)
            return nil
        }
        let number = text.dropLast()
        let scalars = Array(number.unicodeScalars)
        let isDigit: (Unicode.Scalar) -> Bool = { ("0"..."9").contains($0) }
        let point = scalars.firstIndex(of: ".")
        let whole = scalars[..<(point ?? scalars.count)]
        let fraction = point.map { scalars[($0 + 1)...] } ?? []
        guard !whole.isEmpty, whole.allSatisfy(isDigit), fraction.allSatisfy(isDigit), point == nil || !fraction.isEmpty
        else {
            let lowered = number.lowercased()
            let reason: String
            if number.isEmpty {
                reason = "there is no number before `%`"
            } else if number.first == "-" || number.first == "+" {
                reason = "a rate is from 0% to 100%, written without a sign"
            } else if lowered.contains("nan") || lowered.contains("inf") {
                reason = "`\(number)` is not a number from 0 to 100"
            } else if lowered.contains("e") && Double(String(number)) != nil {
                reason = "`\(number)` has an exponent; write the number in decimal digits"
            } else if number.hasSuffix(" ") {
                reason = "there is a space before `%`"
            } else {
                reason = "`\(number)` is not a decimal number"
            }
            diagnostics.error(
                .invalidValue, "\(name) is not a percentage: \(reason)", at: written.range, hint: example)
            return nil
        }
        // Only digits and one point: `Double` reads it; a long run of digits is at most infinity, never a trap.
        guard let percent = Double(String(number)), percent <= 100 else {
            diagnostics.error(
                .invalidValue, "\(name) is more than 100%", at: written.range,
                hint: "a rate is the share of runs that failed, from 0% (none) to 100% (all)")
            return nil
        }
        if percent == 0 && comparison == .lessThan {
            diagnostics.error(
                .invalidValue, "\(name) is below 0%, which no run can meet", at: written.range,
                hint: "write `0%` to allow no failure")
            return nil
        }
        return percent / 100
    }
}
