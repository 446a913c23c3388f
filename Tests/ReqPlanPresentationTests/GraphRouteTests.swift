import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanPresentation

/// The arrows of the graph picture (`graph --format svg`, and the HTML page's graph) go around the boxes: no
/// arrow's path crosses a step box but those of its two ends, and each starts and ends on the border of its
/// ends.
@Suite struct GraphRouteTests {
    /// Checks every arrow of `svg`: it starts on its source's border and ends on its target's, stays in the
    /// picture, and none of its stretches runs through a step box but those two.
    static func expectRoutesAroundBoxes(_ svg: String, _ name: String) {
        let picture = SVGGraphPicture.read(svg)
        #expect(!picture.arrows.isEmpty, "\(name) draws no arrow")
        for arrow in picture.arrows {
            let what = "\(arrow.kind) \(arrow.from) → \(arrow.to) in \(name)"
            guard let from = picture.steps[arrow.from] ?? picture.frames[arrow.from],
                let to = picture.steps[arrow.to] ?? picture.frames[arrow.to],
                let start = arrow.points.first, let end = arrow.points.last
            else {
                Issue.record("\(what): an end is not drawn")
                continue
            }
            #expect(from.borders(start), "\(what) does not start on \(arrow.from)'s border: \(start)")
            #expect(to.borders(end), "\(what) does not end on \(arrow.to)'s border: \(end)")
            let outside = arrow.points.first {
                $0.x < 0 || $0.y < 0 || $0.x > picture.size.width || $0.y > picture.size.height
            }
            #expect(outside == nil, "\(what) leaves the picture at \(String(describing: outside))")
            for (id, box) in picture.steps where id != arrow.from && id != arrow.to {
                for (a, b) in zip(arrow.points, arrow.points.dropFirst()) where box.isCrossed(from: a, to: b) {
                    Issue.record("\(what) crosses \(id) between \(a) and \(b)")
                    break
                }
            }
        }
    }

    static func graph(_ yaml: String, file: String = "test.yaml") throws -> PlanGraph {
        let report = PlanValidator.validate(SourceFile(path: file, text: yaml))
        let renderer = DiagnosticRenderer(files: [report.source].compactMap { $0 })
        #expect(report.errorCount == 0, "\(renderer.text(report.diagnostics))")
        return try #require(report.graph)
    }

    /// `cart` reads `login` and `config`, which reads `login`: the `login → cart` arrow passed under `config`
    /// and seemed to end on its border.
    static let cart = """
        reqplan: 1
        steps:
          login: { request: { method: POST, url: "http://api.test/login" } }
          config: { request: { url: "http://api.test/config/${{ steps.login.body.token }}" } }
          cart: { request: { url: "http://api.test/cart/${{ steps.login.body.id }}/${{ steps.config.body.v }}" } }
        """

    /// A chain of five with a step that waits for the first and one that waits for the last: arrows over
    /// several columns, and a group and a sequence that are waited for and wait.
    static let framed = """
        reqplan: 1
        steps:
          a: { request: { url: "http://api.test/a" } }
          b: { request: { url: "http://api.test/b/${{ steps.a.body.x }}" } }
          c: { request: { url: "http://api.test/c/${{ steps.b.body.x }}" } }
          side: { request: { url: "http://api.test/side/${{ steps.a.body.x }}" } }
          d: { request: { url: "http://api.test/d/${{ steps.c.body.x }}" } }
          both:
            group:
              e: { request: { url: "http://api.test/e/${{ steps.d.body.x }}" } }
              f: { request: { url: "http://api.test/f/${{ steps.a.body.x }}" } }
          late: { needs: [both, side], request: { url: "http://api.test/late" } }
          chain:
            needs: [b]
            sequence:
              g: { request: { url: "http://api.test/g" } }
              h: { request: { url: "http://api.test/h/${{ steps.side.body.x }}" } }
          last: { request: { url: "http://api.test/last/${{ steps.a.body.x }}/${{ steps.h.body.x }}" } }
        """

    @Test("no arrow of a written plan crosses a box", arguments: ["cart", "framed"])
    func writtenPlans(_ name: String) throws {
        let graph = try Self.graph(name == "cart" ? Self.cart : Self.framed)
        Self.expectRoutesAroundBoxes(graph.svg(), name)
    }

    /// The example plans of `plans/` (but `data-flow`, which binds an API description: only the pipeline
    /// reads those).
    static let examples = [
        "account-report", "app-launch", "auth", "batch-upload", "bounded-concurrency", "checkout-sequence",
        "conditional-steps", "fail-fast", "fan-out-fan-in", "job-polling", "partial-failure", "signed-in-home",
    ]

    @Test("no arrow of an example plan crosses a box", arguments: examples)
    func examplePlans(_ name: String) throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("plans/\(name).yaml")
        let graph = try Self.graph(try String(contentsOf: file, encoding: .utf8), file: file.path)
        Self.expectRoutesAroundBoxes(graph.svg(), name)
    }

    /// A small deterministic generator (SplitMix64), so that a failure names a seed that reproduces it.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A layered DAG: 2 to 6 layers of 1 to 4 steps, each step past the first layer waiting for 1 to 3 steps
    /// of any earlier layer (so arrows skip columns), written in a shuffled order (so rows and columns do not
    /// follow each other); some steps jump back to an earlier one, as a control flow's `goto` does. When
    /// `scrambled`, each step is put in a column at random, as a graph read back from a report may be: arrows
    /// then also go back, or down one column.
    static func layered(seed: UInt64, scrambled: Bool = false) -> GraphPicture {
        var random = Generator(state: seed)
        var layers: [[Int]] = []
        var count = 0
        for _ in 0..<Int.random(in: 2...6, using: &random) {
            let size = Int.random(in: 1...4, using: &random)
            layers.append(Array(count..<(count + size)))
            count += size
        }
        var waits: [[(target: Int, carriesData: Bool)]] = Array(repeating: [], count: count)
        var waves = Array(repeating: 0, count: count)
        for (layer, members) in layers.enumerated().dropFirst() {
            let earlier = layers[..<layer].flatMap { $0 }
            for member in members {
                let targets = Set(
                    (0..<Int.random(in: 1...3, using: &random)).compactMap { _ in
                        earlier.randomElement(using: &random)
                    })
                waits[member] = targets.sorted().map { ($0, Bool.random(using: &random)) }
                waves[member] = (targets.map { waves[$0] }.max() ?? -1) + 1
            }
        }
        if scrambled { waves = waves.map { _ in Int.random(in: 0...3, using: &random) } }
        let order = Array(0..<count).shuffled(using: &random)
        var place = Array(repeating: 0, count: count)
        for (position, node) in order.enumerated() { place[node] = position }
        let nodes = order.map { node in
            var jumps: [(target: Int, label: String, back: Bool)] = []
            if Int.random(in: 0..<4, using: &random) == 0 {
                let target = Int.random(in: 0..<count, using: &random)
                jumps.append((place[target], "goto s\(target)", place[target] <= place[node]))
            }
            return GraphPicture.Node(
                id: "s\(node)", kind: "request", wave: waves[node], isLoop: false, parent: nil,
                waits: waits[node].map { (place[$0.target], $0.carriesData) }, detail: "GET /s\(node)", jumps: jumps)
        }
        return GraphPicture(title: "layered \(seed)", documentOrder: nodes, critical: [])
    }

    @Test("no arrow of a generated layered graph crosses a box", arguments: 1...40)
    func layeredGraphs(_ seed: Int) {
        Self.expectRoutesAroundBoxes(Self.layered(seed: UInt64(seed)).svg(), "layered graph \(seed)")
    }

    @Test("no arrow crosses a box when steps are in any column, as in a graph read back", arguments: 1...20)
    func scrambledGraphs(_ seed: Int) {
        Self.expectRoutesAroundBoxes(
            Self.layered(seed: UInt64(seed), scrambled: true).svg(), "scrambled layered graph \(seed)")
    }
}
