/// What the SVG pictures (the graph, the waterfall) share.
enum SVG {
    /// A coordinate with at most one decimal.
    static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
