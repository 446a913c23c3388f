/// How the arrows of the graph picture find their way between the boxes. Two facts of the layout make a
/// route that crosses no box easy to find: each step box has a row of its own (a horizontal line through a box
/// meets no other box, and the rows are at least `rowGap` apart), and boxes stand only in columns, so a
/// vertical line in the gap between two columns meets none. A route runs along its ends' rows and turns in a
/// column gap (`GraphRouteTests` checks that no arrow crosses a box but its two ends).
extension GraphLayout {
    /// The left edge of column `column`.
    static func columnLeft(_ column: Int) -> Double { margin + Double(column) * (nodeWidth + columnGap) }

    /// The column whose box would hold `x`, or whose gap to the right holds it.
    static func column(at x: Double) -> Int { max(0, Int(((x - margin) / (nodeWidth + columnGap)).rounded(.down))) }

    /// The free stretch of x left of `rect` where a vertical line meets no box: the gap before its column, or
    /// the left margin.
    static func gap(before rect: Rect) -> ClosedRange<Double> {
        let column = Int(((rect.x - margin) / (nodeWidth + columnGap)).rounded(.up))
        guard column > 0 else { return 0...max(0, rect.x) }
        return (columnLeft(column) - columnGap)...max(columnLeft(column) - columnGap, rect.x)
    }

    /// The free stretch of x right of `rect`: the gap after its column.
    static func gap(after rect: Rect) -> ClosedRange<Double> {
        let next = columnLeft(column(at: rect.right) + 1)
        return min(rect.right, next)...next
    }

    /// The route of a wait's arrow from the right side of `from` (what is waited for) to the left side of
    /// `to`, turning at `track` (0 to 1: where in the gap before `to`; arrows to one step share a track).
    /// Along `from`'s row to the gap before `to`, along the gap to `to`'s row, into `to`. When `to` is not to
    /// the right of `from` (a graph read back from a report may hold anything), around: along the gap after
    /// `from` to the free band above `to`, along it to the gap before `to`, and in.
    func waitRoute(from: Rect, to: Rect, track: Double) -> [SVG.Point] {
        let (start, end) = (SVG.Point(from.right, from.middle), SVG.Point(to.x, to.middle))
        if abs(from.middle - to.middle) < 0.05, from.right <= to.x { return [start, end] }
        let before = Self.gap(before: to)
        let (low, high) = (max(before.lowerBound, from.right) + Self.turn, to.x - Self.turn)
        if low <= high {
            let x = min(high, max(low, before.lowerBound + Self.columnGap * track))
            return [start, SVG.Point(x, from.middle), SVG.Point(x, to.middle), end]
        }
        let after = Self.gap(after: from)
        let out = (after.lowerBound + after.upperBound) / 2
        let into = before.upperBound - min(Self.columnGap / 2, (before.upperBound - before.lowerBound) / 2)
        let band = to.y - Self.rowGap / 2
        return [
            start, SVG.Point(out, from.middle), SVG.Point(out, band), SVG.Point(into, band), SVG.Point(into, to.middle),
            end,
        ]
    }

    /// The route of a control flow's jump (`goto`) from `from` to `to`: out of `from`'s right side in the
    /// upper half of its row, along the gap after the rightmost of the two, back into `to`'s right side in the
    /// lower half of its row; a bracket on the right, which also draws a jump to the step itself.
    func jumpRoute(from: Rect, to: Rect) -> [SVG.Point] {
        let gap = Self.gap(after: from.right >= to.right ? from : to)
        let x = min(gap.upperBound, gap.lowerBound + Self.turn * 2)
        let (out, back) = (from.y + from.height / 4, to.y + to.height * 3 / 4)
        return [SVG.Point(from.right, out), SVG.Point(x, out), SVG.Point(x, back), SVG.Point(to.right, back)]
    }

    /// The shortest straight stretch a route keeps before it turns, next to a box.
    static let turn = 8.0
}

extension SVG.Point {
    init(_ x: Double, _ y: Double) { self.init(x: SVG.Unit(x), y: SVG.Unit(y)) }
}
