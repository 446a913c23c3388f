import ReqPlanTestSupport
import Testing

@testable import ReqPlanSyntax

/// Reads a plan of one step `checkout` whose `slo:` is `slo`: lines indented by two spaces, or else a value
/// after `slo:` on its line (` []`).
private func read(_ slo: String) -> ParseResult {
    let text = """
        reqplan: 1
        steps:
          checkout: { request: { url: "http://127.0.0.1/checkout" } }
        slo:\(slo.hasPrefix("  ") ? "\n" + slo : slo)
        """
    return PlanParser.parse(SourceFile(path: "t.yaml", text: text))
}

/// The one error of `result`, recorded as an issue when there are others.
private func onlyError(_ result: ParseResult, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
    -> Diagnostic
{
    let errors = result.diagnostics.filter { $0.severity == .error }
    #expect(errors.count == 1, "\(errors.map { "\($0.code) \($0.message)" })", sourceLocation: sourceLocation)
    return try #require(errors.first, sourceLocation: sourceLocation)
}

@Suite struct ServiceLevelObjectiveReadingTests {
    @Test func everyFormIsReadAndLocated() throws {
        let result = read(
            """
              - step: checkout
                p95: 300ms
                p99.9: "< 1s"
                max: "<=5s"
                mean: 120ms
                error_rate: "< 1%"
              - p99: 2s
                error_rate: 0.5%
            """)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.message))")
        let slo = try #require(result.plan?.slo)
        #expect(slo.count == 2)
        guard case .step(let step) = slo[0].subject else {
            Issue.record("the first item's subject is \(slo[0].subject)")
            return
        }
        #expect(step.value == "checkout")
        #expect(step.range.start == SourceLocation(line: 5, column: 11))
        #expect(slo[0].range.start == SourceLocation(line: 5, column: 5))
        let limits = slo[0].limits
        #expect(limits.map(\.measure) == [.percentile(95), .percentile(99.9), .max, .mean, .errorRate])
        #expect(limits.map(\.comparison) == [.atMost, .lessThan, .atMost, .atMost, .lessThan])
        let milliseconds: [Int?] = [300, 1000, 5000, 120, nil]
        #expect(limits.map(\.latency) == milliseconds.map { $0.map { PlanDuration(milliseconds: $0) } })
        #expect(limits.map(\.fraction) == [nil, nil, nil, nil, 0.01])
        #expect(limits.map(\.key.value) == ["p95", "p99.9", "max", "mean", "error_rate"])
        #expect(limits.map(\.text.value) == ["300ms", "< 1s", "<=5s", "120ms", "< 1%"])
        #expect(limits[1].key.range.start == SourceLocation(line: 7, column: 5))
        #expect(limits[1].text.range.start == SourceLocation(line: 7, column: 12))

        #expect(slo[1].subject == .iteration)
        #expect(slo[1].limits.map(\.measure) == [.percentile(99), .errorRate])
        #expect(slo[1].limits.map(\.fraction) == [nil, 0.005])
        #expect(slo[1].limits.map(\.comparison) == [.atMost, .atMost])
    }

    @Test func noSLOAndAnEmptyOneAreNone() throws {
        #expect(try #require(read(" []").plan).slo.isEmpty)
        #expect(try #require(read(" ").plan).slo.isEmpty)
        #expect(read(" ").diagnostics.isEmpty)
    }

    @Test(arguments: [
        ("p50", 50.0), ("p95", 95), ("p99.9", 99.9), ("p99.99", 99.99), ("p99.9999", 99.9999), ("p0.5", 0.5),
        ("p0.0001", 0.0001), ("p05", 5), ("p99.0", 99),
    ])
    func percentileKeys(key: String, value: Double) throws {
        let result = read("  - { \(key): 1s }")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.message))")
        #expect(result.plan?.slo.first?.limits.first?.measure == .percentile(value))
    }

    @Test(arguments: [
        ("p0", "it is 0"), ("p0.0", "it is 0"), ("p100", "it is 100 or more"), ("p100.0", "it is 100 or more"),
        ("p-1", "without a sign"), ("p+5", "without a sign"), ("p1e3", "exponent"), ("pnan", "`nan` is not a number"),
        ("pinf", "`inf` is not a number"), ("pInfinity", "`Infinity` is not a number"), ("p", "`p` needs a number"),
        ("'p 95'", "a space after `p`"), ("p99.99999", "more than 4 decimals"), ("p95.", "`95.` is not a decimal"),
        ("p.5", "`.5` is not a decimal"), ("p95th", "`95th` is not a decimal"), ("p9223372036854775807", "100 or more"),
        ("p18446744073709551615", "100 or more"), ("p\(String(repeating: "9", count: 400))", "100 or more"),
        ("p0.\(String(repeating: "0", count: 400))1", "more than 4 decimals"),
    ])
    func invalidPercentileKeys(key: String, reason: String) throws {
        let error = try onlyError(read("  - { \(key): 1s }"))
        #expect(error.code == .invalidPercentile)
        #expect(error.message.contains(reason), "\(error.message)")
        #expect(error.range?.start == SourceLocation(line: 5, column: 7))
        #expect(error.hint != nil)
    }

    @Test func theLongestLatencyIsMaxNotP100() throws {
        let error = try onlyError(read("  - { p100: 1s }"))
        #expect(error.hint == "the longest latency is `max`")
    }

    @Test(arguments: [
        ("eror_rate", "error_rate", true), ("pmax", "max", true), ("P95", "p95", true), ("maxx", "max", true),
        ("setp", "step", true), ("error-rate", "error_rate", true), ("'max:'", "max", false),
    ])
    func aMisspeltKeyHasADidYouMeanAndAFixWherePlain(key: String, meant: String, hasFix: Bool) throws {
        let error = try onlyError(read("  - { step: checkout, \(key): 1s, p50: 1s }"))
        #expect(error.code == .unknownKey)
        let written = key.hasPrefix("'") ? String(key.dropFirst().dropLast()) : key
        #expect(error.message == "unknown key `\(written)` in the `slo` item of step `checkout`")
        #expect(error.hint == "did you mean `\(meant)`?")
        if hasFix {
            #expect(
                error.fix
                    == Diagnostic.Fix(title: "Replace `\(key)` with `\(meant)`", replacement: meant, original: key))
        } else {
            #expect(error.fix == nil)
        }
    }

    @Test func anUnknownKeyFarFromAnyListsTheKeys() throws {
        let error = try onlyError(read("  - { percentile: 1s }"))
        #expect(error.code == .unknownKey)
        #expect(error.hint?.contains("a percentile `pN` (such as `p95` or `p99.9`)") == true)
        #expect(error.fix == nil)
    }

    @Test(arguments: [("p95", "p95.0"), ("p99.9", "p99.90"), ("p5", "p05")])
    func theSameFigureTwiceInOneItem(first: String, second: String) throws {
        let error = try onlyError(read("  - { \(first): 1s, \(second): 2s }"))
        #expect(error.code == .conflictingKeys)
        #expect(
            error.message == "`\(second)` in the `slo` item for the whole iteration is the same figure as `\(first)`")
        #expect(error.notes.first?.range?.start == SourceLocation(line: 5, column: 7))
    }

    @Test(arguments: [
        (" { p95: 1s }", DiagnosticCode.wrongType, "`slo` must be a list, found a mapping"),
        (" 95", .wrongType, "`slo` must be a list, found a number"),
        ("  - p95", .wrongType, "item 1 of `slo` must be a mapping, found a string"),
        ("  - [p95, 1s]", .wrongType, "item 1 of `slo` must be a mapping, found a list"),
        ("  -", .wrongType, "item 1 of `slo` must be a mapping, found null"),
        ("  - { step: 1, p95: 1s }", .wrongType, "`step` of item 1 of `slo` must be a string, found a number"),
        ("  - { step: [a], p95: 1s }", .wrongType, "`step` of item 1 of `slo` must be a string, found a list"),
        ("  - { step: checkout }", .missingKey, "the `slo` item of step `checkout` has no limit"),
        ("  - {}", .missingKey, "the `slo` item for the whole iteration has no limit"),
    ])
    func structure(slo: String, code: DiagnosticCode, message: String) throws {
        let error = try onlyError(read(slo))
        #expect(error.code == code)
        #expect(error.message == message)
        #expect(error.range != nil)
        if code == .missingKey { #expect(error.hint?.contains("`p95: 300ms`") == true) }
    }

    @Test(arguments: [
        (
            "300", DiagnosticCode.invalidDuration,
            "duration `300` for `p95` of the `slo` item for the whole iteration has no unit"
        ),
        ("1.5", .invalidDuration, "must be a duration such as `250ms`, `5s` or `2m`, found a number"),
        ("0s", .invalidDuration, "is zero: no latency is below or at zero"),
        ("'< 0ms'", .invalidDuration, "is zero"),
        ("'<= 0s'", .invalidDuration, "is zero"),
        ("8d", .invalidDuration, "invalid duration `8d`"),
        ("169h", .invalidDuration, "invalid duration `169h`"),
        ("'1 s'", .invalidDuration, "invalid duration `1 s`"),
        ("'< 1 s'", .invalidDuration, "invalid duration `1 s`"),
        ("'> 1s'", .invalidValue, "compares with `>`"),
        ("'>= 1s'", .invalidValue, "compares with `>=`"),
        ("'= 1s'", .invalidValue, "compares with `=`"),
        ("'<'", .invalidValue, "has `<` and nothing after it"),
        ("'<=  '", .invalidValue, "has `<=` and nothing after it"),
        ("true", .invalidDuration, "found a boolean"),
        ("{ a: 1 }", .invalidDuration, "found a mapping"),
    ])
    func latencies(value: String, code: DiagnosticCode, message: String) throws {
        let error = try onlyError(read("  - { p95: \(value) }"))
        #expect(error.code == code)
        #expect(error.message.contains(message), "\(error.message)")
        #expect(error.range?.start == SourceLocation(line: 5, column: 12))
    }

    @Test func aLatencyOverAWeekSaysSo() throws {
        let error = try onlyError(read("  - { max: 169h }"))
        #expect(error.hint == "durations are at most 7 days")
    }

    @Test(arguments: [
        ("0%", 0.0, ServiceLevelObjective.Limit.Comparison.atMost), ("'<= 0%'", 0, .atMost), ("100%", 1, .atMost),
        ("'< 100%'", 1, .lessThan), ("'<0.5%'", 0.005, .lessThan), ("'<=   2.5%'", 0.025, .atMost),
        ("0100%", 1, .atMost),
    ])
    func errorRates(value: String, fraction: Double, comparison: ServiceLevelObjective.Limit.Comparison) throws {
        let result = read("  - { error_rate: \(value) }")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.message))")
        let limit = try #require(result.plan?.slo.first?.limits.first)
        #expect(limit.fraction == fraction)
        #expect(limit.comparison == comparison)
        #expect(limit.latency == nil)
    }

    @Test(arguments: [
        ("0.01", DiagnosticCode.wrongType, "must be a percentage such as `\"1%\"`, found a number", "in quotes"),
        ("1", .wrongType, "found a number", "in quotes"),
        ("true", .wrongType, "found a boolean", "write a percentage"),
        ("'1'", .invalidValue, "must be a percentage, found `1`", "add `%`: `\"1%\"`"),
        ("'< 1'", .invalidValue, "must be a percentage, found `< 1`", "add `%`"),
        ("nan%", .invalidValue, "`nan` is not a number from 0 to 100", "from 0% to 100%"),
        ("inf%", .invalidValue, "`inf` is not a number from 0 to 100", "from 0% to 100%"),
        ("1e300%", .invalidValue, "`1e300` has an exponent", "from 0% to 100%"),
        ("-0%", .invalidValue, "without a sign", "from 0% to 100%"),
        ("'+1%'", .invalidValue, "without a sign", "from 0% to 100%"),
        ("101%", .invalidValue, "is more than 100%", "from 0% (none) to 100% (all)"),
        ("100.5%", .invalidValue, "is more than 100%", "from 0% (none) to 100% (all)"),
        ("'< 0%'", .invalidValue, "is below 0%, which no run can meet", "write `0%` to allow no failure"),
        ("'< 0.000%'", .invalidValue, "is below 0%", "write `0%`"),
        ("'1 %'", .invalidValue, "there is a space before `%`", "from 0% to 100%"),
        ("'1.%'", .invalidValue, "`1.` is not a decimal number", "from 0% to 100%"),
        ("'%'", .invalidValue, "there is no number before `%`", "from 0% to 100%"),
        ("'> 1%'", .invalidValue, "compares with `>`", "upper bound"),
    ])
    func invalidErrorRates(value: String, code: DiagnosticCode, message: String, hint: String) throws {
        let error = try onlyError(read("  - { error_rate: \(value) }"))
        #expect(error.code == code)
        #expect(error.message.contains(message), "\(error.message)")
        #expect(error.hint?.contains(hint) == true, "\(error.hint ?? "no hint")")
        #expect(error.range?.start == SourceLocation(line: 5, column: 19))
    }

    /// HOSTILE.md, "Numbers": every number at its limits in every numeric place of `slo` is a clear, located
    /// error, never a trap.
    @Test(arguments: NumberPlaces.hostile)
    func hostileNumbersAreClearErrors(number: String) throws {
        let places = [
            "  - { p95: \(number) }", "  - { max: '< \(number)' }", "  - { mean: '\(number)ms' }",
            "  - { error_rate: \(number) }", "  - { error_rate: '\(number)%' }", "  - { error_rate: '<= \(number)%' }",
            "  - { p\(number): 1s }", "  - { step: \(number), p95: 1s }", " \(number)", "  - \(number)",
        ]
        for place in places {
            let result = read(place)
            let errors = result.diagnostics.filter { $0.severity == .error }
            // No failure allowed: the only places a hostile number is valid.
            if place == "  - { error_rate: '0%' }" || place == "  - { error_rate: '<= 0%' }" {
                #expect(errors.isEmpty, "\(place): \(errors.map(\.message))")
                continue
            }
            #expect(!errors.isEmpty, "\(place) is read without an error")
            for error in errors {
                #expect(error.range != nil, "\(place): \(error.message) has no location")
                #expect(!error.message.isEmpty)
            }
            #expect(result.plan?.slo.isEmpty == true, "\(place)")
        }
    }

    /// A plan long enough to be read in parts reads its `slo:` as when read whole.
    @Test func aLongPlanReadInPartsReadsItsObjectives() throws {
        var text = "reqplan: 1\nslo:\n  - { step: s700, p95: 300ms, error_rate: '< 1%' }\n  - p99.9: 2s\nsteps:\n"
        for number in 0..<(PlanReader.stepsReadInParallel + 200) {
            text += "  s\(number):\n    request: { url: \"http://127.0.0.1/\(number)\" }\n"
        }
        let source = SourceFile(path: "long.yaml", text: text)
        let parts = try #require(PlanParser.parseInParts(source, limits: ParseLimits()))
        let whole = PlanParser.parseWhole(source, limits: ParseLimits())
        #expect(parts.diagnostics.isEmpty && whole.diagnostics.isEmpty)
        let read = try #require(parts.plan?.slo)
        #expect(read.count == 2)
        #expect(read.map(\.subject) == whole.plan?.slo.map(\.subject))
        #expect(read.map(\.range) == whole.plan?.slo.map(\.range))
        #expect(read.flatMap(\.limits).map(\.text) == whole.plan?.slo.flatMap(\.limits).map(\.text))
    }
}
