import Foundation
import Testing

@testable import ReqPlanPresentation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The typed elements the pictures are drawn from (`SVG`): each writes itself, escaping every attribute and
/// every piece of text.
@Suite struct SVGElementTests {
    /// Every attribute value and every text, as a parser reads them back.
    final class Reader: NSObject, XMLParserDelegate {
        var attributes: [String] = []
        var texts: [String] = []

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String]
        ) {
            self.attributes += attributes.values
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if !string.allSatisfy(\.isWhitespace) { texts.append(string) }
        }
    }

    @Test("text, titles, classes and data attributes are escaped, and read back as written")
    func everythingIsEscaped() {
        let hostile = "a<b & \"c\" 'd'\n>e"
        let document = SVG.Document(
            width: 100, height: 50, className: "picture", fontSize: 11, title: hostile, style: ".x { fill: red; }",
            children: [
                SVG.Group(
                    className: hostile, data: [("step", hostile)], title: hostile,
                    children: [
                        SVG.Rect(x: 1, y: 2, width: 3, height: 4, radius: 1, className: "r", title: hostile),
                        SVG.Text(at: SVG.Point(5, 6), className: "t", content: hostile),
                        SVG.Line(from: SVG.Point(0, 0), to: SVG.Point(1.25, 2), className: "l"),
                        SVG.Path(points: [SVG.Point(0, 0), SVG.Point(10, 0), SVG.Point(10, 10)], cornerRadius: 4),
                    ])
            ])
        let reader = Reader()
        let parser = XMLParser(data: Data(document.text.utf8))
        parser.delegate = reader
        #expect(parser.parse(), "\(document.text)")
        #expect(reader.attributes.filter { $0 == hostile }.count == 2, "\(document.text)")
        #expect(reader.texts.joined().components(separatedBy: hostile).count - 1 == 4, "\(document.text)")
        #expect(document.text.contains(#"d="M 0 0 L 6 0 Q 10 0 10 4 L 10 10""#), "\(document.text)")
        #expect(document.text.contains(#"x2="1.3" y2="2""#), "\(document.text)")
    }
}
