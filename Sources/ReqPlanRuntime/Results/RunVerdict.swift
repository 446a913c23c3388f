/// How a run ended, as a whole: what the command line's exit status and the reports' `exit_code` say (the
/// presentation maps one to the other, `RunVerdict.exitCode`). Ordered from best to worst, so a suite's verdict
/// is the greatest of its plans'.
public enum RunVerdict: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// Every step succeeded or was skipped by its own `if`, and every output could be evaluated.
    case passed
    /// A step failed (and no `onFailure` action handled it), was cancelled, or was skipped because of a
    /// failure; an output could not be evaluated; or the plan's timeout ran out.
    case failed
    /// The plan could not run: it, its inputs or its files are invalid.
    case invalid
    /// The run was interrupted (SIGINT or SIGTERM).
    case interrupted

    public static func < (lhs: RunVerdict, rhs: RunVerdict) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension RunResult {
    /// How the run ended.
    public var verdict: RunVerdict {
        if interrupted { return .interrupted }
        if timedOut { return .failed }
        let bad = results.values.contains { result in
            switch result.state {
            case .failed: result.handledBy == nil
            case .cancelled: true
            case .skipped: result.causedByFailure
            case .succeeded: false
            }
        }
        return bad || !outputErrors.isEmpty ? .failed : .passed
    }
}
