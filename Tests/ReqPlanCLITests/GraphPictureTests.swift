import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `reqplan graph --format svg`: the picture reqplan lays out itself, read back as XML.
@Suite struct GraphPictureTests {
    /// What the picture draws: the rectangle of each step box and frame, by step id, the parent each one
    /// names, and the arrows.
    final class Picture: NSObject, XMLParserDelegate {
        struct Box {
            var x, y, width, height: Double
            var right: Double { x + width }
            var bottom: Double { y + height }

            func holds(_ other: Box) -> Bool {
                other.x >= x && other.right <= right && other.y >= y && other.bottom <= bottom
            }

            func overlaps(_ other: Box) -> Bool {
                x < other.right && other.x < right && y < other.bottom && other.y < bottom
            }
        }

        var steps: [String: Box] = [:]
        var frames: [String: Box] = [:]
        var parents: [String: String] = [:]
        var edges: [(from: String, to: String)] = []
        private var current: (id: String, isFrame: Bool)?

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String]
        ) {
            switch name {
            case "g":
                guard let id = attributes["data-step"] else { return }
                current = (id, attributes["class"]?.hasPrefix("frame") == true)
                if let parent = attributes["data-parent"] { parents[id] = parent }
            case "rect":
                guard let current, let x = Double(attributes["x"] ?? ""), let y = Double(attributes["y"] ?? ""),
                    let width = Double(attributes["width"] ?? ""), let height = Double(attributes["height"] ?? "")
                else { return }
                let box = Box(x: x, y: y, width: width, height: height)
                if current.isFrame { frames[current.id] = box } else { steps[current.id] = box }
            case "path":
                if let from = attributes["data-from"], let to = attributes["data-to"] { edges.append((from, to)) }
            default:
                break
            }
        }

        func parser(
            _ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?
        ) {
            if name == "g" { current = nil }
        }
    }

    static func picture(of plan: String) throws -> (Picture, String) {
        let result = try CommandRunner.run(["graph", "--format", "svg", plan])
        #expect(result.status == 0, "\(result.stderr)")
        let picture = Picture()
        let parser = XMLParser(data: Data(result.stdout.utf8))
        parser.delegate = picture
        #expect(parser.parse(), "not well-formed XML: \(String(describing: parser.parserError))")
        return (picture, result.stdout)
    }

    @Test(
        "every step is a box of its own, inside the frame of each collection that holds it, an arrow for each wait",
        arguments: ["plans/app-launch.yaml", "plans/signed-in-home.yaml", "plans/batch-upload.yaml"])
    func boxesFramesAndArrows(_ plan: String) throws {
        let (picture, svg) = try Self.picture(of: plan)
        #expect(!picture.steps.isEmpty, "\(svg)")
        let boxes = picture.steps.sorted { $0.key < $1.key }
        for (index, (id, box)) in boxes.enumerated() {
            for (other, otherBox) in boxes[(index + 1)...] {
                #expect(!box.overlaps(otherBox), "\(id) and \(other) overlap in \(plan)")
            }
        }
        for (id, parent) in picture.parents {
            let inner = picture.steps[id] ?? picture.frames[id]
            let outer = picture.frames[parent]
            #expect(inner != nil && outer != nil, "\(id) or its parent \(parent) is not drawn")
            if let inner, let outer { #expect(outer.holds(inner), "\(parent) does not hold \(id) in \(plan)") }
        }
        // A frame holds no step but its own members.
        for (frame, box) in picture.frames {
            for (id, step) in picture.steps where box.overlaps(step) {
                var ancestor = picture.parents[id]
                while let current = ancestor, current != frame { ancestor = picture.parents[current] }
                #expect(ancestor == frame, "\(frame) covers \(id), which it does not hold, in \(plan)")
            }
        }
        for edge in picture.edges {
            #expect(
                (picture.steps[edge.from] ?? picture.frames[edge.from]) != nil
                    && (picture.steps[edge.to] ?? picture.frames[edge.to]) != nil, "\(edge)")
        }
    }

    @Test("app-launch's waits are drawn: the data login gives config, and home after the bootstrap group")
    func appLaunchArrows() throws {
        let (picture, _) = try Self.picture(of: "plans/app-launch.yaml")
        let edges = Set(picture.edges.map { "\($0.from)→\($0.to)" })
        #expect(edges.isSuperset(of: ["login→config", "bootstrap→home", "home→logout", "cart→order"]), "\(edges)")
        // Steps that can start together share a column; a step after them is to their right.
        let login = try #require(picture.steps["login"])
        let preferences = try #require(picture.steps["preferences"])
        let home = try #require(picture.steps["home"])
        #expect(login.x == preferences.x && home.x > login.right)
    }
}
