import Foundation
import ReqPlanPresentation
import ReqPlanRuntime
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The run on one time axis (`RunReport.waterfallSVG`), read back as XML.
@Suite("The waterfall of a run")
struct WaterfallTests {
    /// Each bar's step, lane (by its y) and extent (by its `span` rectangle), and the tries drawn.
    final class Bars: NSObject, XMLParserDelegate {
        var bars: [(step: String, y: Double, x: Double, right: Double, classes: String)] = []
        var tries = 0
        private var current: (step: String, classes: String)?

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String]
        ) {
            if name == "g", let step = attributes["data-step"] { current = (step, attributes["class"] ?? "") }
            guard name == "rect", let current, let x = Double(attributes["x"] ?? ""),
                let width = Double(attributes["width"] ?? ""), let y = Double(attributes["y"] ?? "")
            else { return }
            if attributes["class"] == "span" {
                bars.append((current.step, y, x, x + width, current.classes))
            } else if attributes["class"] == "try" {
                tries += 1
            }
        }

        func parser(
            _ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?
        ) {
            if name == "g" { current = nil }
        }
    }

    @Test("every request that sent something is a bar; bars in one lane never overlap; every try is drawn")
    func barsLanesAndTries() async throws {
        let run = try await Scenario.mixed.run()
        let svg = run.report.waterfallSVG()
        let parsed = Bars()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = parsed
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
        let requests = run.report.allSteps.filter { $0.kind == .request && !$0.result.attempts.isEmpty }
        #expect(Set(parsed.bars.map(\.step)) == Set(requests.map(\.id)), "\(svg)")
        #expect(parsed.tries == requests.reduce(0) { $0 + $1.result.attempts.count })
        for lane in Dictionary(grouping: parsed.bars, by: \.y).values {
            let sorted = lane.sorted { $0.x < $1.x }
            for (first, second) in zip(sorted, sorted.dropFirst()) {
                #expect(first.right <= second.x + 0.2, "\(first.step) and \(second.step) overlap in one lane")
            }
        }
        // The failed request is drawn as failed; a request that retried has more than one try.
        #expect(parsed.bars.contains { $0.classes.contains("failed") }, "\(svg)")
    }

    @Test("idle stretches are the parts of the run no request covers")
    func idleStretches() {
        let gaps = RunReport.idleStretches([(0, 10), (5, 20), (40, 50), (60, 100)], until: 100)
        #expect(gaps.map { [$0.start, $0.end] } == [[20, 40], [50, 60]])
    }
}
