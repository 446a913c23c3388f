import Synchronization

/// When documents are checked. A change that comes after a pause (no other change to the document within
/// `delay` before it) is checked at once: one keystroke gets its diagnostics as soon as they can be had. A
/// change that follows another within `delay` is part of a burst, and waits until `delay` after the last
/// change of the burst (debounced), so a burst is checked once, with its last text. The check itself reads
/// the document's text when it starts; documents are checked one at a time, so a change that comes during
/// a check is checked right after it.
final class CheckScheduler: Sendable {
    /// When each waiting document is due.
    private let pending = Mutex<[DocumentURI: ContinuousClock.Instant]>([:])
    /// When each document was last scheduled: a change within `delay` of it is part of a burst.
    private let lastScheduled = Mutex<[DocumentURI: ContinuousClock.Instant]>([:])
    /// Whether a change came since the loop last looked, and the loop's wait for one, if it waits.
    private let wake = Mutex<Wake>(Wake())
    /// How long after the last change a document is checked.
    let delay: Duration

    /// A scheduler that checks a change after a pause at once, and a burst of changes `delay` after its last.
    init(delay: Duration) {
        self.delay = delay
    }

    /// Checks `uri` now if it was not scheduled within `delay` before, else `delay` from now (instead of any
    /// earlier time it was due).
    func schedule(_ uri: DocumentURI) {
        let now = ContinuousClock.now
        let previous = lastScheduled.withLock { $0.updateValue(now, forKey: uri) }
        let inBurst = previous.map { now - $0 < delay } ?? false
        let due = inBurst ? now + delay : now
        pending.withLock { $0[uri] = due }
        wakeUp()
    }

    /// Drops the check `uri` waits for, if any, and what is kept about it (a closed document).
    func cancel(_ uri: DocumentURI) {
        pending.withLock { _ = $0.removeValue(forKey: uri) }
        lastScheduled.withLock { _ = $0.removeValue(forKey: uri) }
    }

    /// Runs `check` for each document when it is due, one at a time, until the task is cancelled.
    func run(_ check: (DocumentURI) async -> Void) async {
        while !Task.isCancelled {
            let now = ContinuousClock.now
            let next = pending.withLock { $0.values.min() }
            guard let next, next <= now else {
                // Until the next check is due, or a change comes: one that comes after a pause is due at
                // once, earlier than any waiting burst of another document.
                await waitForAChange(orUntil: next)
                continue
            }
            let due = pending.withLock { pending in
                let due = pending.filter { $0.value <= now }.map(\.key)
                for uri in due { pending[uri] = nil }
                return due
            }
            for uri in due { await check(uri) }
        }
    }

    /// What the loop and `schedule` share to wake the loop: whether a change came that the loop has not seen,
    /// and the loop's wait, while it waits. Not an `AsyncStream`: the loop races a wait for a change against a
    /// sleep until the next check is due, and the loser is cancelled; a stream's iterator ends the stream when
    /// the task awaiting it is cancelled, so the next wait would find it finished.
    private struct Wake {
        var came = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    /// Ends the loop's wait, or, if it does not wait, its next one at once.
    private func wakeUp() {
        let waiter = wake.withLock { wake in
            guard let waiter = wake.waiter else {
                wake.came = true
                return nil as CheckedContinuation<Void, Never>?
            }
            wake.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns when a change comes (or came since the last wait), at `deadline` if any, or when the task is
    /// cancelled, whichever is first.
    private func waitForAChange(orUntil deadline: ContinuousClock.Instant?) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.nextChange() }
            if let deadline {
                group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns when a change comes, at once if one came since the last wait, or when the task is cancelled.
    private func nextChange() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let now = wake.withLock { wake in
                    if wake.came {
                        wake.came = false
                        return true
                    }
                    // A task cancelled before it waits is not waited for: its handler found no waiter.
                    if Task.isCancelled { return true }
                    wake.waiter = waiter
                    return false
                }
                if now { waiter.resume() }
            }
        } onCancel: {
            wake.withLock { wake in
                defer { wake.waiter = nil }
                return wake.waiter
            }?.resume()
        }
    }
}
