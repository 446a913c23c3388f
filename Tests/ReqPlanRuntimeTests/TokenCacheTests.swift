import ReqPlanRuntime
import Synchronization
import Testing

/// The token cache's scheduling: one fetch per grant however many ask at once, renewal before expiry, one
/// renewal after many refusals of the same token, failures not kept. The token endpoint here is a test double
/// (`CountingTokenEndpoint`) that counts its fetches; the real flows run against a real provider elsewhere.
@Suite struct TokenCacheTests {
    /// A token endpoint that counts the fetches and answers `token-N` for the Nth, after `delay`.
    final class CountingTokenEndpoint: Sendable {
        let fetches = Mutex(0)
        let delay: Mutex<Duration>
        let lifetime: Duration?
        let clock: MovableClock
        let failing = Mutex(false)

        init(delay: Duration = .milliseconds(20), lifetime: Duration? = nil, clock: MovableClock = MovableClock()) {
            self.delay = Mutex(delay)
            self.lifetime = lifetime
            self.clock = clock
        }

        struct Refused: Error {}

        @Sendable func fetch(_ previous: TokenCache<String>.Token?) async throws -> TokenCache<String>.Token {
            let number = fetches.withLock { count in
                count += 1
                return count
            }
            try await Task.sleep(for: delay.withLock { $0 })
            if failing.withLock({ $0 }) { throw Refused() }
            return .init(value: "token-\(number)", expiresAt: lifetime.map { clock.now() + $0 })
        }

        var count: Int { fetches.withLock { $0 } }
    }

    /// A clock the test moves by hand.
    final class MovableClock: Sendable {
        let instant = Mutex(ContinuousClock.now)
        @Sendable func now() -> ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(by duration: Duration) { instant.withLock { $0 += duration } }
    }

    @Test func aThousandStepsAskingAtOnceCauseOneFetch() async throws {
        let endpoint = CountingTokenEndpoint()
        let cache = TokenCache<String>()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<1000 {
                group.addTask { try await cache.token(for: "client", fetch: endpoint.fetch).value }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(endpoint.count == 1)
        #expect(tokens == ["token-1"])
        // Another grant is another token.
        #expect(try await cache.token(for: "other client", fetch: endpoint.fetch).value == "token-2")
        #expect(try await cache.token(for: "client", fetch: endpoint.fetch).value == "token-1")
    }

    @Test func aTokenIsRenewedBeforeItRunsOut() async throws {
        let clock = MovableClock()
        let endpoint = CountingTokenEndpoint(lifetime: .seconds(200), clock: clock)
        let cache = TokenCache<String>(renewBefore: .seconds(10), now: clock.now)
        #expect(try await cache.token(for: "client", fetch: endpoint.fetch).value == "token-1")
        clock.advance(by: .seconds(189))  // 11 s left: kept
        #expect(try await cache.token(for: "client", fetch: endpoint.fetch).value == "token-1")
        clock.advance(by: .seconds(2))  // 9 s left: renewed
        #expect(try await cache.token(for: "client", fetch: endpoint.fetch).value == "token-2")
        #expect(endpoint.count == 2)
    }

    @Test func aShortLivedTokenIsKeptForNineTenthsOfItsLife() async throws {
        let clock = MovableClock()
        let endpoint = CountingTokenEndpoint(lifetime: .seconds(5), clock: clock)
        let cache = TokenCache<String>(now: clock.now)  // renews 30 s before: more than the whole lifetime
        #expect(try await cache.token(for: "client", fetch: endpoint.fetch).value == "token-1")
        clock.advance(by: .milliseconds(4400))  // 0.6 s left of 5: kept
        #expect(try await cache.token(for: "client", fetch: endpoint.fetch).value == "token-1")
        clock.advance(by: .milliseconds(200))  // 0.4 s left: renewed
        #expect(try await cache.token(for: "client", fetch: endpoint.fetch).value == "token-2")
    }

    @Test func manyRefusalsOfOneTokenCauseOneRenewal() async throws {
        let endpoint = CountingTokenEndpoint()
        let cache = TokenCache<String>()
        let refused = try await cache.token(for: "client", fetch: endpoint.fetch)
        // 100 steps are refused with the same token at once; each drops it and asks again.
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    await cache.refused(refused, for: "client")
                    return try await cache.token(for: "client", fetch: endpoint.fetch).value
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(endpoint.count == 2)
        #expect(tokens == ["token-2"])
        // A refusal of the old token, late, leaves the new one alone.
        await cache.refused(refused, for: "client")
        #expect(try await cache.token(for: "client", fetch: endpoint.fetch).value == "token-2")
        #expect(endpoint.count == 2)
    }

    @Test func aFailedFetchFailsEveryoneWaitingAndIsNotKept() async throws {
        let endpoint = CountingTokenEndpoint()
        endpoint.failing.withLock { $0 = true }
        let cache = TokenCache<String>()
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 {
                group.addTask { (try? await cache.token(for: "client", fetch: endpoint.fetch)) == nil }
            }
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(failures == 50)
        #expect(endpoint.count == 1)
        endpoint.failing.withLock { $0 = false }
        #expect(try await cache.token(for: "client", fetch: endpoint.fetch).value == "token-2")
    }

    @Test func aCancelledAskDoesNotFailTheOthers() async throws {
        let endpoint = CountingTokenEndpoint(delay: .milliseconds(200))
        let cache = TokenCache<String>()
        let first = Task { try await cache.token(for: "client", fetch: endpoint.fetch) }
        // Let the first ask start the fetch, then cancel it while a second waits for the same fetch.
        while endpoint.count == 0 { try await Task.sleep(for: .milliseconds(1)) }
        let second = Task { try await cache.token(for: "client", fetch: endpoint.fetch) }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        // The second gets a token: the fetch under way when it joined it (`token-1`), or, when the first was
        // cancelled before the second joined and so cancelled the fetch, one fetched again for it.
        let token = try await second.value.value
        #expect(token == "token-\(endpoint.count)")
    }

    @Test func whenEveryAskIsCancelledTheFetchIsCancelledAndTheyAllEnd() async throws {
        // An endpoint that would answer in an hour: only cancelling its fetch ends the asks.
        let endpoint = CountingTokenEndpoint(delay: .seconds(3600))
        let cache = TokenCache<String>()
        let asks = (0..<3).map { _ in Task { try await cache.token(for: "client", fetch: endpoint.fetch) } }
        while endpoint.count == 0 { try await Task.sleep(for: .milliseconds(1)) }
        for ask in asks { ask.cancel() }
        for ask in asks { await #expect(throws: CancellationError.self) { try await ask.value } }
        // The next ask fetches anew, and gets the answer of its own fetch.
        endpoint.delay.withLock { $0 = .zero }
        #expect(try await cache.token(for: "client", fetch: endpoint.fetch).value == "token-2")
    }

    @Test func theFetchIsGivenTheLastTokenForItsRefreshToken() async throws {
        let cache = TokenCache<String>()
        let given = Mutex<[String?]>([])
        let fetch: @Sendable (TokenCache<String>.Token?) async throws -> TokenCache<String>.Token = { previous in
            let number = given.withLock { seen in
                seen.append(previous?.refreshToken)
                return seen.count
            }
            return .init(value: "token-\(number)", refreshToken: "refresh-\(number)")
        }
        let first = try await cache.token(for: "client", fetch: fetch)
        await cache.refused(first, for: "client")
        _ = try await cache.token(for: "client", fetch: fetch)
        #expect(given.withLock { $0 } == [nil, "refresh-1"])
    }
}
