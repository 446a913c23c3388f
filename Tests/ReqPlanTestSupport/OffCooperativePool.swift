import Foundation

/// Runs `work`, which blocks (it waits for a process, or reads a pipe until a server is ready), on a thread
/// of its own and waits for it without blocking.
///
/// Swift concurrency has as many cooperative threads as cores (two on CI), and the in-process servers other
/// tests run at the same time (the demo API) answer on them: a test that blocks one for tens of seconds
/// starves them until requests time out. Expectations belong on the awaiting side: an issue recorded on
/// the other thread has no test to belong to.
public func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.start()
    }
}
