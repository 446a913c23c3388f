import ReqPlanPlanner
import ReqPlanSyntax

/// The steps of one iteration of a for_each (or of the whole plan, for the root
/// frame): their completion events and the item values visible inside.
final class Frame: Sendable {
    let parent: Frame?
    /// The for_each whose iteration this is; `nil` for the root frame.
    let loop: NodeID?
    /// The item's position, in an iteration frame.
    let itemIndex: Int?
    /// Item values visible here, outer loops' included.
    let items: [String: Value]
    /// Completion events of the steps that run once per this frame.
    let completions: [NodeID: Completion]

    init(parent: Frame?, loop: NodeID?, itemIndex: Int?, items: [String: Value], nodes: [NodeID]) {
        self.parent = parent
        self.loop = loop
        self.itemIndex = itemIndex
        self.items = items
        var completions: [NodeID: Completion] = [:]
        completions.reserveCapacity(nodes.count)
        for node in nodes { completions[node] = Completion() }
        self.completions = completions
    }

    /// The completion event of `node`, looked up from this frame outwards.
    func completion(of node: NodeID) -> Completion? {
        var frame: Frame? = self
        while let current = frame {
            if let completion = current.completions[node] { return completion }
            frame = current.parent
        }
        return nil
    }
}

/// A scope of steps that share a failure policy, limits and a cancellation
/// reason: the plan, a group, a sequence, a for_each.
struct Scope: Sendable {
    let policy: FailurePolicy
    /// Concurrency limits that apply, innermost first.
    let limiters: [AsyncLimiter]
    /// Cancellation reasons, innermost first.
    let reasons: [CancellationReason]

    /// Why this scope's tasks are being cancelled, innermost reason first.
    var cancellationReason: StepReason? {
        for reason in reasons { if let value = reason.value { return value } }
        return nil
    }

    /// The scope inside a group, sequence or for_each `step`.
    func entering(_ step: Step, reason: CancellationReason) -> Scope {
        let limiter = step.concurrency.map { [AsyncLimiter(limit: $0.value)] } ?? []
        return Scope(policy: step.onFailure?.value ?? policy, limiters: limiter + limiters,
                     reasons: [reason] + reasons)
    }
}
