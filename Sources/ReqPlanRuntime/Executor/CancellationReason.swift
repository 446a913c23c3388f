import Synchronization

/// Why a scope was cancelled, set before its tasks are cancelled so that each
/// cancelled step can say why.
final class CancellationReason: Sendable {
    private let reason = Mutex<StepReason?>(nil)

    /// Records the first reason only.
    func set(_ value: StepReason) {
        reason.withLock { if $0 == nil { $0 = value } }
    }

    var value: StepReason? { reason.withLock { $0 } }
}
