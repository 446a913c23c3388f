import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanXPath

/// `xpath()` works within `EvaluationLimits`: a server chooses the document, so no document and no
/// expression on it may hold a run.
@Suite(.timeSensitive) struct XPathBudgetTests {
    /// A root with `count` empty elements `a`.
    static func flat(_ count: Int) -> String {
        "<r>" + String(repeating: "<a/>", count: count) + "</r>"
    }

    /// `depth` elements `a`, each in the one before, each starting with the text `x`.
    static func nested(_ depth: Int) -> String {
        String(repeating: "<a>x", count: depth) + String(repeating: "</a>", count: depth)
    }

    /// The evaluation's result under `limits`.
    static func evaluate(_ expression: String, on document: String, under limits: EvaluationLimits) throws -> Result<
        Value, XMLReadError
    > {
        let xpath = try XPath.compile(expression)
        return EvaluationLimits.$current.withValue(limits) {
            Result { () throws(XMLReadError) -> Value in try xpath.evaluate(onDocument: document) }
        }
    }

    /// Work that grows as the square of the document (20,000 elements side by side, or 512 levels deep):
    /// each stops within the budget.
    @Test(arguments: [
        ("count(//*[count(//*) > 1])", false),
        ("count(//a[. = //a])", false),
        ("count(//a[following::a])", false),
        ("count(//a[preceding::a])", false),
        ("count(//a/following-sibling::a)", false),
        ("count(//*[string-length(/) > 0])", false),
        ("count(//a[normalize-space(//r) = ''])", false),
        ("count(//a//a)", true),
        ("count(//a[. = 'y'])", true),
        ("sum(//a[contains(., 'y')])", true),
        ("//a", true),
    ])
    func quadraticWorkStopsWithinTheBudget(expression: String, deep: Bool) throws {
        let document = deep ? Self.nested(512) : Self.flat(20_000)
        let result = try Self.evaluate(expression, on: document, under: EvaluationLimits(maxSteps: 200_000))
        guard case .failure(let error) = result else {
            Issue.record("`\(expression)` ended within 200,000 steps")
            return
        }
        #expect(error.stopped?.reason == .budget)
        #expect(error.line == 0)
        #expect(
            error.description
                == "the evaluation was stopped: it took more than 200000 steps, the most one evaluation may take")
    }

    /// The same expressions on small documents end as before.
    @Test func smallDocumentsEndWithinTheBudget() throws {
        let limits = EvaluationLimits(maxSteps: 200_000)
        #expect(try Self.evaluate("count(//*[count(//*) > 1])", on: Self.flat(100), under: limits).get() == .int(101))
        #expect(try Self.evaluate("count(//a[. = //a])", on: Self.flat(100), under: limits).get() == .int(100))
        #expect(try Self.evaluate("count(//a//a)", on: Self.nested(50), under: limits).get() == .int(49))
    }

    /// Comparing two node-sets finds a pair from the values' set or bounds, with the meaning of every pair.
    @Test(arguments: [
        ("//a = //b", true), ("//a != //b", true), ("//a < //b", true), ("//a > //b", true),
        ("//a >= //c", true), ("//a <= //c", true), ("//c != //c", false), ("//a = //c", true),
        ("//c > //b", false), ("//a = //missing", false), ("//missing != //a", false), ("//d < //a", false),
        ("//a[2] = //b[2]", false), ("//d = //d", true), ("//d != //d", false),
    ])
    func comparesNodeSetsAsEveryPair(expression: String, holds: Bool) throws {
        let document = "<r><a>1</a><a>5</a><b>5</b><b>2</b><c>1</c><d>n</d></r>"
        #expect(try XPath.compile(expression).evaluate(onDocument: document) == .bool(holds))
    }

    /// Reading counts too: a document of more nodes than the budget stops while read, where it was.
    @Test func readingTheDocumentStopsWithinTheBudget() throws {
        let result = try Self.evaluate("count(//a)", on: Self.flat(10_000), under: EvaluationLimits(maxSteps: 1_000))
        guard case .failure(let error) = result else {
            Issue.record("10,000 elements were read within 1,000 steps")
            return
        }
        #expect(error.stopped?.reason == .budget)
        #expect(error.message.hasPrefix("reading the document was stopped: it took more than 1000 steps"))
        #expect(error.line == 1 && error.column > 1)
    }

    /// Long text counts by its bytes: one string-value of 1 MB is more than 100,000 steps.
    @Test func longTextCountsByItsLength() throws {
        let document = "<r>" + String(repeating: "x", count: 1 << 20) + "</r>"
        let limits = EvaluationLimits(maxSteps: 100_000)
        for expression in ["string(/r)", "string-length(/r)", "contains(/r, 'y')", "translate(/r, 'x', 'y')"] {
            let result = try Self.evaluate(expression, on: document, under: limits)
            guard case .failure(let error) = result else {
                Issue.record("`\(expression)` on 1 MB ended within 100,000 steps")
                continue
            }
            #expect(error.stopped?.reason == .budget)
        }
        #expect(try Self.evaluate("string-length(/r)", on: document, under: EvaluationLimits()).get() == .int(1 << 20))
    }

    @Test func aDeadlineStopsTheEvaluation() throws {
        let limits = EvaluationLimits(
            maxSteps: .max, maxDuration: .seconds(600), deadline: .now + .milliseconds(100),
            deadlineName: "the attempt's timeout of 100ms")
        let result = try Self.evaluate("count(//*[count(//*) > 1])", on: Self.flat(20_000), under: limits)
        guard case .failure(let error) = result else {
            Issue.record("the evaluation ended before its deadline")
            return
        }
        #expect(error.stopped?.reason == .deadline)
        // Read in under 100 ms on a quiet machine, the document may still be being read on a busy one.
        #expect(error.message.hasSuffix("was stopped: the attempt's timeout of 100ms ran out"))
    }

    @Test func aCancelledEvaluationStopsSoon() async throws {
        let xpath = try XPath.compile("count(//*[count(//*) > 1])")
        let document = Self.flat(20_000)
        let limits = EvaluationLimits(maxSteps: .max, maxDuration: .seconds(600))
        // Unstructured, so the test can cancel it while it evaluates.
        let task = Task {
            EvaluationLimits.$current.withValue(limits) {
                Result { () throws(XMLReadError) -> Value in try xpath.evaluate(onDocument: document) }
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        let result = await task.value
        guard case .failure(let error) = result else {
            Issue.record("the evaluation ended though cancelled")
            return
        }
        #expect(error.stopped?.reason == .cancelled)
        // Cancelled while evaluating on a quiet machine, or while still reading on a busy one.
        // Not a speed check: uncancelled, it would stop at its 600 s as a deadline.
        #expect(error.message.hasSuffix("was stopped: it was cancelled"))
    }

    /// The stop is recorded for whoever set the limits, as the runtime reads it.
    @Test func theStopIsRecordedWithTheLimits() throws {
        var limits = EvaluationLimits(maxSteps: 10_000)
        limits.stops = EvaluationStops()
        _ = try Self.evaluate("count(//*[count(//*) > 1])", on: Self.flat(2_000), under: limits)
        #expect(limits.stops?.stopped?.reason == .budget)
    }
}
