import Foundation
import ReqPlanPresentation
import ReqPlanRuntime
import ReqPlanSyntax

/// How one step (or one for_each item) of a run ended.
public struct StepOutcome: Sendable {
    /// The step's id (for a for_each item, the for_each's id).
    public var id: String
    /// For a for_each item, its position in the list.
    public var itemIndex: Int?
    /// Succeeded, failed, skipped or cancelled.
    public var state: StepState
    /// Why it did not succeed (a stable kind and a sentence).
    public var reason: StepReason?
    /// The final response status, for a request.
    public var status: Int?
    /// The request as sent (method and URL), for a request.
    public var method: String?
    /// The URL of the request as sent.
    public var url: String?
    /// Every try of the request (retries and polls included), in order.
    public var attempts: [AttemptRecord]
    /// How long the step ran, if it ran.
    public var duration: Duration?
    /// The members' or items' outcomes, in order (groups, sequences, for_each, the steps of a sub-plan).
    public var children: [StepOutcome]

    init(_ result: StepResult) {
        id = result.id
        itemIndex = result.itemIndex
        state = result.state
        reason = result.reason
        status = result.status
        method = result.method
        url = result.url
        attempts = result.attempts
        duration = result.start.flatMap { start in result.end.map { $0 - start } }
        children = (result.children ?? []).map(StepOutcome.init)
    }
}

/// How a run of a plan ended: every step's outcome, the plan's outputs, and whether it was cancelled.
public struct RunOutcome: Sendable {
    /// The steps outside for_each bodies, in document order (items are in their step's `children`).
    public var steps: [StepOutcome]
    /// The plan's outputs by name, with the values they could be given (`null` for one that failed).
    public var outputs: [String: Value]
    /// Problems evaluating outputs.
    public var outputErrors: [String]
    /// Whether the run was cancelled (its task, or an enclosing one, was cancelled).
    public var wasCancelled: Bool
    /// Whether the plan's `timeout` ran out.
    public var timedOut: Bool
    /// How long the run took.
    public var duration: Duration
    /// When the run started.
    public var startedAt: Date
    /// Secret values seen during the run (secret inputs and outputs, credentials, cookie values), for a
    /// caller that shows the outcome to people to hide.
    public var secrets: [String]
    /// What `reqplan run` would exit with: `0` every step succeeded or was skipped by its own `if`, `1`
    /// something failed, `130` cancelled.
    public var exitCode: Int32

    /// Whether every step succeeded or was skipped by its own `if`, and every output could be evaluated.
    public var succeeded: Bool { exitCode == 0 }

    init(_ result: RunResult, secretInputs: [String]) {
        steps = result.order.compactMap { result.results[$0].map(StepOutcome.init) }
        outputs = Dictionary(result.outputs.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
        outputErrors = result.outputErrors
        wasCancelled = result.interrupted
        timedOut = result.timedOut
        duration = result.duration
        startedAt = result.startedAt
        secrets = secretInputs + result.secrets
        exitCode = result.exitCode
    }

    /// The outcome of the step `id` (outside for_each bodies), if the plan has one.
    public subscript(step id: String) -> StepOutcome? {
        steps.first { $0.id == id }
    }

    /// The output `name` decoded as `T` (through its JSON form).
    /// - Throws: `ReqPlanError.outputMissing` when the plan has no such output,
    ///   `ReqPlanError.outputNotDecodable` when its value is not a `T`.
    public func output<T: Decodable>(_ name: String, as type: T.Type = T.self) throws(ReqPlanError) -> T {
        guard let value = outputs[name] else {
            throw .outputMissing(
                "the plan has no output `\(name)`; its outputs: "
                    + outputs.keys.sorted().map { "`\($0)`" }.joined(separator: ", "))
        }
        return try Self.decode(value, as: type, what: "output `\(name)`")
    }

    /// Every output, decoded as one `T` whose properties are the outputs' names.
    /// - Throws: `ReqPlanError.outputNotDecodable` when the outputs do not make a `T`.
    public func outputs<T: Decodable>(as type: T.Type) throws(ReqPlanError) -> T {
        let object = Value.object(outputs.keys.sorted().map { Value.Field($0, outputs[$0] ?? .null) })
        return try Self.decode(object, as: type, what: "the outputs")
    }

    private static func decode<T: Decodable>(_ value: Value, as type: T.Type, what: String) throws(ReqPlanError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(value.jsonText().utf8))
        } catch {
            throw .outputNotDecodable("\(what) is not \(T.self): \(error)")
        }
    }
}
