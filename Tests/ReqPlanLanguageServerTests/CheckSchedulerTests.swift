import Synchronization
import ReqPlanTestSupport
import Testing

@testable import ReqPlanLanguageServer

/// When the scheduler runs checks: a change after a pause at once, a burst once after it pauses.
@Suite(.timeSensitive) struct CheckSchedulerTests {
    /// The documents checked, in order, with when.
    final class Checked: Sendable {
        let list = Mutex<[(DocumentURI, ContinuousClock.Instant)]>([])
    }

    static let uri = DocumentURI("file:///tmp/a.yaml")
    static let executor = DedicatedExecutor(label: "check-scheduler-under-test")

    /// Runs a scheduler of `delay` beside `body`, recording each check, after a first change to `uri` (after a
    /// pause: nothing was scheduled before it) was sent, at the instant given to `body` (taken just before), and
    /// checked. Returns what `body` returns.
    static func afterAFirstChange<Result: Sendable>(
        delay: Duration, _ body: (CheckScheduler, Checked, _ sent: ContinuousClock.Instant) async throws -> Result
    ) async throws -> Result {
        let scheduler = CheckScheduler(delay: delay)
        let checked = Checked()
        // The scheduler and the test both run off the cooperative pool, as the language server under test runs
        // (`TestClient`): under a full suite on a loaded machine, tests blocking both of the pool's threads held
        // the scheduler's check, due at once, 60 s late, and the test itself over a second between two changes.
        return try await withTaskExecutorPreference(Self.executor) {
            try await withThrowingTaskGroup(of: Void.self, returning: Result.self) { group in
                group.addTask(executorPreference: Self.executor) {
                    await scheduler.run { uri in checked.list.withLock { $0.append((uri, .now)) } }
                }
                let sent = ContinuousClock.now
                scheduler.schedule(uri)
                try await waitFor(1, in: checked)
                let result = try await body(scheduler, checked, sent)
                group.cancelAll()
                return result
            }
        }
    }

    /// Waits until `count` checks ran, or a minute passed (the machine may be busy with other tests).
    static func waitFor(_ count: Int, in checked: Checked) async throws {
        for _ in 0..<12000 where checked.list.withLock({ $0.count }) < count {
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func aChangeAfterAPauseIsCheckedAtOnceWhateverTheDelay() async throws {
        // With a delay of an hour, a check that waited for it would never come within the test.
        try await Self.afterAFirstChange(delay: .seconds(3600)) { _, checked, sent in
            let list = checked.list.withLock { $0 }
            #expect(list.count == 1)
            #expect(list.first.map { $0.1 - sent < .seconds(60) } == true)
        }
    }

    @Test func aBurstOfChangesIsCheckedOnceAfterItsLastChange() async throws {
        // The first change was checked at once; four more, each within the delay of the one before, are
        // checked once, at least the delay after the last of them. That each came within the delay of the one
        // before is the test's own timing, measured around each call: a test held up for over a second between
        // two changes (a starved machine did, in a CI run) sends a change after a pause, which the scheduler
        // rightly checks at once. Such an attempt proves nothing either way and is run again.
        let delay = Duration.seconds(1)
        for _ in 0..<3 {
            let heldTogether = try await Self.afterAFirstChange(delay: delay) { scheduler, checked, sent in
                var previous = sent  // before the call that made the change before: the widest gap possible
                var withinTheDelay = true
                var last = sent
                for _ in 0..<4 {
                    last = .now
                    scheduler.schedule(Self.uri)
                    withinTheDelay = withinTheDelay && ContinuousClock.now - previous < delay
                    previous = last
                }
                guard withinTheDelay else { return false }
                try await Self.waitFor(2, in: checked)
                try await Task.sleep(for: .milliseconds(200))
                let list = checked.list.withLock { $0 }
                #expect(list.count == 2)
                #expect(list.last.map { $0.1 - last >= delay } == true)
                return true
            }
            if heldTogether { return }
        }
        Issue.record("in three attempts, the test was held up for over a second between two changes of the burst")
    }

    @Test func aClosedDocumentIsNotChecked() async throws {
        // With a delay of an hour, the second change is within the delay however late the test runs it (with
        // 200 ms, a loaded machine ran it after the delay, and it was checked at once, as it should be).
        try await Self.afterAFirstChange(delay: .seconds(3600)) { scheduler, checked, _ in
            scheduler.schedule(Self.uri)  // within the delay: waits
            scheduler.cancel(Self.uri)
            try await Task.sleep(for: .milliseconds(500))
            #expect(checked.list.withLock { $0.count } == 1)
        }
    }

    @Test func anotherDocumentsChangeAfterAPauseDoesNotWaitForABurst() async throws {
        // The first document's second change waits an hour; the other document's first change is checked at
        // once, not when the scheduler wakes for the first (it slept until then, and missed it).
        try await Self.afterAFirstChange(delay: .seconds(3600)) { scheduler, checked, _ in
            scheduler.schedule(Self.uri)
            try await Task.sleep(for: .milliseconds(100))  // the scheduler sleeps until the first is due
            let other = DocumentURI("file:///tmp/b.yaml")
            scheduler.schedule(other)
            try await Self.waitFor(2, in: checked)
            #expect(checked.list.withLock { $0.map(\.0) } == [Self.uri, other])
        }
    }
}
