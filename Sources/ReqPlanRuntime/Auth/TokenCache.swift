import Synchronization

/// The tokens of a run (and of a suite's plans), one per distinct grant, shared by every step that asks for one.
///
/// - **Single flight.** However many steps ask at the same moment, a grant's token is fetched once: the first
///   ask starts the fetch, and every ask that comes while it runs waits for the same answer.
/// - **Renewed before it runs out.** A token with less than `renewBefore` left (or a tenth of its lifetime, when
///   that is less) is fetched again on the next ask, so a request never goes out with a token that expires on
///   the way.
/// - **Renewed once after a refusal.** `refused(_:for:)` drops the token a server refused (a 401 whose
///   `WWW-Authenticate` says it is invalid). The next ask fetches anew, and the many steps refused with the
///   same token at once cause one fetch, not one each: a refusal of a token already replaced is ignored.
/// - **A failed fetch is not kept.** Every ask waiting for it gets its error; the next ask tries again.
///
/// The cache fetches nothing itself: each ask brings the fetch (an OAuth 2.0 token request, or whatever the
/// grant is), so this type stays free of networking, and its scheduling can be tested alone.
public actor TokenCache<Grant: Hashable & Sendable> {
    /// A token as the authorization server gave it.
    public struct Token: Sendable, Hashable {
        /// The access token, sent with each request.
        public var value: String
        /// When it stops being valid (from `expires_in`), or nil when the server did not say.
        public var expiresAt: ContinuousClock.Instant?
        /// The refresh token that came with it, if any.
        public var refreshToken: String?

        public init(value: String, expiresAt: ContinuousClock.Instant? = nil, refreshToken: String? = nil) {
            self.value = value
            self.expiresAt = expiresAt
            self.refreshToken = refreshToken
        }
    }

    private enum Entry {
        case ready(Token, fetchedAt: ContinuousClock.Instant)
        case fetching(Task<Token, any Error>, Waiters)
    }

    /// How many asks wait for a fetch: when every one of them is cancelled (the run is), the fetch is too, so
    /// that a token endpoint that never answers holds nobody after Ctrl-C.
    private final class Waiters: Sendable {
        private let count = Mutex(0)

        func join() { count.withLock { $0 += 1 } }

        /// Whether this was the last waiter.
        func leave() -> Bool {
            count.withLock { count in
                count -= 1
                return count == 0
            }
        }
    }

    private var entries: [Grant: Entry] = [:]
    /// The last token each grant got, kept after a refusal or expiry for its refresh token.
    private var latest: [Grant: Token] = [:]
    /// How much validity a token must have left to be handed out.
    public let renewBefore: Duration
    private let now: @Sendable () -> ContinuousClock.Instant

    /// A cache that renews a token when less than `renewBefore` of it is left; `now` is the clock it reads
    /// (a test gives its own).
    public init(
        renewBefore: Duration = .seconds(30), now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.renewBefore = renewBefore
        self.now = now
    }

    /// The token of `grant`: the one kept while it has more than `renewBefore` left, else the answer of the
    /// fetch under way, else the answer of `fetch`, started now. `fetch` is given the grant's last token, if
    /// any (expired or refused): its refresh token may renew it.
    /// - Throws: what `fetch` threw (to every ask that waited for it), or `CancellationError` when this ask's
    ///   task was cancelled while it waited. A cancelled ask waits for the fetch to end while other asks wait
    ///   for it too (the fetch goes on for them, bounded by its own timeout); when every ask waiting is
    ///   cancelled, the fetch is cancelled and they all end at once.
    public func token(
        for grant: Grant, fetch: @escaping @Sendable (Token?) async throws -> Token
    ) async throws -> Token {
        switch entries[grant] {
        case .ready(let token, let fetchedAt) where !needsRenewal(token, fetchedAt: fetchedAt):
            return token
        case .fetching(let task, let waiters):
            return try await answer(of: task, waiters, for: grant, fetch: fetch)
        case .ready, nil:
            // Not a child of this ask: the fetch is shared by every ask that comes while it runs, and one of
            // them being cancelled must not cancel it for the others.
            let last = latest[grant]
            let task = Task { try await fetch(last) }
            let waiters = Waiters()
            entries[grant] = .fetching(task, waiters)
            return try await answer(of: task, waiters, for: grant, fetch: fetch)
        }
    }

    /// Drops `token` as the token of `grant`, after a server refused it, so that the next ask fetches anew. A
    /// token already replaced (another step was refused first, and the fetch that followed has begun or ended)
    /// is left alone.
    public func refused(_ token: Token, for grant: Grant) {
        if case .ready(let kept, _) = entries[grant], kept == token { entries[grant] = nil }
    }

    /// Ends every fetch under way and forgets every token (the run is over).
    public func removeAll() {
        for case .fetching(let task, _) in entries.values { task.cancel() }
        entries = [:]
        latest = [:]
    }

    /// Whether less than `renewBefore` is left of `token`, or less than a tenth of its lifetime when that is
    /// shorter (a token that lives 5 s is renewed after 4.5 s, not fetched anew for every request).
    private func needsRenewal(_ token: Token, fetchedAt: ContinuousClock.Instant) -> Bool {
        guard let expiresAt = token.expiresAt else { return false }
        return expiresAt - now() < min(renewBefore, (expiresAt - fetchedAt) / 10)
    }

    /// Waits for `task` and keeps what it gave as `grant`'s, unless the entry moved on meanwhile (a refusal
    /// or `removeAll()`): then the answer serves this ask only. A fetch cancelled because every ask waiting
    /// for it was, while this one was not, is started again for this one.
    private func answer(
        of task: Task<Token, any Error>, _ waiters: Waiters, for grant: Grant,
        fetch: @escaping @Sendable (Token?) async throws -> Token
    ) async throws -> Token {
        waiters.join()
        let result = await withTaskCancellationHandler {
            await task.result
        } onCancel: {
            if waiters.leave() { task.cancel() }
        }
        let current: Bool
        if case .fetching(let kept, _) = entries[grant] { current = kept == task } else { current = false }
        switch result {
        case .success(let token):
            if current {
                entries[grant] = .ready(token, fetchedAt: now())
                latest[grant] = token
            }
            try Task.checkCancellation()
            return token
        case .failure(let error):
            if current { entries[grant] = nil }
            if task.isCancelled && !Task.isCancelled { return try await token(for: grant, fetch: fetch) }
            throw error
        }
    }
}
