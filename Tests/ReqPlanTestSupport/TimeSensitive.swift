import Foundation
import Synchronization
import Testing

/// A trait for the tests whose outcome depends on getting the CPU in time: those that start servers (the demo
/// API, nginx, httpbin, `openssl s_server`, `reqplan` itself) and wait for their answers within deadlines,
/// and those that measure what a timeout, a cancellation or a scheduler does. At most `width` of their test
/// cases run at once, whatever Swift Testing's own parallelism; the other tests (parsing, checking, pure
/// functions) run beside them as before.
///
/// Without it, plain `swift test` on two cores started some 400 of these at once, and on a machine busy with
/// other work (a build beside it) a request to an in-process server on loopback took seconds: 20 tests failed
/// at their deadlines. CI used to set `SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH`, which the README asked
/// users to set by hand; the trait makes the README's `swift test` hold as written.
///
/// Applied to a suite, it holds for each test case of the suite's tests, nested suites included.
public struct TimeSensitive: TestTrait, SuiteTrait, TestScoping {
    /// How many time-sensitive test cases run at once: the cores, at least two.
    public static let width = max(2, ProcessInfo.processInfo.activeProcessorCount)

    static let gate = AsyncGate(width: width)

    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> TimeSensitive? {
        // Each test case, not the suite around them: a suite's scope would hold a slot for all its tests.
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await Self.gate.run(function)
    }
}

extension Trait where Self == TimeSensitive {
    /// The test needs the CPU in time (servers, deadlines, schedulers): at most `TimeSensitive.width` such test
    /// cases run at once.
    public static var timeSensitive: Self { TimeSensitive() }
}

/// An asynchronous counting semaphore: `run` waits for one of `width` slots, first come first served.
final class AsyncGate: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(width: Int) {
        state = Mutex(State(free: width))
    }

    /// Runs `body` in a slot, waiting for one first.
    func run(_ body: @Sendable () async throws -> Void) async throws {
        await acquire()
        defer { release() }
        try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.free += 1
                return nil
            }
            // The slot passes to the first waiter as it is: `free` does not change.
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
