/// Where each step of a plan's graph is drawn, laid out by reqplan itself: a request (or a for_each over
/// one) is a box in the column of the wave it can start in and on a row of its own, in the order the plan
/// writes its steps; a group, sequence, for_each over a group or sub-plan is a frame around its members,
/// which are contiguous rows. Edges go from the right side of what a step waits for to its left side. No
/// two step boxes overlap, and every frame holds exactly its members (`GraphPictureTests`).
struct GraphLayout {
    /// A rectangle, in SVG user units.
    struct Rect: Equatable {
        var x: Double
        var y: Double
        var width: Double
        var height: Double

        var right: Double { x + width }
        var bottom: Double { y + height }
        var middle: Double { y + height / 2 }
    }

    static let nodeWidth = 210.0
    static let nodeHeight = 40.0
    static let columnGap = 64.0
    static let rowGap = 10.0
    static let frameHeader = 22.0
    static let framePadding = 8.0
    static let margin = 16.0

    /// Each node's rectangle: a box for a step that sends requests, a frame for a collection.
    private(set) var rects: [Int: Rect] = [:]
    /// The picture's size.
    private(set) var width = 0.0
    private(set) var height = 0.0

    init(_ graph: GraphPicture) {
        var cursor = Self.margin
        for root in graph.roots { place(root, in: graph, cursor: &cursor) }
        let columnCount = (graph.nodes.compactMap(\.wave).max() ?? 0) + 1
        width = Self.margin * 2 + Double(columnCount) * (Self.nodeWidth + Self.columnGap) - Self.columnGap
        height = cursor - Self.rowGap + Self.margin
    }

    /// Places `root` and what it holds from row position `cursor` down, and moves `cursor` below it: a box in
    /// its wave's column, or a frame around its members placed first. Depth first, with a stack of its own
    /// rather than recursion: a graph read back from a report may nest 50,000 deep.
    private mutating func place(_ root: Int, in graph: GraphPicture, cursor: inout Double) {
        // The frames being placed: each with its top and how many of its members are placed.
        var frames: [(id: Int, top: Double, placed: Int)] = []
        var next: Int? = root
        while true {
            if let id = next {
                next = nil
                if let wave = graph.nodes[id].wave {
                    let column = Double(max(0, wave))
                    rects[id] = Rect(
                        x: Self.margin + column * (Self.nodeWidth + Self.columnGap), y: cursor, width: Self.nodeWidth,
                        height: Self.nodeHeight)
                    cursor += Self.nodeHeight + Self.rowGap
                } else {
                    frames.append((id, cursor, 0))
                    cursor += Self.frameHeader
                }
            }
            guard let frame = frames.last else { return }
            let children = graph.nodes[frame.id].children
            if frame.placed < children.count {
                frames[frames.count - 1].placed += 1
                next = children[frame.placed]
                continue
            }
            frames.removeLast()
            closeFrame(frame.id, top: frame.top, in: graph, cursor: &cursor)
        }
    }

    /// The frame of `id`, whose members are placed, from `top` to `cursor`; moves `cursor` below it.
    private mutating func closeFrame(_ id: Int, top: Double, in graph: GraphPicture, cursor: inout Double) {
        let inside = graph.nodes[id].children.compactMap { rects[$0] }
        guard let left = inside.map(\.x).min(), let right = inside.map(\.right).max() else {
            // A collection with nothing to draw inside: a frame of one row's height.
            rects[id] = Rect(x: Self.margin, y: top, width: Self.nodeWidth, height: Self.frameHeader + Self.nodeHeight)
            cursor = top + Self.frameHeader + Self.nodeHeight + Self.rowGap
            return
        }
        cursor += Self.framePadding - Self.rowGap
        rects[id] = Rect(
            x: left - Self.framePadding, y: top, width: right - left + 2 * Self.framePadding, height: cursor - top)
        cursor += Self.rowGap
    }
}
