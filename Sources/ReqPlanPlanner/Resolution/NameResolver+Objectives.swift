import ReqPlanSyntax

// `slo:` (grammar.md §4.14): each item's `step` names a step of this plan, at any depth (not one of a
// sub-plan's: only the plan a load run is given has its objectives checked, and its `plan` steps are its
// steps). A limit given for one subject by two items is a warning: both are checked.

extension NameResolver {
    /// Checks the subjects of the plan's objectives, and that no limit is given twice.
    mutating func resolveObjectives() {
        struct Limit: Hashable {
            /// The step's id, or `nil` for the whole iteration.
            var subject: String?
            var measure: ServiceLevelObjective.Limit.Measure
        }
        var first: [Limit: Located<String>] = [:]
        for objective in plan.slo {
            let subject: String?
            switch objective.subject {
            case .iteration:
                subject = nil
            case .step(let name):
                guard index[name.value] != nil else {
                    reportUnknownObjectiveStep(name)
                    continue
                }
                subject = name.value
            }
            let what = subject.map { "step `\($0)`" } ?? "the whole iteration"
            for limit in objective.limits {
                let key = Limit(subject: subject, measure: limit.measure)
                guard let earlier = first[key] else {
                    first[key] = limit.key
                    continue
                }
                let same = earlier.value == limit.key.value ? "" : " (as `\(earlier.value)`)"
                diagnostics.warning(
                    .repeatedObjective,
                    "`\(limit.key.value)` of \(what) is given by an earlier `slo` item too\(same): both are checked",
                    at: limit.key.range, notes: [.init("given here first", at: earlier.range)],
                    hint: "a load run checks every limit written, so the tighter one decides; keep one of them")
            }
        }
    }

    /// A `step` of `slo` naming no step of this plan: did you mean, or the sub-plan the step belongs to.
    private mutating func reportUnknownObjectiveStep(_ name: Located<String>) {
        if plan.unreadStepIDs.contains(name.value) { return }
        // A step of a sub-plan, by its path (`login/form`) or its own id (`form`).
        if let nested = nodes.first(where: { $0.instance != 0 && ($0.id == name.value || $0.localID == name.value) }),
            let caller = nodes.first(where: { $0.instance == 0 && nested.id.hasPrefix($0.id + "/") })
        {
            diagnostics.error(
                .unknownStep,
                "`step` of `slo` names `\(name.value)`, a step of the sub-plan run by `\(caller.id)`, not of this plan",
                at: name.range,
                hint: "name `\(caller.id)` to hold the whole sub-plan to the limits, or give them in the sub-plan's "
                    + "file to a load run of that file")
            return
        }
        let suggestion = Suggestion.replacement(for: name.value, in: nodes.filter { $0.instance == 0 }.map(\.localID))
        diagnostics.error(
            .unknownStep, "`step` of `slo` names `\(name.value)`, but there is no such step", at: name.range,
            hint: suggestion?.hint ?? "name a step of this plan (a request, a group, a sequence, a for_each or a "
                + "`plan` step, at any depth); without `step`, the limits are the whole iteration's",
            fix: suggestion?.fix)
    }
}
