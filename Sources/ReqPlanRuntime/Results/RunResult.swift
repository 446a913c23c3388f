import Foundation
import ReqPlanSyntax

/// How a run ended.
public struct RunResult: Sendable {
    /// Results of every step outside for_each bodies, by id (for_each items are in their step's `children`).
    public var results: [String: StepResult]
    /// Step ids in document order.
    public var order: [String]
    /// The plan's outputs, in order, with the values they could be given.
    public var outputs: [(name: String, value: Value)]
    /// The outputs as every output of reqplan shows them: `***` for a secret output, and wherever a
    /// secret went into a value (`SecretFlow`); in order.
    public var shownOutputs: [(name: String, value: Value)] = []
    /// Problems evaluating outputs.
    public var outputErrors: [String]
    /// Whether the user interrupted the run (SIGINT, SIGTERM).
    public var interrupted: Bool
    /// Whether the plan's `timeout` ran out.
    public var timedOut: Bool
    /// How long the run took.
    public var duration: Duration
    /// The wall-clock time the run started: the instant every `Duration` "since the run started" counts from.
    public var startedAt: Date
    /// Secret values learnt during the run (credentials, cookie values, secret outputs of the plan and of
    /// its sub-plans): every output hides them, as it hides secret inputs.
    public var secrets: [String] = []
    /// The names of the plan's outputs declared `secret: true`: `***` in the summary and reports, whole
    /// in `outputsJSON(redactedBy:)`.
    public var secretOutputs: Set<String> = []

    /// How many steps ended in each state.
    public var counts: [StepState: Int] {
        var counts: [StepState: Int] = [:]
        for result in results.values { counts[result.state, default: 0] += 1 }
        return counts
    }
}
