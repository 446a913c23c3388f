import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A graph picture (`reqplan graph --format svg`, the page's graph) read back as XML: each step box and frame
/// by step id, the parent each one names, and each arrow with its path, for tests to check the layout.
public final class SVGGraphPicture: NSObject, XMLParserDelegate {
    /// A box's rectangle.
    public struct Box: Sendable, Equatable {
        public var x, y, width, height: Double
        public var right: Double { x + width }
        public var bottom: Double { y + height }

        /// Whether `other` lies wholly inside.
        public func holds(_ other: Box) -> Bool {
            other.x >= x && other.right <= right && other.y >= y && other.bottom <= bottom
        }

        /// Whether the two share some of their inside.
        public func overlaps(_ other: Box) -> Bool {
            x < other.right && other.x < right && y < other.bottom && other.y < bottom
        }

        /// Whether `point` is on the border, within `tolerance`.
        public func borders(_ point: (x: Double, y: Double), tolerance: Double = 0.6) -> Bool {
            let inside =
                point.x >= x - tolerance && point.x <= right + tolerance && point.y >= y - tolerance
                && point.y <= bottom + tolerance
            let onSide = [abs(point.x - x), abs(point.x - right), abs(point.y - y), abs(point.y - bottom)]
                .contains { $0 <= tolerance }
            return inside && onSide
        }

        /// Whether the segment from `a` to `b` runs through the box's inside, shrunk by `margin` so that a
        /// line along a border does not count (Liang–Barsky clipping).
        public func isCrossed(from a: (x: Double, y: Double), to b: (x: Double, y: Double), margin: Double = 0.5)
            -> Bool
        {
            let (low, high) = ((x + margin, y + margin), (right - margin, bottom - margin))
            let (dx, dy) = (b.x - a.x, b.y - a.y)
            var (enter, leave) = (0.0, 1.0)
            for (p, q) in [
                (-dx, a.x - low.0), (dx, high.0 - a.x), (-dy, a.y - low.1), (dy, high.1 - a.y),
            ] {
                if p == 0 {
                    if q < 0 { return false }
                    continue
                }
                let t = q / p
                if p < 0 { enter = max(enter, t) } else { leave = min(leave, t) }
                if enter > leave { return false }
            }
            return true
        }
    }

    /// An arrow: the ids of its ends, its class, and its path as straight stretches, curves sampled finely.
    public struct Arrow {
        public var from: String
        public var to: String
        public var kind: String
        public var points: [(x: Double, y: Double)]
    }

    public private(set) var steps: [String: Box] = [:]
    public private(set) var frames: [String: Box] = [:]
    public private(set) var parents: [String: String] = [:]
    public private(set) var arrows: [Arrow] = []
    public private(set) var size = (width: 0.0, height: 0.0)
    private var current: (id: String, isFrame: Bool)?

    /// The arrows' ends.
    public var edges: [(from: String, to: String)] { arrows.map { ($0.from, $0.to) } }

    /// Reads `svg`, recording an issue when it is not well-formed XML.
    public static func read(_ svg: String) -> SVGGraphPicture {
        let picture = SVGGraphPicture()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = picture
        #expect(parser.parse(), "not well-formed XML: \(String(describing: parser.parserError))")
        return picture
    }

    public func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String]
    ) {
        switch name {
        case "svg":
            size = (Double(attributes["width"] ?? "") ?? 0, Double(attributes["height"] ?? "") ?? 0)
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
            guard let from = attributes["data-from"], let to = attributes["data-to"], let d = attributes["d"]
            else { return }
            arrows.append(Arrow(from: from, to: to, kind: attributes["class"] ?? "", points: Self.sampled(d)))
        default:
            break
        }
    }

    public func parser(
        _ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?
    ) {
        if name == "g" { current = nil }
    }

    /// The points of path data made of absolute `M`, `L`, `H`, `V`, `Q` and `C` commands, each curve
    /// sampled at 32 points.
    public static func sampled(_ d: String) -> [(x: Double, y: Double)] {
        var tokens = d.replacingOccurrences(of: ",", with: " ").split(separator: " ").map(String.init)[...]
        var points: [(x: Double, y: Double)] = []
        var command = "M"
        func number() -> Double { Double(tokens.popFirst() ?? "") ?? .nan }
        func point() -> (x: Double, y: Double) { (number(), number()) }
        while let token = tokens.first {
            if Double(token) == nil {
                command = token
                tokens.removeFirst()
            }
            let last = points.last ?? (0, 0)
            switch command {
            case "M", "L": points.append(point())
            case "H": points.append((number(), last.y))
            case "V": points.append((last.x, number()))
            case "Q":
                let (control, end) = (point(), point())
                for step in 1...32 {
                    let t = Double(step) / 32
                    let (a, b, c) = ((1 - t) * (1 - t), 2 * (1 - t) * t, t * t)
                    points.append(
                        (a * last.x + b * control.x + c * end.x, a * last.y + b * control.y + c * end.y))
                }
            case "C":
                let (first, second, end) = (point(), point(), point())
                for step in 1...32 {
                    let t = Double(step) / 32
                    let (a, b) = ((1 - t) * (1 - t) * (1 - t), 3 * (1 - t) * (1 - t) * t)
                    let (c, e) = (3 * (1 - t) * t * t, t * t * t)
                    points.append(
                        (
                            a * last.x + b * first.x + c * second.x + e * end.x,
                            a * last.y + b * first.y + c * second.y + e * end.y
                        ))
                }
            default:
                Issue.record("unexpected path command \(command) in \(d)")
                return points
            }
        }
        return points
    }
}
