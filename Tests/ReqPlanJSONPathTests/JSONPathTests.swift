import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanJSONPath

/// What the compliance suite does not check: the position and reason of compile errors (the planner
/// places RP0117 by them), the bound on nodelists, and I-Regexp's translation to ICU.
@Suite(.timeSensitive) struct JSONPathTests {
    @Test(arguments: [
        ("$[?@.a", "expected `,` or `]`, found the end of the query at character 7"),
        ("$.a..", "expected a member name or `*` after `..`, found the end of the query at character 6"),
        ("$[01]", "an integer does not start with `0` unless it is `0` at character 3"),
        (
            "$[9007199254740992]",
            "`9007199254740992` is outside the integers JSONPath allows, ±(2^53 − 1) at character 3"
        ),
        (
            "$[?@.* == 1]",
            "a query compared must be singular: only `.name`, `['name']` and `[index]`, with no blanks inside brackets at character 4"
        ),
        // `name-segment = "[" name-selector "]"`: RFC 9535 allows no blanks there (blanks between segments are fine).
        (
            "$[?@[ 'a' ] == 1]",
            "a query compared must be singular: only `.name`, `['name']` and `[index]`, with no blanks inside brackets at character 4"
        ),
        ("$[?length(@.a)]", "`length()` gives a value, not a logical result: compare it at character 4"),
        ("$[?count(1) > 0]", "`count()` takes a query (`@…` or `$…`) here at character 10"),
        (
            "$[?size(@) > 0]",
            "unknown function `size` (the functions are `length()`, `count()`, `match()`, `search()`, `value()`) at character 4"
        ),
        // Int.min has no absolute value: checking the bound by `abs` trapped.
        (
            "$[-9223372036854775808]",
            "`-9223372036854775808` is outside the integers JSONPath allows, ±(2^53 − 1) at character 3"
        ),
        (
            "$[1:2:-9223372036854775808]",
            "`-9223372036854775808` is outside the integers JSONPath allows, ±(2^53 − 1) at character 7"
        ),
        (
            "$[-9223372036854775809]",
            "`-9223372036854775809` is outside the integers JSONPath allows, ±(2^53 − 1) at character 3"
        ),
        ("$['a\\x']", "`\\x` is not an escape of a string at character 5"),
        (
            "$[?@.é == 'ü' && @.b ==]",
            "expected a query (`@` or `$`), a literal, a function call, `!` or `(`, found `]` at character 24"
        ),
    ])
    func compileErrorsSayWhereAndWhy(query: String, message: String) {
        #expect(throws: JSONPathError.self) { try JSONPath.compile(query) }
        do {
            _ = try JSONPath.compile(query)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test(arguments: ["$[?@ ['a b'] [0] == 1]", "$[?length(@.a['x y'][-1]) > 0]", "$[ 0 , 1 ]"])
    func singularQueriesWithBlanksBetweenSegmentsCompile(query: String) throws {
        _ = try JSONPath.compile(query)
    }

    @Test func deeplyNestedQueryIsAnErrorNotACrash() {
        let query = "$[?" + String(repeating: "(", count: 10_000) + "@" + String(repeating: ")", count: 10_000) + "]"
        #expect(throws: JSONPathError.self) { try JSONPath.compile(query) }
    }

    @Test func nodelistPastTheBoundIsAnError() throws {
        let query = try JSONPath.compile("$[*,*][*,*][*,*]")
        let document = Value.list([.list([.list([.int(1), .int(2)])])])
        let evaluator = JSONPathEvaluator(root: document, maximumNodes: 16)
        #expect(try evaluator.select(query.query, current: document).count == 16)
        let bounded = JSONPathEvaluator(root: document, maximumNodes: 15)
        #expect(throws: JSONPathEvaluationError.self) { try bounded.select(query.query, current: document) }
    }

    @Test(arguments: [
        ("a.c", #"a[^\n\r]c"#),
        ("^ab$", #"^ab\z"#),
        (#"\^[$^]"#, #"\x{5e}[\x{24}\x{5e}]"#),
        (#"[a-z\]]+"#, #"[a-z\x{5d}]+"#),
        (#"\p{Lu}{2,3}"#, #"\p{Lu}{2,3}"#),
        ("(x|y)?", "(?:x|y)?"),
    ])
    func iRegexpBecomesICUWithItsOwnMeaning(pattern: String, icu: String) {
        #expect(IRegexp.translate(pattern) == icu)
    }

    @Test(arguments: [#"\d"#, "(?:a)", "a*?", "[]", "a{3,2}", #"\p{Xx}"#, "a)", "[a-b-c]"])
    func patternsOutsideIRegexpAreRefused(pattern: String) {
        #expect(IRegexp.translate(pattern) == nil)
    }
}

/// A query a server's body makes long (an absolute query per item: quadratic) stops within the evaluation's
/// limits (`EvaluationLimits`): its steps, its deadline, its task's cancellation.
@Suite(.timeSensitive) struct JSONPathBudgetTests {
    static let numbers = Value.list((0..<100_000).map { .int($0) })
    static let quadratic = "$[?count($[*]) > 1]"

    private func stop(_ limits: EvaluationLimits) throws -> EvaluationStopped? {
        let query = try JSONPath.compile(Self.quadratic)
        do {
            _ = try EvaluationLimits.$current.withValue(limits) { try query.select(in: Self.numbers) }
            return nil
        } catch let error as JSONPathEvaluationError {
            return error.stopped
        }
    }

    @Test func aQuadraticFilterStopsAtItsSteps() throws {
        #expect(try stop(EvaluationLimits(maxSteps: 1_000_000))?.reason == .budget)
    }

    @Test func aQuadraticFilterStopsAtItsDeadline() throws {
        let limits = EvaluationLimits(
            maxSteps: .max, deadline: ContinuousClock.now.advanced(by: .milliseconds(100)), deadlineName: "the test's")
        let stopped = try stop(limits)
        #expect(stopped?.reason == .deadline)
        #expect(stopped?.message == "the test's ran out")
    }

    @Test func aQuadraticFilterStopsWhenItsTaskIsCancelled() async throws {
        let query = try JSONPath.compile(Self.quadratic)
        // Unstructured, so the test can cancel it while it evaluates; detached, so the evaluation does not hold
        // the test's own thread.
        let task = Task.detached {
            EvaluationLimits.$current.withValue(EvaluationLimits(maxSteps: .max, maxDuration: .seconds(600))) {
                do {
                    _ = try query.select(in: Self.numbers)
                    return EvaluationStopped.Reason?.none
                } catch let error as JSONPathEvaluationError {
                    return error.stopped?.reason
                } catch {
                    return nil
                }
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        // Not a speed check: uncancelled, it would run for 10^10 steps or stop at its 600 s as a deadline.
        #expect(await task.value == .cancelled)
    }
}
