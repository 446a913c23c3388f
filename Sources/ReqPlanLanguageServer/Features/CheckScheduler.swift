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
    private let signals: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    /// How long after the last change a document is checked.
    let delay: Duration

    /// A scheduler that checks a change after a pause at once, and a burst of changes `delay` after its last.
    init(delay: Duration) {
        self.delay = delay
        (signals, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Checks `uri` now if it was not scheduled within `delay` before, else `delay` from now (instead of any
    /// earlier time it was due).
    func schedule(_ uri: DocumentURI) {
        let now = ContinuousClock.now
        let previous = lastScheduled.withLock { $0.updateValue(now, forKey: uri) }
        let inBurst = previous.map { now - $0 < delay } ?? false
        let due = inBurst ? now + delay : now
        pending.withLock { $0[uri] = due }
        wake.yield()
    }

    /// Drops the check `uri` waits for, if any, and what is kept about it (a closed document).
    func cancel(_ uri: DocumentURI) {
        pending.withLock { _ = $0.removeValue(forKey: uri) }
        lastScheduled.withLock { _ = $0.removeValue(forKey: uri) }
    }

    /// Runs `check` for each document when it is due, one at a time, until the task is cancelled.
    func run(_ check: (DocumentURI) async -> Void) async {
        var signal = signals.makeAsyncIterator()
        while !Task.isCancelled {
            guard let next = pending.withLock({ $0.values.min() }) else {
                if await signal.next() == nil { return }
                continue
            }
            if next > .now {
                // A change while asleep only moves checks later: waking at `next` never misses one.
                do { try await Task.sleep(until: next, clock: .continuous) } catch { return }
                continue
            }
            let now = ContinuousClock.now
            let due = pending.withLock { pending in
                let due = pending.filter { $0.value <= now }.map(\.key)
                for uri in due { pending[uri] = nil }
                return due
            }
            for uri in due { await check(uri) }
        }
    }
}
