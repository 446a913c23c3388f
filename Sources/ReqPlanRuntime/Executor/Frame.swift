import ReqPlanPlanner
import ReqPlanSyntax
import Synchronization

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
    /// The inputs and vars of the plan instances that run in this frame (the plan itself in the root
    /// frame; a sub-plan in the frame of its `plan` step), set when they start.
    private let instances = Mutex<[Int: InstanceState]>([:])

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

    /// Records the inputs and vars of an instance that starts in this frame.
    func record(_ state: InstanceState, for instance: Int) {
        instances.withLock { $0[instance] = state }
    }

    /// The inputs and vars of `instance`, looked up from this frame outwards.
    func state(of instance: Int) -> InstanceState? {
        var frame: Frame? = self
        while let current = frame {
            if let state = current.instances.withLock({ $0[instance] }) { return state }
            frame = current.parent
        }
        return nil
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

    /// The scope inside a sub-plan: its own `on_failure` holds for its steps (else this scope's), its own
    /// `concurrency` bounds its requests inside the limits around it.
    func including(_ plan: Plan) -> Scope {
        let limiter = plan.concurrency.map { [AsyncLimiter(limit: $0.value)] } ?? []
        return Scope(policy: plan.onFailure?.value ?? policy, limiters: limiter + limiters, reasons: reasons)
    }

    /// The scope inside a group, sequence or for_each `step`.
    func entering(_ step: Step, reason: CancellationReason) -> Scope {
        let limiter = step.concurrency.map { [AsyncLimiter(limit: $0.value)] } ?? []
        return Scope(
            policy: step.onFailure?.value ?? policy, limiters: limiter + limiters,
            reasons: [reason] + reasons)
    }
}
