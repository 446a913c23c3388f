import ReqPlanRuntime

/// The numbers a verdict is shown as: the exit status of `reqplan run` (and of `report merge`) and the
/// `exit_code` of the JSON, JUnit, trace and HTML reports. The runtime says how a run ended; what number
/// stands for it is the outputs' convention, decided here once.
extension RunVerdict {
    /// `0` passed, `1` failed, `2` invalid, `130` interrupted (128 + SIGINT, as shells report it).
    public var exitCode: Int32 {
        switch self {
        case .passed: 0
        case .failed: 1
        case .invalid: 2
        case .interrupted: 130
        }
    }

    /// The verdict an exit code stands for, read back from a report; a code reqplan does not give is a
    /// failure.
    public init(exitCode: Int32) {
        self = Self.allCases.first { $0.exitCode == exitCode } ?? .failed
    }
}

extension RunResult {
    /// `verdict`'s exit code.
    public var exitCode: Int32 { verdict.exitCode }
}

extension SuiteRun.Result {
    /// `verdict`'s exit code: the worst of its plans'.
    public var exitCode: Int32 { verdict.exitCode }
}
