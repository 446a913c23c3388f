/// How the planner's hints tell the user what to write, in the notation the plan was written in.
///
/// A plan read from a plan file says `path: { id: … }`, `${{ inputs.x }}` and `default(…)`. A plan a reader
/// of another kind of document translated (an Arazzo workflow, `PlanDocumentReader`) has none of those keys:
/// its reader gives the plan a notation of its own (`Plan.notation`), and the planner asks it for the words
/// when it makes the diagnostic, rather than having them rewritten afterwards.
public protocol PlanNotation: Sendable {
    /// How to give path parameter `name`, which the step's operation needs (RP0802's hint, after the path).
    func howToGivePathParameter(_ name: String) -> String

    /// The hint for input `name`, which nothing reads (RP0501).
    func unusedInputHint(_ name: String) -> String

    /// The hint for a required value that may be absent (RP0853).
    var possiblyAbsentHint: String { get }

    /// Whether the notation can give a fallback with `default(…)`, so RP0853 offers the fix that writes one.
    var writesFallbacks: Bool { get }
}

/// The notation of reqplan's own plan files.
public struct PlanFileNotation: PlanNotation {
    /// Creates it.
    public init() {}

    /// "give `path: { NAME: … }`".
    public func howToGivePathParameter(_ name: String) -> String { "give `path: { \(name): … }`" }

    /// "remove it, or read it with `${{ inputs.NAME }}`".
    public func unusedInputHint(_ name: String) -> String { "remove it, or read it with `${{ inputs.\(name) }}`" }

    /// Guard with `if:` or fall back with `default(…)`.
    public var possiblyAbsentHint: String { "guard the step with `if:`, or give a fallback with `default(…)`" }

    /// `default(…)` is in the language.
    public var writesFallbacks: Bool { true }
}
