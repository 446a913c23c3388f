/// What a run goes on under: `PlanRun` and `SuiteRun` hand it the work of a run, and it may cancel that
/// work from outside. The library itself never touches the process; the command line's supervisor turns
/// SIGINT and SIGTERM into cancellation.
public protocol RunSupervisor: Sendable {
    /// Runs `body` to its end and returns what it returns; cancelling the work is how a supervisor stops it
    /// (the executor still returns the results gathered so far).
    func supervise<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) async -> Value
}

/// Runs the work as it is: only cancelling the calling task stops it.
public struct UnsupervisedRun: RunSupervisor {
    /// Creates the supervisor that adds nothing.
    public init() {}

    /// Runs `body` in the calling task.
    public func supervise<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) async -> Value {
        await body()
    }
}
