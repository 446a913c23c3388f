import Foundation
import ReqPlanTransport
import ReqPlanPlanner
import ReqPlanSyntax

extension Executor {
    /// How much of a response body that nothing reads is kept, for the verbose log and the reports.
    static let unreadBodyExcerpt = 64 << 10

    /// The retry settings in force for a step, defaults applied.
    struct EffectiveRetry {
        var attempts = 1
        var backoff = Duration.milliseconds(100)
        var maxBackoff = Duration.seconds(10)
        var on: Set<RetryCondition> = Set(RetryCondition.allCases)
        var unsafe = false

        init(_ policy: RetryPolicy?) {
            guard let policy else { return }
            if let value = policy.attempts?.value { attempts = value }
            if let value = policy.backoff?.value { backoff = value.duration }
            if let value = policy.maxBackoff?.value { maxBackoff = value.duration }
            if let value = policy.on { on = Set(value.map(\.value)) }
            if let value = policy.unsafe?.value { unsafe = value }
        }
    }

    /// What a request step's node settles for all its requests, in every run of the plan: its plan's
    /// `defaults` applied to its `retry`, `expect` and `timeout`, and what the graph says of it. Worked out
    /// once per node when the plan is laid out (`Layout`), not once per request.
    struct RequestSettings: Sendable {
        let retry: EffectiveRetry
        let expectation: Expectation?
        /// Each attempt's deadline (`timeout`, else `defaults.timeout`); nil: the transport's.
        let timeout: Duration?
        let retention: Retention
        let usesCookies: Bool
        /// Whether the body is parsed, whatever the run's schema checks: something reads it.
        let readsBody: Bool

        init(_ node: StepNode, in graph: PlanGraph) {
            let defaults = graph.plan(of: node.nodeID).defaults
            retry = EffectiveRetry(node.step.retry?.merged(over: defaults.retry) ?? defaults.retry)
            expectation = node.step.expect?.merged(over: defaults.expect) ?? defaults.expect
            timeout = (node.step.timeout ?? defaults.timeout)?.value.duration
            retention = graph.retention(of: node.nodeID)
            usesCookies = graph.usesCookies(node.nodeID)
            readsBody = retention.body || expectation?.body != nil || expectation?.conditions.isEmpty == false
        }

        /// The settings of each node of `graph` that sends requests, by `NodeID`.
        static func all(in graph: PlanGraph) -> [RequestSettings?] {
            graph.nodes.map { $0.kind.isUnit ? RequestSettings($0, in: graph) : nil }
        }
    }

    /// Everything a request step needs across its attempts (and polls).
    struct RequestRun: Sendable {
        let node: StepNode
        let prepared: PreparedRequest
        let scope: Scope
        let itemIndex: Int?
        /// What its expressions see (a run of a request built once gets its own executor's net: `Executor.runLone`).
        var context: EvaluationContext
        let retry: EffectiveRetry
        /// Each attempt's deadline (`timeout`, else `defaults.timeout`); nil: the transport's.
        let timeout: Duration?
        let expectation: Expectation?
        /// Whether failed attempts may be repeated: the method is idempotent, or `retry.unsafe`.
        let mayRetry: Bool
        /// What later steps read of the response (the rest is dropped once checked).
        let retention: Retention
        /// Told when the request starts (`true`) and ends (`false`) waiting for a retry or the next poll.
        let retryWait: (@Sendable (Bool) -> Void)?
        /// The operation whose response schemas each response is checked against (`openapi:`), unless
        /// `--no-response-schema-check`.
        let responseCheck: BoundOperation?
        /// The credentials each attempt gets as it is sent (an OAuth 2.0 token, a signature, a digest), and
        /// where the plan writes them.
        var credentials: (credentials: SentCredentials, range: SourceRange)? = nil
    }

    /// What one response means for the exchange it may end.
    enum Verdict {
        /// The request succeeded with it, having met `checks`.
        case succeeded(checks: [ExpectationCheck])
        /// The request failed with it (`attemptError`: what the attempt records); `retryable` when
        /// `retry.on` covers it.
        case failed(
            StepReason, attemptError: String, retryable: Bool, retryAfter: Duration?, checks: [ExpectationCheck])
        /// Polling goes on: the response is accepted, but `until` does not hold on it yet.
        case pending
    }

    /// How an exchange (one request with its retries) ended.
    enum ExchangeEnd {
        /// With a success or a failure in the result.
        case finished
        /// With a response polling does not stop at.
        case pending
        /// Cancelled (the result says why).
        case cancelled
    }

    /// Sends a request with its retries (or polls it, with `poll:`), checks the expectations, and keeps
    /// what later steps read.
    /// - Parameter retryWait: told when the request starts (`true`) and ends (`false`) waiting for a
    ///   retry or the next poll; a for_each's worker starts another worker in its place meanwhile.
    func runRequest(
        _ node: StepNode, _ spec: RequestSpec, frame: Frame, scope: Scope, itemIndex: Int?, context: EvaluationContext,
        retryWait: (@Sendable (Bool) -> Void)? = nil
    ) async -> StepResult {
        switch await buildRequest(
            node, spec, scope: scope, itemIndex: itemIndex, context: context, retryWait: retryWait)
        {
        case .failure(let ended):
            return ended.result
        case .success(let built):
            return await runBuilt(built)
        }
    }

    /// A request built, with everything its exchanges need: what `runBuilt` sends. `reqplan load` builds a
    /// plan's one request once and runs it in every iteration (`Layout.loneRequest`).
    struct BuiltRequest: Sendable {
        var run: RequestRun
        /// Whether the body is parsed (something reads it, or its schema is checked).
        let decodes: Bool
        /// The step's result before its first attempt (its method and URL).
        let result: StepResult
    }

    /// The result of a request that could not be built (failed, or cancelled while building).
    struct UnbuiltRequest: Error {
        let result: StepResult
    }

    /// Builds the request of `node` in `context`: its expressions evaluated, its files read, its credentials
    /// and settings worked out.
    func buildRequest(
        _ node: StepNode, _ spec: RequestSpec, scope: Scope, itemIndex: Int?, context: EvaluationContext,
        retryWait: (@Sendable (Bool) -> Void)? = nil
    ) async -> Result<BuiltRequest, UnbuiltRequest> {
        var result = StepResult(id: node.id, state: .succeeded)
        result.itemIndex = itemIndex
        var prepared: PreparedRequest
        var credentials: (credentials: SentCredentials, range: SourceRange)?
        let settings = requestSettings[node.nodeID] ?? RequestSettings(node, in: graph)
        // Building evaluates the request's expressions, which may search an earlier response: within the
        // attempt's time, as judging its response is.
        let timeout = settings.timeout
        let buildStart = ContinuousClock.now
        let limits = Self.evaluationLimits(timeout: timeout, from: buildStart)
        do {
            let builder = builders[node.instance]
            (prepared, credentials) = try EvaluationLimits.$current.withValue(limits) {
                let prepared = try builder.build(
                    spec, in: context, usesCookies: settings.usesCookies, secrets: configuration.secrets)
                let credentials = try builder.sentCredentials(for: spec, in: context, secrets: configuration.secrets)
                return (
                    prepared,
                    credentials.flatMap { sent in builder.effectiveAuth(of: spec).map { (sent, $0.range) } }
                )
            }
        } catch let error as EvaluationError {
            let enclosing = await Self.endedByEnclosingTimeout(limits, ownTimeout: timeout, from: buildStart)
            if enclosing || error.kind == .cancelled || Task.isCancelled {
                return .failure(UnbuiltRequest(result: cancelled(result, scope: scope, node: node, started: false)))
            }
            result.state = .failed
            // Located where the request went wrong (a header, a value, a file), not only at its step.
            result.reason = StepReason(error.kind, secretNet.redact(error.message), at: error.range)
            return .failure(UnbuiltRequest(result: result))
        } catch {
            result.state = .failed
            result.reason = StepReason(.evaluation, secretNet.redact("\(error)"))
            return .failure(UnbuiltRequest(result: result))
        }
        result.method = prepared.method.rawValue
        result.url = prepared.shownURL

        let responseCheck = configuration.checksResponseSchemas ? graph.apiOperations[node.id] : nil
        let decodes = settings.readsBody || responseCheck != nil
        // A body nothing reads (no expression, matcher, schema check or poll) is not held: only its start,
        // which the verbose log and reports show.
        if !decodes && node.step.poll == nil { prepared.keepsResponseBody = Self.unreadBodyExcerpt }
        var run = RequestRun(
            node: node, prepared: prepared, scope: scope, itemIndex: itemIndex, context: context,
            retry: settings.retry, timeout: timeout, expectation: settings.expectation,
            mayRetry: prepared.method.isIdempotent || settings.retry.unsafe, retention: settings.retention,
            retryWait: retryWait, responseCheck: responseCheck)
        run.credentials = credentials
        return .success(BuiltRequest(run: run, decodes: decodes, result: result))
    }

    /// Sends a built request with its retries (or polls it), checks the expectations, and keeps what later
    /// steps read.
    func runBuilt(_ built: BuiltRequest) async -> StepResult {
        var result = built.result
        let run = built.run
        if let poll = run.node.step.poll { return await runPolling(run, poll, result: result) }
        _ = await exchange(run, result: &result, decodingBody: built.decodes) { response, body, problem, duration in
            self.verdict(on: response, body: body, bodyProblem: problem, duration: duration, of: run)
        }
        return result
    }

    /// Whether a response meets the step's `expect:` (or `expectation`, when given), and if not,
    /// whether `retry:` repeats it.
    func verdict(
        on response: TransportResponse, body: Value, bodyProblem: String?, duration: Duration,
        of run: RequestRun, expectation: Expectation?? = nil
    ) -> Verdict {
        let expectation = expectation ?? run.expectation
        let checks = ExpectationChecker.checks(
            expectation, status: response.status, headers: response.headers, body: body,
            bodyProblem: bodyProblem, duration: duration, url: run.prepared.shownURL, in: run.context)
        guard let first = checks.first(where: { !$0.passed }) else {
            return schemaVerdict(on: response, body: body, bodyProblem: bodyProblem, of: run, checks: checks)
        }
        // The attempt records every failed check, as the reason does (JUnit lists each attempt's).
        let problems = checks.flatMap(\.problems).joined(separator: "; ")
        return .failed(
            StepReason(.expectation, problems, at: first.range), attemptError: problems,
            retryable: retryable(response.status, run: run, expectation: expectation),
            retryAfter: Self.retryAfter(response.header("retry-after")), checks: checks)
    }

    /// The limits of the evaluations of an attempt that starts at `start`: they end with it, `timeout` (else
    /// 60 s) later, or earlier with an enclosing step's or the plan's timeout; a stop is recorded, for the
    /// attempt to tell a timeout from another failure.
    static func evaluationLimits(timeout: Duration?, from start: ContinuousClock.Instant) -> EvaluationLimits {
        let length = timeout ?? defaultAttemptTimeout
        var limits = EvaluationLimits.current.ending(attemptFrom: start, after: length)
        limits.stops = EvaluationStops()
        return limits
    }

    /// Whether an evaluation under `limits` was stopped by the timeout of an enclosing step or of the plan,
    /// rather than by its attempt's own (`ownTimeout`): the step is then cancelled as that timeout cancels
    /// the rest, with its reason. The timer that cancels it is due, and runs once a thread is free; this
    /// waits for it (a second at most).
    static func endedByEnclosingTimeout(
        _ limits: EvaluationLimits, ownTimeout: Duration?, from start: ContinuousClock.Instant
    ) async -> Bool {
        guard let stopped = limits.stops?.stopped, stopped.reason == .deadline, let deadline = limits.deadline,
            deadline < start.advanced(by: ownTimeout ?? defaultAttemptTimeout)
        else { return false }
        try? await Task.sleep(for: .seconds(1))
        return true
    }

    /// Whether a response that met `expect:` fits its schema in the bound API description: a mismatch
    /// fails the step (not retried: the same server answers alike) with the first wrong value's pointer.
    /// The fit is one more check after `checks`, when there is a schema to fit.
    func schemaVerdict(
        on response: TransportResponse, body: Value, bodyProblem: String?, of run: RequestRun,
        checks: [ExpectationCheck]
    ) -> Verdict {
        guard let bound = run.responseCheck, bodyProblem == nil, !response.body.isEmpty else {
            return .succeeded(checks: checks)
        }
        guard
            let found = bound.responseMismatch(
                status: response.status, contentType: response.header("content-type"), body: body)
        else {
            return .succeeded(checks: checks + [ExpectationCheck(.schema(bound.label), at: nil, problems: [])])
        }
        // The mismatch quotes the response: through the textual net.
        let message = secretNet.redact(
            "the response does not fit `\(bound.label)` (\(found.response)): \(found.mismatch)")
        return .failed(
            StepReason(.schema, message), attemptError: message, retryable: false, retryAfter: nil,
            checks: checks + [ExpectationCheck(.schema(bound.label), at: nil, problems: [message])])
    }

    /// Whether `retry:` repeats a response with this status: a 5xx or 429 that `expect.status` does not
    /// accept (a status the expectation accepts is not retried, even if a body matcher failed).
    func retryable(_ status: Int, run: RequestRun, expectation: Expectation?) -> Bool {
        guard !Self.accepts(expectation, status: status) else { return false }
        return
            ((status >= 500 && run.retry.on.contains(.serverError))
            || (status == 429 && run.retry.on.contains(.tooManyRequests)))
    }

    /// Whether `expect.status` (by default `2xx`) accepts `status`.
    static func accepts(_ expectation: Expectation?, status: Int) -> Bool {
        guard let statuses = expectation?.status else { return StatusPattern.classOf(2).matches(status) }
        return statuses.contains { $0.value.matches(status) }
    }

    /// Sends the request and repeats it as `retry:` allows, until an attempt's response or failure ends
    /// the exchange; records every attempt in `result`, with the last response's status, size, and the
    /// parts of it later steps read.
    /// - Parameters:
    ///   - poll: the poll this exchange is, when polling (recorded with each attempt).
    ///   - timeout: the attempt's deadline, replacing the step's (polling shortens it to the time left).
    ///   - deadline: no retry starts after this time since the run started (polling's bound).
    ///   - decodingBody: whether the body is parsed for `judge` and kept.
    ///   - judge: what a response means.
    func exchange(
        _ run: RequestRun, result: inout StepResult, poll: Int? = nil, timeout: Duration?? = nil,
        deadline: Duration? = nil, decodingBody: Bool,
        judge: (TransportResponse, Value, String?, Duration) -> Verdict
    ) async -> ExchangeEnd {
        let node = run.node
        let itemIndex = run.itemIndex
        var tries = 0
        while true {
            tries += 1
            // The token first, outside the slots: a wait for the token endpoint is not the request's time.
            var token: TokenCache<OAuthGrant>.Token?
            if let (credentials, range) = run.credentials, case .oauth2(let grant) = credentials {
                switch await self.token(for: grant, timeout: timeout ?? run.timeout) {
                case .success(let got): token = got
                case .failure(let error):
                    if Task.isCancelled {
                        result = cancelled(result, scope: run.scope, node: node, started: !result.attempts.isEmpty)
                        return .cancelled
                    }
                    result.state = .failed
                    result.reason = StepReason(
                        .authorization, "no token for `auth`: " + secretNet.redact(error.description), at: range)
                    return .finished
                }
            }
            // Take every slot that applies, innermost first, only for the time of the attempt.
            var held: [AsyncLimiter] = []
            var cancelledWaiting = false
            for limiter in run.scope.limiters {
                guard await limiter.acquire() else {
                    cancelledWaiting = true
                    break
                }
                held.append(limiter)
            }
            if cancelledWaiting || Task.isCancelled {
                for limiter in held { limiter.release() }
                result = cancelled(result, scope: run.scope, node: node, started: !result.attempts.isEmpty)
                return .cancelled
            }
            let attemptStart = now()
            let attemptClockStart = ContinuousClock.now
            let outcome = await send(run, with: token, timeout: timeout ?? run.timeout)
            // The attempt ends before its slots are freed: ended after, its recorded end could fall after the
            // start of the attempt that took its slot, and the run's records (the trace, the HAR log) would
            // show more requests in flight than the limit let through.
            let attemptDuration = now() - attemptStart
            for limiter in held { limiter.release() }
            var record = AttemptRecord(
                number: result.attempts.count + 1 + (Self.currentVisit?.attemptsBefore ?? 0), start: attemptStart,
                duration: attemptDuration)
            record.poll = poll
            record.visit = Self.currentVisit?.visit
            if case .failure(let error) = outcome {
                configuration.logger.debug(
                    "attempt failed",
                    metadata: [
                        "step": "\(node.id)", "attempt": "\(record.number)", "transport": "\(error.kind.rawValue)",
                    ])
            }

            var retryable = false
            var retryAfter: Duration?
            var pending = false
            switch outcome {
            case .failure(let error):
                if error.kind == .cancelled || Task.isCancelled {
                    record.error = "cancelled"
                    result.attempts.append(record)
                    observer.attemptFinished(node.id, item: itemIndex, attempt: record)
                    result = cancelled(result, scope: run.scope, node: node, started: true)
                    return .cancelled
                }
                // A library's text, which may quote what a server sent: through the textual net.
                let message = secretNet.redact(error.message)
                record.error = message
                result.state = .failed
                result.status = nil
                result.responseExcerpt = nil
                result.checks = []
                switch error.kind {
                case .timeout:
                    result.reason = StepReason(.timeout, message)
                    retryable = run.retry.on.contains(.timeout)
                case .connect, .reset, .tls:
                    result.reason = StepReason(.transport, message)
                    retryable = run.retry.on.contains(.connect) && error.kind != .tls
                case .bodyTooLarge:
                    result.reason = StepReason(.bodyTooLarge, message)
                default:
                    result.reason = StepReason(.transport, message)
                }
            case .success(let response):
                record.status = response.status
                result.status = response.status
                result.responseSize = response.size
                // Parse the body only when a matcher, a later step or polling reads it.
                let (body, bodyProblem) = decodingBody ? Self.decodeBody(response) : (.null, nil)
                // Judged within the attempt's time: a server chooses the body, and no expression over it may
                // hold the run (`EvaluationLimits`).
                let limits = Self.evaluationLimits(timeout: timeout ?? run.timeout, from: attemptClockStart)
                var verdict = EvaluationLimits.$current.withValue(limits) {
                    judge(response, body, bodyProblem, attemptDuration)
                }
                if let stopped = limits.stops?.stopped {
                    let enclosing = await Self.endedByEnclosingTimeout(
                        limits, ownTimeout: timeout ?? run.timeout, from: attemptClockStart)
                    if enclosing || stopped.reason == .cancelled || Task.isCancelled {
                        record.error = "cancelled"
                        result.attempts.append(record)
                        observer.attemptFinished(node.id, item: itemIndex, attempt: record)
                        result = cancelled(result, scope: run.scope, node: node, started: true)
                        return .cancelled
                    }
                    if stopped.reason == .deadline {
                        // The attempt ran out of time while its response was judged: a timeout, as if the
                        // server had been slow, with what was being judged.
                        let retryable = run.retry.on.contains(.timeout)
                        if case .failed(let reason, let attemptError, _, _, let checks) = verdict {
                            verdict = .failed(
                                StepReason(.timeout, reason.message, at: reason.range), attemptError: attemptError,
                                retryable: retryable, retryAfter: nil, checks: checks)
                        } else {
                            let message = "judging the response was stopped: \(stopped.message)"
                            verdict = .failed(
                                StepReason(.timeout, message), attemptError: message, retryable: retryable,
                                retryAfter: nil, checks: [])
                        }
                    }
                }
                switch verdict {
                case .succeeded(let checks):
                    result.state = .succeeded
                    result.reason = nil
                    result.responseExcerpt = nil
                    result.checks = checks
                case .pending:
                    result.state = .succeeded
                    result.reason = nil
                    result.responseExcerpt = nil
                    result.checks = []
                    pending = true
                case .failed(let reason, let attemptError, let repeatable, let delay, let checks):
                    result.state = .failed
                    result.reason = reason
                    result.checks = checks
                    result.responseExcerpt = excerpt(of: response)
                    record.error = attemptError
                    retryable = repeatable
                    retryAfter = delay
                }
                result.body = run.retention.body ? body : nil
                result.bodyProblem = run.retention.body ? bodyProblem : nil
                result.headers = run.retention.headers ? response.headers.map { ($0.name, $0.value) } : nil
                result.cookies = run.retention.cookies ? response.setCookies : nil
            }

            if retryable && run.mayRetry && tries < run.retry.attempts {
                let delay =
                    retryAfter.map { min($0, configuration.maxRetryAfter) }
                    ?? Self.backoff(attempt: tries, base: run.retry.backoff, cap: run.retry.maxBackoff)
                let scaled = delay * configuration.backoffScale
                if deadline.map({ now() + scaled < $0 }) ?? true {
                    record.retryDelay = scaled
                    result.attempts.append(record)
                    observer.attemptFinished(node.id, item: itemIndex, attempt: record)
                    guard await wait(scaled, run: run) else {
                        result = cancelled(result, scope: run.scope, node: node, started: true)
                        return .cancelled
                    }
                    continue
                }
            }
            result.attempts.append(record)
            observer.attemptFinished(node.id, item: itemIndex, attempt: record)
            if result.state == .failed, retryable, !run.mayRetry, run.retry.attempts > 1, let reason = result.reason {
                result.reason = StepReason(
                    reason.kind,
                    reason.message + " (not retried: \(run.prepared.method) is not idempotent; "
                        + "set `retry: { unsafe: true }` to allow)")
            }
            return pending ? .pending : .finished
        }
    }

    /// Waits `delay` before a retry or the next poll, holding no concurrency slot.
    /// - Returns: `false` when the task was cancelled meanwhile.
    func wait(_ delay: Duration, run: RequestRun) async -> Bool {
        run.retryWait?(true)
        defer { run.retryWait?(false) }
        do {
            try await Task.sleep(for: delay)
            return true
        } catch {
            return false
        }
    }

    /// The token of `grant`, from the run's tokens (fetched once for every step that asks at the same time).
    func token(for grant: OAuthGrant, timeout: Duration?) async -> Result<TokenCache<OAuthGrant>.Token, OAuthError> {
        let transport = self.transport
        let secrets = configuration.secrets
        let authorization = configuration.authorizationCode
        do {
            return .success(
                try await configuration.tokens.token(for: grant) { previous in
                    try await grant.fetchToken(
                        over: transport, previous: previous, timeout: timeout, secrets: secrets,
                        authorization: authorization)
                })
        } catch let error as OAuthError {
            return .failure(error)
        } catch {
            return .failure(OAuthError("cancelled"))
        }
    }

    /// Sends the request of `run` with its credentials: `token` for an OAuth 2.0 grant, a signature made now,
    /// or the answer to a Digest challenge.
    /// - A 401 to a token (but for one that says the scope is too narrow or the request malformed, which a new
    ///   token does not mend) drops the token, and the request is sent once more with a new one.
    /// - With `digest`, the request goes first without credentials; a 401 with a Digest challenge is answered,
    ///   and the request sent once more with the answer.
    /// Neither second sending is a retry: it is the same attempt.
    func send(
        _ run: RequestRun, with token: TokenCache<OAuthGrant>.Token?, timeout: Duration?
    ) async -> Result<TransportResponse, TransportError> {
        let node = run.node
        let secrets = configuration.secrets
        var token = token
        var answer: HeaderField?
        var again = false
        while true {
            var request = run.prepared
            switch run.credentials?.credentials {
            case .oauth2?:
                if let token { request = RequestBuilder.bearer(token.value, on: request, secrets: secrets) }
            case .awsSigV4(let signer, let unsigned)?:
                do {
                    let signature = try signer.sign(
                        method: request.method.rawValue, url: request.url, headers: request.headers,
                        payload: unsigned ? .unsigned : .bytes(request.body ?? []), date: Date())
                    for secret in signature.secrets { secrets.add(secret) }
                    request = RequestBuilder.setting(
                        signature.headers, hidden: ["authorization", "x-amz-security-token"], on: request)
                } catch {
                    return .failure(TransportError(.other, "the request cannot be signed: \(error.message)"))
                }
            case .digest?:
                if let answer { request = RequestBuilder.setting([answer], on: request) }
            case nil:
                break
            }
            observer.requestSent(node.id, item: run.itemIndex, request: request)
            let response: TransportResponse
            do {
                response = try await transport.send(request, timeout: timeout)
                observer.responseReceived(node.id, item: run.itemIndex, response: response)
            } catch {
                return .failure(error)
            }
            guard !again, response.status == 401, let (credentials, _) = run.credentials else {
                return .success(response)
            }
            again = true
            switch credentials {
            case .oauth2(let grant):
                guard let sent = token, Self.tokenMayBeRenewed(response.header("www-authenticate")) else {
                    return .success(response)
                }
                await configuration.tokens.refused(sent, for: grant)
                guard case .success(let fresh) = await self.token(for: grant, timeout: timeout) else {
                    return .success(response)
                }
                configuration.logger.debug(
                    "token refused and renewed", metadata: ["step": "\(node.id)", "token_url": "\(grant.tokenURL)"])
                token = fresh
            case .digest(let digest):
                let challenges = response.headers.filter { $0.name.equalsIgnoringCase("www-authenticate") }.map(\.value)
                do {
                    let challenge = try DigestAuth.preferredChallenge(in: challenges)
                    let answered = try digest.authorization(
                        for: challenge, method: request.method.rawValue, uri: request.url.target, body: request.body)
                    for secret in answered.secrets { secrets.add(secret) }
                    answer = HeaderField("Authorization", answered.authorization)
                } catch {
                    // No Digest challenge this client can answer: the 401 is the response.
                    configuration.logger.debug(
                        "no digest challenge answered", metadata: ["step": "\(node.id)", "why": "\(error.message)"])
                    return .success(response)
                }
            case .awsSigV4:
                return .success(response)
            }
        }
    }

    /// Whether a 401's `WWW-Authenticate` leaves room for a new token to help: not when its `error` is
    /// `insufficient_scope` or `invalid_request` (RFC 6750 §3.1).
    static func tokenMayBeRenewed(_ challenge: String?) -> Bool {
        guard let challenge = challenge?.lowercased() else { return true }
        return !["insufficient_scope", "invalid_request"].contains {
            challenge.contains("error=\"\($0)\"") || challenge.contains("error=\($0)")
        }
    }

    func cancelled(_ partial: StepResult, scope: Scope, node: StepNode, started: Bool) -> StepResult {
        var result = partial
        let reason = cancelledResult(node, scope: scope, started: started).reason
        result.state = .cancelled
        result.reason = reason
        return result
    }

    /// Exponential backoff with full jitter: a random delay between zero and `base × 2^(attempt-1)`, at most `cap`.
    static func backoff(attempt: Int, base: Duration, cap: Duration) -> Duration {
        let exponent = min(attempt - 1, 30)
        let ceiling = min(cap, base * (1 << exponent))
        let milliseconds = Double(ceiling.milliseconds)
        return .milliseconds(Int64(Double.random(in: 0...max(0, milliseconds))))
    }

    /// A `Retry-After` value: seconds, or an HTTP date.
    static func retryAfter(_ header: String?) -> Duration? {
        guard let header = header?.trimmingCharacters(in: .whitespaces), !header.isEmpty else { return nil }
        if let seconds = Int(header), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: header) else { return nil }
        return .milliseconds(Int64(max(0, date.timeIntervalSinceNow) * 1000))
    }

    /// The body as a value: parsed JSON when the response says it is JSON (`application/json`,
    /// `application/problem+json`, …), else text. A body that says it is JSON but is not is kept as
    /// text, with why it is not JSON (`StepResult.bodyProblem`).
    static func decodeBody(_ response: TransportResponse) -> (value: Value, problem: String?) {
        if response.body.isEmpty { return (.null, nil) }
        let text = { Value.string(String(decoding: response.body, as: UTF8.self)) }
        guard let type = response.header("content-type"), let mediaType = Self.jsonMediaType(type) else {
            return (text(), nil)
        }
        do {
            return (try Value.parseJSON(bytes: response.body), nil)
        } catch {
            return (text(), "the response says \(mediaType) but its body is not JSON: \(error)")
        }
    }

    /// The media type of a `Content-Type` that announces JSON (`application/json`, `…+json`), else nil.
    static func jsonMediaType(_ contentType: String) -> String? {
        let mediaType =
            contentType.split(separator: ";", maxSplits: 1).first?
            .trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return mediaType == "application/json" || mediaType.hasSuffix("+json") ? mediaType : nil
    }
}
