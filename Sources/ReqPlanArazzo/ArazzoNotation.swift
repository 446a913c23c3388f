import ReqPlanSyntax

/// The planner's hints in Arazzo's terms: a parameter is added to the step's `parameters`, an input is read
/// as `$inputs.NAME`, and a value that may be absent has no `if:` or `default(…)` to guard it (nor the fix
/// that writes one). The translator gives every plan it makes this notation (`Plan.notation`).
struct ArazzoNotation: PlanNotation {
    func howToGivePathParameter(_ name: String) -> String { "add it to the step's `parameters` with `in: path`" }

    func unusedInputHint(_ name: String) -> String {
        "remove it from the workflow's `inputs`, or read it with `$inputs.\(name)`"
    }

    var possiblyAbsentHint: String { "the request would go without it: check that the response gives it" }

    var writesFallbacks: Bool { false }
}
