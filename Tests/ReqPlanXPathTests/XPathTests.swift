import ReqPlanSyntax
import Testing

@testable import ReqPlanXPath

/// `xpath(text, expression)`: reqplan's XPath 1.0 over its own XML and HTML reader.
@Suite struct XPathTests {
    static let order = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE order [ <!ELEMENT order ANY> ]>
        <!-- an order -->
        <order id="42" xmlns:x="urn:x">
          <customer>Alice &amp; Bob</customer>
          <line sku="A-1" qty="2"><price>9.50</price></line>
          <line sku="B-7" qty="1"><price>20</price></line>
          <note><![CDATA[<fragile>]]> handle with care</note>
          <x:tag>extra</x:tag>
          <?audit checked?>
        </order>
        """

    static func value(_ expression: String, _ document: String = order) throws -> Value {
        try XPath.compile(expression).evaluate(onDocument: document)
    }

    @Test(arguments: [
        ("/order/@id", Value.list([.string("42")])),
        ("string(/order/@id)", .string("42")),
        ("number(/order/@id)", .int(42)),
        ("count(//line)", .int(2)),
        ("//line[@qty > 1]/@sku", .list([.string("A-1")])),
        ("//line[last()]/price", .list([.string("20")])),
        ("sum(//price)", .double(29.5)),
        ("/order/customer/text()", .list([.string("Alice & Bob")])),
        ("normalize-space(//note)", .string("<fragile> handle with care")),
        ("//x:tag", .list([.string("extra")])),
        ("local-name(//x:*)", .string("tag")),
        ("namespace-uri(//x:tag)", .string("urn:x")),
        ("boolean(//missing)", .bool(false)),
        ("//missing", .list([])),
        ("//line[2]/preceding-sibling::line/@sku", .list([.string("A-1")])),
        ("name(//price[1]/ancestor::*[1])", .string("line")),
        ("//processing-instruction('audit')", .list([.string("checked")])),
        ("concat(//line[1]/@sku, '/', //line[2]/@sku)", .string("A-1/B-7")),
        ("substring('12345', 1.5, 2.6)", .string("234")),
        ("translate('bar', 'abc', 'ABC')", .string("BAr")),
        ("1 div 0", .null),
        ("7 mod 3 = 1 and not(false())", .bool(true)),
        ("string(0.1 + 0.2 > 0.3)", .string("true")),
        ("//line[price = 20]/@sku | //line[price = 9.5]/@sku", .list([.string("A-1"), .string("B-7")])),
        ("count(/descendant::node()) > count(//*)", .bool(true)),
        ("string(1 div 3 * 0 + 0.000001)", .string("0.000001")),
        ("count(//line[1]/following-sibling::node())", .int(9)),
        ("count(//note/preceding-sibling::*)", .int(3)),
        ("name(//note/preceding-sibling::*[3])", .string("customer")),
        ("count(/order/@*)", .int(1)),
        ("string(//line[2]/@*[2])", .string("1")),
        ("count(//line/price/following-sibling::node() | //line/@sku/following-sibling::node())", .int(0)),
        ("count(//@*/..)", .int(3)),
        ("count(//line[1]/descendant-or-self::node())", .int(3)),
        ("count(//price[1]/following::*)", .int(4)),
    ])
    func evaluatesXPathOnXML(expression: String, expected: Value) throws {
        #expect(try Self.value(expression) == expected)
    }

    @Test func readsAnHTMLFormLeniently() throws {
        let page = """
            <!DOCTYPE html>
            <html><head><title>Log in &amp; stay</title><script>if (a < b && c) {}</script></head>
            <body><form action=/login method=POST>
              <input type="hidden" name="csrf" value="t0k&#101;n">
              <input name=user><br>
              <p>Unclosed <b>bold<p>next</p>
              <INPUT NAME="remember" checked>
            </form></body></html>
            """
        #expect(try Self.value("string(//input[@name='csrf']/@value)", page) == .string("t0ken"))
        #expect(try Self.value("count(//form//input)", page) == .int(3))
        #expect(try Self.value("//input[@checked]/@name", page) == .list([.string("remember")]))
        #expect(try Self.value("string(//title)", page) == .string("Log in & stay"))
        #expect(try Self.value("string(//form/@action)", page) == .string("/login"))
    }

    @Test(arguments: [
        ("not xml", "expected `<` starting the root element at line 1, column 1"),
        ("", "the text is empty at line 1, column 1"),
        ("<a><b></a>", "the end tag `</a>` does not match the start tag `<b>` at line 1, column 7"),
        ("<a x=1/>", "an attribute value must be quoted at line 1, column 6"),
        (
            "<a>&nbsp;</a>",
            "unknown entity `&nbsp;` (XML knows `&lt;`, `&gt;`, `&amp;`, `&apos;`, `&quot;`) at line 1, column 4"
        ),
        ("<a/><b/>", "a document has one root element, found a second one at line 1, column 5"),
        ("<a>\n  <b>", "the element `b` is not closed by `</b>` at line 2, column 6"),
    ])
    func refusesTextThatIsNotWellFormedXML(document: String, message: String) {
        #expect(throws: XMLReadError.self) { try Self.value("/", document) }
        do {
            _ = try Self.value("/", document)
        } catch {
            #expect((error as? XMLReadError)?.description == message)
        }
    }

    @Test(arguments: [
        ("//b[", "expected a path, a value or a function call, found the end of the expression at character 5"),
        (
            "//",
            "expected a step (a name, `*`, `text()`, `node()`, `.` or `..`), found the end of the expression at character 3"
        ),
        ("", "the expression is empty at character 1"),
        ("count(1)", "`count()` needs a node-set, found a number at character 7"),
        ("'a' | //b", "`|` needs a node-set, found a string at character 1"),
        ("//a[]", "the predicate `[]` is empty at character 5"),
        ("$token", "variables (`$token`) are not supported: write the value into the expression at character 1"),
        ("frobnicate(//a)", "unknown function `frobnicate()` at character 1"),
        ("conat('a', 'b')", "unknown function `conat()`; did you mean `concat`? at character 1"),
        ("substring('a')", "`substring()` takes 2 or 3 arguments, found 1 at character 1"),
        ("//a[@x = 'y'", "expected `]` closing the predicate, found the end of the expression at character 13"),
        ("namespace::x", "the namespace axis is not supported at character 1"),
        ("//a !b", "`!` is not an XPath operator (use `not(…)` or `!=`) at character 5"),
        ("//a b", "expected an operator (`and`, `or`, `=`, `|`, …), found `b` at character 5"),
        ("id('x')", "`id()` is not supported (it needs the document's DTD) at character 1"),
        ("'open", "the string is not closed by ' at character 1"),
    ])
    func refusesExpressionsItCannotEvaluate(expression: String, message: String) {
        #expect(throws: XPathError.self) { try XPath.compile(expression) }
        do {
            _ = try XPath.compile(expression)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func refusesExpressionsNestedTooDeeply() {
        let deep = String(repeating: "(", count: 100) + "1" + String(repeating: ")", count: 100)
        #expect(throws: XPathError.self) { try XPath.compile(deep) }
    }

    @Test(arguments: [(0.5, "0.5"), (-0.0, "0"), (1e21, "1000000000000000000000"), (1.5e-7, "0.00000015"), (3, "3")])
    func writesNumbersAsXPathDoes(number: Double, text: String) {
        #expect(XPathEvaluator.format(number) == text)
    }

    @Test(arguments: [
        (" 12 ", 12.0), ("-.5", -0.5), ("5.", 5.0), ("1e3", Double.nan), ("", Double.nan), ("- 1", Double.nan),
    ])
    func readsNumbersAsXPathDoes(text: String, number: Double) {
        let read = XPathEvaluator.number(text)
        #expect(read == number || (read.isNaN && number.isNaN))
    }
}
