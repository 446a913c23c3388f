/// Control between the members of a `sequence` when it is not simply one after another: where control goes
/// after each member ends, on success and on failure. The Arazzo reader makes it from a workflow's
/// `onSuccess` and `onFailure` actions (`goto` a step, earlier ones included, `goto` a workflow, `end`);
/// plans do not write it (arazzo.md, "Control flow").
///
/// The sequence runs as a state machine over its members: the first member runs, then after each member
/// the first transition of its list whose condition holds (`onSuccess` when it succeeded, `onFailure` when it
/// failed) says where control goes; a failure with no transition that holds ends the sequence failed, a
/// success with none goes to `next`. A failure a transition takes is **handled**: the member keeps its
/// failure, and the run does not fail for it. A member runs at most `maxVisits` times (a loop is bounded);
/// every visit is recorded, and each step reading a member reads its latest visit.
public struct FlowControl: Sendable {
    /// Where control goes.
    public enum Target: Sendable, Hashable {
        /// The member at this position of the sequence.
        case member(Int)
        /// The end of the sequence (Arazzo's `end`).
        case end
    }

    /// One way control may leave a member.
    public struct Transition: Sendable {
        /// Where it goes.
        public var target: Target
        /// When it applies (all of an action's criteria); nil: always.
        public var when: Expression?
        /// What it is, in reports: the action's name and type (`goto retry-login`, `end`).
        public var name: String
        /// Where the document writes it.
        public var range: SourceRange

        /// Creates a transition.
        public init(target: Target, when: Expression?, name: String, range: SourceRange) {
            self.target = target
            self.when = when
            self.name = name
            self.range = range
        }
    }

    /// What happens after one member.
    public struct Member: Sendable {
        /// After a success, in order: the first that applies is taken.
        public var onSuccess: [Transition]
        /// After a failure, in order: the first that applies is taken, and handles the failure.
        public var onFailure: [Transition]
        /// Where a success no transition takes goes: the next member in the document, or the end.
        public var next: Target

        /// Creates a member's control.
        public init(onSuccess: [Transition], onFailure: [Transition], next: Target) {
            self.onSuccess = onSuccess
            self.onFailure = onFailure
            self.next = next
        }
    }

    /// The most times one member runs in one run of the sequence (a loop back to it included).
    public static let defaultMaxVisits = 100

    /// Each member's control, by position.
    public var members: [Member]
    /// The most times one member runs.
    public var maxVisits: Int

    /// Creates the control of a sequence.
    public init(members: [Member], maxVisits: Int = FlowControl.defaultMaxVisits) {
        self.members = members
        self.maxVisits = maxVisits
    }

    /// Every transition's condition, for the checks that read expressions.
    public var conditions: [Expression] {
        members.flatMap { ($0.onSuccess + $0.onFailure).compactMap(\.when) }
    }

    /// The edges that go back (to a member at or before the one they leave): the loops a diagram draws.
    public var backEdges: [(from: Int, to: Int)] {
        var edges: [(Int, Int)] = []
        for (index, member) in members.enumerated() {
            for transition in member.onSuccess + member.onFailure {
                if case .member(let target) = transition.target, target <= index { edges.append((index, target)) }
            }
        }
        return edges
    }
}
