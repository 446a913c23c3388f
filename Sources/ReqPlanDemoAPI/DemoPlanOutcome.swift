/// How an example plan ended against the demo API, judged against what the plan is meant to do: most
/// example plans succeed, and a few fail on purpose, to show what a failure looks like. Such a plan says so
/// with a line of its own, `DemoPlanOutcome.failsOnPurposeMark` (a YAML comment, so it changes nothing for
/// `reqplan run` or `validate`), as `plans/partial-failure.yaml` does.
///
/// `reqplan demo` prints a note for each plan that did not simply succeed and exits with `exitCode(of:)`.
public enum DemoPlanOutcome: Sendable, Hashable {
    /// Every step succeeded or was skipped by its own `if`.
    case succeeded
    /// Steps failed, and the plan is marked to fail on purpose.
    case failedOnPurpose
    /// Steps failed, and the plan is not marked to fail on purpose.
    case failed
    /// The plan is marked to fail on purpose, but every step succeeded: the mark, or the plan, is out of date.
    case succeededDespiteMark
    /// The plan or its inputs are not valid: nothing was sent.
    case invalid

    /// The line that marks a plan failing on purpose against the demo API (leading spaces allowed).
    public static let failsOnPurposeMark = "# reqplan demo: fails on purpose"

    /// Whether the plan whose text is `planText` is marked to fail on purpose.
    public static func failsOnPurpose(_ planText: String) -> Bool {
        planText.split(separator: "\n", omittingEmptySubsequences: true).contains { line in
            line.drop { $0 == " " || $0 == "\t" }.hasPrefix(failsOnPurposeMark)
        }
    }

    /// The outcome of a plan that ran: `runExitCode` is its run's exit code (`0` succeeded, `1` a step
    /// failed), `planText` its text.
    public init(runExitCode: Int32, planText: String) {
        let marked = Self.failsOnPurpose(planText)
        switch (runExitCode == 0, marked) {
        case (true, false): self = .succeeded
        case (true, true): self = .succeededDespiteMark
        case (false, true): self = .failedOnPurpose
        case (false, false): self = .failed
        }
    }

    /// Whether the plan did what it is meant to do.
    public var isExpected: Bool {
        switch self {
        case .succeeded, .failedOnPurpose: true
        case .failed, .succeededDespiteMark, .invalid: false
        }
    }

    /// The exit code of a demo whose plans ended so: `0` when every plan did what it is meant to do, else `1`.
    public static func exitCode(of outcomes: [DemoPlanOutcome]) -> Int32 {
        outcomes.allSatisfy(\.isExpected) ? 0 : 1
    }
}
