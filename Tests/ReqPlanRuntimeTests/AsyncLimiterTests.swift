import ReqPlanTestSupport
import Testing

@testable import ReqPlanRuntime

@Suite(.timeSensitive) struct AsyncLimiterTests {
    /// A slot given back while another task has found none free, but has not yet queued itself to wait,
    /// must not be lost. It was once: the release found nobody waiting and put the slot back, the task then
    /// queued itself and waited for a release that never came (a random plan under `concurrency: 1` hung
    /// in `SchedulerPropertyTests` about once in ten runs of the suite). Tasks taking and giving back the
    /// one slot of a limit of 1, many times, hit that window; a lost slot leaves them all waiting, which
    /// the time limit below turns into a failure instead of a hang (a wait ends when its task is
    /// cancelled).
    @Test func aSlotGivenBackWhileATaskDecidesToWaitIsNotLost() async {
        let limiter = AsyncLimiter(limit: 1)
        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withTaskGroup(of: Void.self) { workers in
                    for _ in 0..<4 {
                        workers.addTask {
                            for _ in 0..<20_000 where await limiter.acquire() {
                                limiter.release()
                            }
                        }
                    }
                }
                return true
            }
            group.addTask {
                // Not a speed target: 80,000 turns take well under a second; a lost slot, forever.
                try? await Task.sleep(for: .seconds(60))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(finished, "the tasks waited for a slot that was free")
        #expect(limiter.peak == 1)
    }
}
