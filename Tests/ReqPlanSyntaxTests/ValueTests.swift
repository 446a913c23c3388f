import Testing

@testable import ReqPlanSyntax

@Suite struct DurationTests {
    @Test(arguments: [("250ms", 250), ("5s", 5000), ("2m", 120_000), ("1h", 3_600_000), ("1m30s", 90_000)])
    func parsesUnits(text: String, milliseconds: Int) throws {
        #expect(try PlanDuration.parse(text).milliseconds == milliseconds)
    }

    @Test(arguments: ["5", "5 s", "5y", "s", "", "1.5s", "-1s"])
    func rejects(text: String) {
        #expect(throws: PlanDuration.ParseError.self) { try PlanDuration.parse(text) }
    }

    @Test func describesCompactly() {
        #expect(PlanDuration(milliseconds: 90_250).description == "1m30s250ms")
    }
}

@Suite struct StatusPatternTests {
    @Test func codesAndClasses() {
        #expect(StatusPattern.parse("200") == .code(200))
        #expect(StatusPattern.parse("2xx") == .classOf(2))
        #expect(StatusPattern.parse("5XX") == .classOf(5))
        #expect(StatusPattern.parse("700") == nil)
        #expect(StatusPattern.parse("6xx") == nil)
        #expect(StatusPattern.parse("2x") == nil)
        #expect(StatusPattern.classOf(2).matches(204))
        #expect(!StatusPattern.classOf(2).matches(301))
    }
}

@Suite struct JSONTests {
    /// Strings without an escape are taken whole, the others byte by byte from the first escape: both read
    /// the same text, and a control character or an open string is refused where it is.
    @Test func stringsWithAndWithoutEscapesReadAlike() throws {
        let long = String(repeating: "é-x", count: 400)
        #expect(try Value.parseJSON("[\"\(long)\"]") == .list([.string(long)]))
        #expect(try Value.parseJSON("\"\(long)\\n\\u00e9\\ud83c\\udfb2\"") == .string(long + "\né🎲"))
        #expect(try Value.parseJSON("{\"\": \"\"}") == .object([.init("", .string(""))]))
        for (text, offset) in [("\"ab\u{1}c\"", 3), ("\"ab\\n\u{1}\"", 5)] {
            #expect(throws: JSONParseError(message: "control character in string", offset: offset)) {
                try Value.parseJSON(text)
            }
        }
        #expect(throws: JSONParseError.self) { try Value.parseJSON("\"abc") }
        #expect(throws: JSONParseError.self) { try Value.parseJSON("\"abc\\") }
    }

    @Test func roundTripKeepsKeyOrderAndIntegers() throws {
        let text = #"{"z":1,"a":[true,null,2.5,"x\n"],"id":9007199254740993}"#
        let value = try Value.parseJSON(text)
        #expect(value.jsonText() == text)
        #expect(value["id"] == .int(9_007_199_254_740_993))
    }

    @Test(arguments: ["{", "[1,]", "{\"a\" 1}", "tru", "\"abc", "1 2", "01x"])
    func rejectsInvalidJSON(text: String) {
        #expect(throws: JSONParseError.self) { try Value.parseJSON(text) }
    }

    /// RFC 8259 §6: `int = zero / ( digit1-9 *DIGIT )` — a number has no leading zero.
    @Test(arguments: ["012", "-01", "00", "01.5", "-00.5", "[1, 012]", "{\"a\": 007}", "0e", "-", "1.", ".5", "+1"])
    func rejectsNumbersRFC8259DoesNotAllow(text: String) {
        #expect(throws: JSONParseError.self) { try Value.parseJSON(text) }
    }

    @Test(arguments: [
        ("0", Value.int(0)), ("-0", .int(0)), ("10", .int(10)), ("0.5", .double(0.5)), ("-0.05", .double(-0.05)),
        ("0e3", .double(0)), ("100e-2", .double(1)),
    ])
    func readsNumbersRFC8259Allows(text: String, value: Value) throws {
        #expect(try Value.parseJSON(text) == value)
    }

    @Test func aLeadingZeroIsReportedWhereItIs() {
        do {
            _ = try Value.parseJSON("[1, -012]")
            Issue.record("`-012` was read as a number")
        } catch {
            #expect(error.description == "a number cannot start with 0 followed by a digit at byte 5")
        }
    }

    @Test func rejectsDeepNestingWithoutCrashing() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try Value.parseJSON(deep) }
    }

    @Test func decodesSurrogatePairs() throws {
        #expect(try Value.parseJSON(#""\ud83d\ude00""#) == .string("😀"))
    }
}

@Suite struct SuggestionTests {
    @Test func suggestsWithinTwoEdits() {
        #expect(Suggestion.closest(to: "need", in: ["needs", "if"]) == "needs")
        #expect(Suggestion.closest(to: "reqest", in: ["request", "group"]) == "request")
        #expect(Suggestion.closest(to: "banana", in: ["needs", "if"]) == nil)
    }
}
