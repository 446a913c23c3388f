import Synchronization

/// When documents are checked: a while after their last change (debounced), so a burst of keystrokes is
/// checked once, with its last text. A change to a document waiting for its check moves the check later;
/// the check itself reads the document's text when it starts.
final class CheckScheduler: Sendable {
    /// When each waiting document is due.
    private let pending = Mutex<[DocumentURI: ContinuousClock.Instant]>([:])
    private let signals: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    /// How long after the last change a document is checked.
    let delay: Duration

    /// A scheduler that checks a document `delay` after its last change.
    init(delay: Duration) {
        self.delay = delay
        (signals, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Checks `uri` `delay` from now (instead of any earlier time it was due).
    func schedule(_ uri: DocumentURI) {
        let due = ContinuousClock.now + delay
        pending.withLock { $0[uri] = due }
        wake.yield()
    }

    /// Drops the check `uri` waits for, if any.
    func cancel(_ uri: DocumentURI) {
        pending.withLock { _ = $0.removeValue(forKey: uri) }
    }

    /// Whether `uri` waits for a check.
    func isPending(_ uri: DocumentURI) -> Bool {
        pending.withLock { $0[uri] != nil }
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
