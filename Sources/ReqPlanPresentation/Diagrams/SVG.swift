/// What the SVG pictures (the graph, the waterfall) share: how they write a number, and the small typed
/// elements they are drawn from. Each element writes itself through `XMLWriter`, so every attribute and every
/// piece of text is escaped in one place.
enum SVG {
    /// A coordinate with at most one decimal.
    static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// A length or coordinate in SVG user units.
    struct Unit: Comparable, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
        var value: Double

        init(_ value: Double) { self.value = value }
        init(floatLiteral value: Double) { self.value = value }
        init(integerLiteral value: Int) { self.value = Double(value) }

        /// As an attribute writes it: at most one decimal.
        var text: String { SVG.number(value) }

        static func < (left: Unit, right: Unit) -> Bool { left.value < right.value }
        static func + (left: Unit, right: Unit) -> Unit { Unit(left.value + right.value) }
        static func - (left: Unit, right: Unit) -> Unit { Unit(left.value - right.value) }
        static func * (left: Unit, factor: Double) -> Unit { Unit(left.value * factor) }
    }

    /// A point, in user units.
    struct Point: Equatable {
        var x: Unit
        var y: Unit
    }

    /// Attributes as written, in order; a nil value leaves the attribute out.
    typealias Attributes = KeyValuePairs<String, String?>
}

/// Something an SVG picture draws, which writes itself.
protocol SVGElement {
    func write(to xml: inout XMLWriter)
}

extension XMLWriter {
    /// Writes `name` with the attributes that have a value, then `children` inside it, or `content`.
    mutating func svg(
        _ name: String, _ attributes: SVG.Attributes, content: String? = nil, children: [any SVGElement] = []
    ) {
        let present = attributes.compactMap { key, value in value.map { (key, $0) } }
        guard !children.isEmpty else { return element(name, present, content: content) }
        start(name, present)
        for child in children { child.write(to: &self) }
        end()
    }
}

extension SVG {
    /// The whole picture: its size, a title, a style sheet, then what it draws.
    struct Document: SVGElement {
        var width: Unit
        var height: Unit
        var className: String
        var fontSize: Int
        var title: String
        var style: String
        var children: [any SVGElement] = []

        func write(to xml: inout XMLWriter) {
            let head: [any SVGElement] = [Title(title), Style(style)]
            xml.svg(
                "svg",
                [
                    "xmlns": "http://www.w3.org/2000/svg", "class": className, "width": width.text,
                    "height": height.text, "viewBox": "0 0 \(width.text) \(height.text)",
                    "font-family": "-apple-system, Segoe UI, Helvetica, Arial, sans-serif", "font-size": "\(fontSize)",
                ], children: head + children)
        }

        /// The picture as a self-contained SVG file.
        var text: String {
            var xml = XMLWriter()
            write(to: &xml)
            return xml.text
        }
    }

    /// `<title>`: what a reader sees on hover.
    struct Title: SVGElement {
        var text: String
        init(_ text: String) { self.text = text }
        func write(to xml: inout XMLWriter) { xml.svg("title", [:], content: text) }
    }

    /// `<style>`: the picture's style sheet.
    struct Style: SVGElement {
        var text: String
        init(_ text: String) { self.text = text }
        func write(to xml: inout XMLWriter) { xml.svg("style", [:], content: text) }
    }

    /// `<g>`: elements drawn together, with a class, `data-` attributes and a title.
    struct Group: SVGElement {
        var className: String?
        var data: [(name: String, value: String)] = []
        var title: String?
        var children: [any SVGElement] = []

        func write(to xml: inout XMLWriter) {
            let present = [("class", className)].compactMap { name, value in value.map { (name, $0) } }
            xml.start("g", present + data.map { ("data-" + $0.name, $0.value) })
            if let title { Title(title).write(to: &xml) }
            for child in children { child.write(to: &xml) }
            xml.end()
        }
    }

    /// `<rect>`, with rounded corners when `radius` is set, and a title of its own when set.
    struct Rect: SVGElement {
        var x: Unit
        var y: Unit
        var width: Unit
        var height: Unit
        var radius: Unit?
        var className: String?
        var title: String?

        func write(to xml: inout XMLWriter) {
            xml.svg(
                "rect",
                [
                    "x": x.text, "y": y.text, "width": width.text, "height": height.text, "rx": radius?.text,
                    "class": className,
                ], children: title.map { [Title($0)] } ?? [])
        }
    }

    /// `<line>`.
    struct Line: SVGElement {
        var from: Point
        var to: Point
        var className: String?

        func write(to xml: inout XMLWriter) {
            xml.svg(
                "line",
                ["x1": from.x.text, "y1": from.y.text, "x2": to.x.text, "y2": to.y.text, "class": className])
        }
    }

    /// `<text>`: `content` from `at` (its baseline's start).
    struct Text: SVGElement {
        var at: Point
        var className: String?
        var content: String

        func write(to xml: inout XMLWriter) {
            xml.svg("text", ["x": at.x.text, "y": at.y.text, "class": className], content: content)
        }
    }

    /// `<path>`: straight stretches through `points`, with each corner rounded by up to `cornerRadius` (a
    /// quadratic curve whose control point is the corner), ending in an arrow when `arrow` names its marker.
    struct Path: SVGElement {
        var points: [Point]
        var cornerRadius = 0.0
        var className: String?
        var arrow: String?
        var data: [(name: String, value: String)] = []
        var title: String?

        func write(to xml: inout XMLWriter) {
            let present = [("class", className), ("d", Optional(d)), ("marker-end", arrow.map { "url(#\($0))" })]
                .compactMap { name, value in value.map { (name, $0) } }
            let attributes = present + data.map { ("data-" + $0.name, $0.value) }
            guard let title else { return xml.element("path", attributes) }
            xml.start("path", attributes)
            Title(title).write(to: &xml)
            xml.end()
        }

        /// The path data: `M`, then `L` to each point, each inner corner cut short by its radius and bridged
        /// by a `Q` curve.
        var d: String {
            guard let first = points.first else { return "" }
            var out = "M \(first.x.text) \(first.y.text)"
            for index in points.indices.dropFirst() {
                let corner = points[index]
                guard cornerRadius > 0, index + 1 < points.count else {
                    out += " L \(corner.x.text) \(corner.y.text)"
                    continue
                }
                let (before, after) = (points[index - 1], points[index + 1])
                let radius = min(cornerRadius, Self.length(before, corner) / 2, Self.length(corner, after) / 2)
                let entry = Self.toward(corner, before, by: radius)
                let exit = Self.toward(corner, after, by: radius)
                out +=
                    " L \(entry.x.text) \(entry.y.text) Q \(corner.x.text) \(corner.y.text) \(exit.x.text) \(exit.y.text)"
            }
            return out
        }

        private static func length(_ first: Point, _ second: Point) -> Double {
            ((first.x - second.x).value * (first.x - second.x).value + (first.y - second.y).value
                * (first.y - second.y).value).squareRoot()
        }

        /// The point `distance` from `start` toward `end`.
        private static func toward(_ start: Point, _ end: Point, by distance: Double) -> Point {
            let length = Self.length(start, end)
            guard length > 0 else { return start }
            let share = distance / length
            return Point(x: start.x + (end.x - start.x) * share, y: start.y + (end.y - start.y) * share)
        }
    }
}

extension SVG {
    /// `<defs>`: what the picture refers to (its arrowheads).
    struct Definitions: SVGElement {
        var children: [any SVGElement]
        func write(to xml: inout XMLWriter) { xml.svg("defs", [:], children: children) }
    }

    /// `<marker>`: an arrowhead drawn from `path` (in a 10 × 10 box, its tip at the right middle), 8 units
    /// wide, turned with the line it ends.
    struct Marker: SVGElement {
        var id: String
        var path: String
        var className: String

        func write(to xml: inout XMLWriter) {
            xml.start(
                "marker",
                [
                    ("id", id), ("viewBox", "0 0 10 10"), ("refX", "10"), ("refY", "5"), ("markerWidth", "8"),
                    ("markerHeight", "8"), ("markerUnits", "userSpaceOnUse"), ("orient", "auto-start-reverse"),
                ])
            xml.svg("path", ["d": path, "class": className])
            xml.end()
        }
    }
}
