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

    @Test func readsXMLNestedAsDeepAsTheLimit() throws {
        #expect(XMLReader.maxDepth == 512)
        #expect(try Self.value("count(//a)", Self.nested(512)) == .int(512))
        #expect(try Self.value("string(/)", Self.nested(512)) == .string("x"))
    }

    @Test func refusesXMLNestedDeeperThanTheLimitAtItsStartTag() throws {
        let xpath = try XPath.compile("count(//a)")
        do {
            _ = try xpath.evaluate(onDocument: Self.nested(513))
            Issue.record("a document nested 513 levels deep was read")
        } catch {
            #expect(
                error.description
                    == "the element `a` is nested deeper than 512 levels, the most reqplan reads at line 1, column 1537"
            )
            #expect(error.stopped == nil)
        }
    }

    /// 20,000 levels took 2.85 GB and crashed; 100,000 levels overflowed the stack at once.
    @Test(arguments: [20_000, 100_000])
    func refusesXMLNestedFarTooDeepWithoutCrashing(depth: Int) {
        #expect(throws: XMLReadError.self) { try Self.value("count(//a)", Self.nested(depth)) }
        let unclosed = "<?xml version=\"1.0\"?>\n" + String(repeating: "<a>", count: depth)
        #expect(throws: XMLReadError.self) { try Self.value("count(//a)", unclosed) }
    }

    /// Without the limit, reading, walking and taking string-values of a 100,000-level document needs no
    /// recursion (the reader's stack of open elements, the tree's descendant ranges).
    @Test func readsAndWalksAnyDepthWithoutRecursion() throws {
        let depth = 100_000
        let tree = try XMLReader.read(Self.nested(depth), maxDepth: .max)
        let evaluator = XPathEvaluator(tree: tree)
        func value(_ expression: String) throws -> Value {
            try evaluator.value(of: try XPath.compile(expression).expression)
        }
        #expect(try value("count(//a)") == .int(depth))
        #expect(try value("string(/)") == .string("x"))
        #expect(try value("count(//text()/ancestor::*)") == .int(depth))
        #expect(try value("count(/a/descendant::a[last()]/preceding::node())") == .int(0))
        #expect(try value("//a[not(a)]") == .list([.string("x")]))
    }

    /// HTML is never refused: an unclosed element past 512 levels closes the element at the deepest level and
    /// goes after it.
    @Test func putsHTMLElementsPastTheLimitAtTheDeepestLevel() throws {
        let page =
            "<html>" + String(repeating: "<div>", count: 600) + "x" + String(repeating: "</div>", count: 600)
            + "<p>after</p></html>"
        #expect(try Self.value("count(//div)", page) == .int(600))
        // html is level 1, so the 511th div is at level 512 and the 89 after it beside it.
        #expect(try Self.value("count(//div[count(ancestor::*) = 511])", page) == .int(90))
        #expect(try Self.value("count(//*[count(ancestor::*) > 511])", page) == .int(0))
        #expect(try Self.value("string(//div[count(ancestor::*) = 511][last()])", page) == .string("x"))
        #expect(try Self.value("name(//p/..)", page) == .string("html"))
    }

    /// Text after an element that went past the deepest level is in the element open around it, after it in
    /// document order: an element's descendants are still the nodes read between its tags.
    @Test func keepsHTMLPastTheLimitInDocumentOrder() throws {
        let page = "<html>" + String(repeating: "<div>", count: 600) + "x</div>y</html>"
        #expect(try Self.value("string(/html)", page) == .string("xy"))
        // x is in the last div, inside html and the first 510; y in the 510th, after the last div.
        #expect(try Self.value("count(//div[contains(., 'x')])", page) == .int(511))
        #expect(try Self.value("count(//div[contains(., 'y')])", page) == .int(510))
        #expect(try Self.value("count(//text()[. = 'y']/preceding::div)", page) == .int(90))
    }

    @Test(arguments: [20_000, 100_000])
    func readsUnclosedHTMLOfAnyDepth(depth: Int) throws {
        let page = "<html><body>" + String(repeating: "<div>", count: depth) + "x"
        #expect(try Self.value("count(//div)", page) == .int(depth))
        #expect(try Self.value("string(//body)", page) == .string("x"))
    }

    /// An end tag without a name (`</>`) closes nothing; it ended the reading of the page.
    @Test func ignoresAnEndTagWithoutAName() throws {
        #expect(try Self.value("count(//p)", "<html><body></><p>after</p></body></html>") == .int(1))
    }

    /// Entities a DTD declares are never expanded: XML refuses them, HTML keeps them as written.
    @Test func neverExpandsEntitiesADocumentDeclares() throws {
        var declarations = "<!ENTITY lol0 \"lol\">"
        for level in 1...9 {
            declarations +=
                "<!ENTITY lol\(level) \""
                + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
        }
        let xml = "<?xml version=\"1.0\"?><!DOCTYPE lolz [\(declarations)]><lolz>&lol9;</lolz>"
        let xpath = try XPath.compile("string(/lolz)")
        do {
            _ = try xpath.evaluate(onDocument: xml)
            Issue.record("billion laughs was read")
        } catch {
            #expect(error.message.hasPrefix("unknown entity `&lol9;`"))
        }
        let html = "<!DOCTYPE html [\(declarations)]><html><body>&lol9;</body></html>"
        #expect(try Self.value("string(//body)", html) == .string("&lol9;"))
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

    /// Strings are compared by code points, as XPath does, in time linear in them.
    @Test(arguments: [
        ("substring-before('añob', 'o')", Value.string("añ")),
        ("substring-after('añob', 'ñ')", .string("ob")),
        ("substring-after('abc', '')", .string("abc")),
        ("substring-before('abc', '')", .string("")),
        ("contains('e\u{301}', 'e')", .bool(true)),
        ("contains('abc', '')", .bool(true)),
        ("contains('aab', 'ab')", .bool(true)),
        ("contains('abab', 'abb')", .bool(false)),
        ("starts-with('ñu', 'ñ')", .bool(true)),
        ("translate('abcabc', 'cbac', 'CB')", .string("BCBC")),
    ])
    func searchesStringsByCodePoints(expression: String, expected: Value) throws {
        #expect(try Self.value(expression, "<a/>") == expected)
    }

    @Test func searchesForALongNeedleInALongTextInLinearTime() throws {
        let text = String(repeating: "a", count: 200_000)
        let document = "<r><t>\(text)</t><n>\(String(repeating: "a", count: 100_000))b</n></r>"
        #expect(try Self.value("contains(//t, //n)", document) == .bool(false))
        #expect(try Self.value("substring-before(//t, //n)", document) == .string(""))
    }
}
