import ReqPlanSyntax
import Testing

@testable import ReqPlanXPath

/// Documents a server may send to break `xpath()`: deep nesting, entity bombs, and expressions that
/// nest without parentheses (HOSTILE.md).
@Suite struct XPathHostileInputTests {
    /// `depth` elements `a`, each in the one before, around the text `x`.
    static func nested(_ depth: Int) -> String {
        String(repeating: "<a>", count: depth) + "x" + String(repeating: "</a>", count: depth)
    }

    static func value(_ expression: String, _ document: String) throws -> Value {
        try XPath.compile(expression).evaluate(onDocument: document)
    }

    /// A chain of operators is a tree as deep as it is long: 300,000 `or`s overflowed the stack.
    @Test func refusesExpressionsWithMoreOperatorsThanTheLimit() throws {
        let longest = Array(repeating: "1", count: XPathParser.maxOperators + 1).joined(separator: " + ")
        #expect(try Self.value(longest, "<a/>") == .int(XPathParser.maxOperators + 1))
        for expression in [
            Array(repeating: "a", count: 300_000).joined(separator: " or "),
            "count(" + Array(repeating: "a", count: XPathParser.maxOperators + 2).joined(separator: "|") + ")",
        ] {
            do {
                _ = try XPath.compile(expression)
                Issue.record("an expression with too many operators compiled")
            } catch {
                #expect(error.message == "the expression has more than 1024 operators")
            }
        }
    }
}
