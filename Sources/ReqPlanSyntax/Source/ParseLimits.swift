/// The bounds every file reqplan reads is held to, so that no input, hostile or accidental, can exhaust
/// time, memory or the stack: plans and their sub-plans, inputs files and environments, cookie files (and
/// API descriptions, through `DataDocument`). One value, passed once, for one command.
///
/// - Size: a file larger than `maxFileSize` is refused before it is read whole (RP0004).
/// - Aliases: a YAML document that expands to more than `maxNodes` nodes is refused (RP0005).
/// - Depth: a YAML or JSON value nested deeper than `maxDepth` is refused (RP0008), and so are steps nested
///   deeper than `maxNesting` (groups, sequences, for_each bodies, sub-plans' steps under their `plan` step)
///   and a chain of sub-plans longer than `maxNesting` files (RP0304).
/// - Breadth: a plan that takes in more than `maxIncludedSteps` steps from its sub-plans (RP0305).
public struct ParseLimits: Sendable, Hashable {
    /// The largest file accepted, in bytes (default 8 MiB).
    public var maxFileSize: Int
    /// The most YAML nodes a document may expand to through aliases (default 1,000,000).
    public var maxNodes: Int
    /// The deepest a YAML or JSON value may nest, in levels of lists and mappings (default 512, as JSON
    /// response bodies).
    public var maxDepth: Int
    /// The deepest steps may nest, a sub-plan's steps counted below their `plan` step, and the longest
    /// chain of sub-plans, in files (default 64).
    public var maxNesting: Int
    /// The most steps a plan may take in from its sub-plans, each counted as often as it is run (default
    /// 100,000): a few files that each run the next twice would otherwise make billions.
    public var maxIncludedSteps: Int
    /// How the host lets its user raise `maxFileSize` (the command line's `--max-plan-size`), named in the
    /// hint of a file that is too large; nil: the hint names no setting.
    public var sizeSetting: String?
    /// How the host lets its user allow files outside a plan's project (the command line's
    /// `--allow-files-outside`), for `FileBoundary.outsideSetting`; nil: hints name no setting.
    public var outsideSetting: String?

    /// Creates limits; the defaults suit plans of tens of thousands of steps.
    public init(
        maxFileSize: Int = 8 << 20, maxNodes: Int = 1_000_000, maxDepth: Int = 512, maxNesting: Int = 64,
        maxIncludedSteps: Int = 100_000, sizeSetting: String? = nil, outsideSetting: String? = nil
    ) {
        self.maxIncludedSteps = maxIncludedSteps
        self.maxFileSize = maxFileSize
        self.maxNodes = maxNodes
        self.maxDepth = maxDepth
        self.maxNesting = maxNesting
        self.sizeSetting = sizeSetting
        self.outsideSetting = outsideSetting
    }

    /// The hint of a file larger than `maxFileSize`; `what` names what to split (`the plan`).
    public func tooLargeHint(splitting what: String = "the plan") -> String {
        "split \(what), or raise the limit" + (sizeSetting.map { " with \($0)" } ?? "")
    }

    /// The hint of a plan larger than `maxFileSize`.
    var tooLargeHint: String { tooLargeHint() }
}
