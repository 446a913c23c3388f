import Foundation
import ReqPlanPlanner
import ReqPlanSyntax

extension Executor {
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

    /// Sends a request with its retries, checks the expectations, and keeps what later steps read.
    /// - Parameter retryWait: told when the request starts (`true`) and ends (`false`) waiting for a
    ///   retry; a for_each's worker starts another worker in its place meanwhile.
    func runRequest(
        _ node: StepNode, _ spec: RequestSpec, frame: Frame, scope: Scope, itemIndex: Int?, context: EvaluationContext,
        retryWait: (@Sendable (Bool) -> Void)? = nil
    ) async -> StepResult {
        var result = StepResult(id: node.id, state: .succeeded)
        result.itemIndex = itemIndex
        let prepared: PreparedRequest
        do {
            prepared = try builders[node.instance].build(spec, in: context, usesCookies: graph.usesCookies(node.nodeID),
                                                         secrets: configuration.secrets)
        } catch {
            result.state = .failed
            result.reason = StepReason(.evaluation, "\(error)")
            return result
        }
        result.method = prepared.method.rawValue
        result.url = prepared.url

        let defaults = graph.plan(of: node.nodeID).defaults
        let retry = EffectiveRetry(node.step.retry?.merged(over: defaults.retry) ?? defaults.retry)
        let timeout = (node.step.timeout ?? defaults.timeout)?.value.duration
        let expectation = node.step.expect?.merged(over: defaults.expect) ?? defaults.expect
        let mayRetry = prepared.method.isIdempotent || retry.unsafe
        let retention = graph.retention(of: node.nodeID)
        let keepBody = retention.body
        let keepHeaders = retention.headers
        let keepCookies = retention.cookies

        var attempt = 1
        while true {
            // Take every slot that applies, innermost first, only for the time of the attempt.
            var held: [AsyncLimiter] = []
            var cancelledWaiting = false
            for limiter in scope.limiters {
                guard await limiter.acquire() else {
                    cancelledWaiting = true
                    break
                }
                held.append(limiter)
            }
            if cancelledWaiting || Task.isCancelled {
                for limiter in held { limiter.release() }
                return cancelled(result, scope: scope, node: node, started: attempt > 1)
            }
            let attemptStart = now()
            observer.requestSent(node.id, item: itemIndex, request: prepared)
            let outcome: Result<TransportResponse, TransportError>
            do {
                let response = try await transport.send(prepared, timeout: timeout)
                observer.responseReceived(node.id, item: itemIndex, response: response)
                outcome = .success(response)
            } catch {
                outcome = .failure(error)
            }
            for limiter in held { limiter.release() }
            let attemptDuration = now() - attemptStart
            var record = AttemptRecord(number: attempt, start: attemptStart, duration: attemptDuration)
            if case .failure(let error) = outcome {
                configuration.logger.debug("attempt failed", metadata: [
                    "step": "\(node.id)", "attempt": "\(attempt)", "transport": "\(error.kind.rawValue)",
                ])
            }

            var retryable = false
            var retryAfter: Duration?
            switch outcome {
            case .failure(let error):
                if error.kind == .cancelled || Task.isCancelled {
                    record.error = "cancelled"
                    result.attempts.append(record)
                    observer.attemptFinished(node.id, item: itemIndex, attempt: record)
                    return cancelled(result, scope: scope, node: node, started: true)
                }
                record.error = error.message
                result.state = .failed
                result.status = nil
                switch error.kind {
                case .timeout:
                    result.reason = StepReason(.timeout, error.message)
                    retryable = retry.on.contains(.timeout)
                case .connect, .reset, .tls:
                    result.reason = StepReason(.transport, error.message)
                    retryable = retry.on.contains(.connect) && error.kind != .tls
                case .bodyTooLarge:
                    result.reason = StepReason(.bodyTooLarge, error.message)
                default:
                    result.reason = StepReason(.transport, error.message)
                }
            case .success(let response):
                record.status = response.status
                result.status = response.status
                result.responseSize = response.body.count
                // Parse the body only when a matcher or a later step reads it.
                let (body, bodyProblem) = keepBody || expectation?.body != nil ? Self.decodeBody(response) : (.null, nil)
                let problems = ExpectationChecker.check(
                    expectation, status: response.status, headers: response.headers, body: body,
                    bodyProblem: bodyProblem, duration: attemptDuration, in: context)
                if problems.isEmpty {
                    result.state = .succeeded
                    result.reason = nil
                } else {
                    result.state = .failed
                    result.reason = StepReason(.expectation, problems.joined(separator: "; "))
                    record.error = problems.first
                    // A status the expectation accepts is not retried, even if a body matcher failed.
                    let statusExpected = (expectation?.status?.map(\.value) ?? [.classOf(2)])
                        .contains { $0.matches(response.status) }
                    retryable = !statusExpected
                        && ((response.status >= 500 && retry.on.contains(.serverError))
                            || (response.status == 429 && retry.on.contains(.tooManyRequests)))
                    retryAfter = Self.retryAfter(response.header("retry-after"))
                }
                result.body = keepBody ? body : nil
                result.bodyProblem = keepBody ? bodyProblem : nil
                result.headers = keepHeaders ? response.headers.map { ($0.name, $0.value) } : nil
                result.cookies = keepCookies ? response.setCookies : nil
            }

            if retryable && mayRetry && attempt < retry.attempts {
                let delay = retryAfter.map { min($0, configuration.maxRetryAfter) }
                    ?? Self.backoff(attempt: attempt, base: retry.backoff, cap: retry.maxBackoff)
                let scaled = delay * configuration.backoffScale
                record.retryDelay = scaled
                result.attempts.append(record)
                observer.attemptFinished(node.id, item: itemIndex, attempt: record)
                retryWait?(true)
                do {
                    try await Task.sleep(for: scaled)
                } catch {
                    retryWait?(false)
                    return cancelled(result, scope: scope, node: node, started: true)
                }
                retryWait?(false)
                attempt += 1
                continue
            }
            result.attempts.append(record)
            observer.attemptFinished(node.id, item: itemIndex, attempt: record)
            if result.state == .failed, retryable, !mayRetry, retry.attempts > 1, let reason = result.reason {
                result.reason = StepReason(reason.kind, reason.message
                    + " (not retried: \(prepared.method) is not idempotent; set `retry: { unsafe: true }` to allow)")
            }
            return result
        }
    }

    private func cancelled(_ partial: StepResult, scope: Scope, node: StepNode, started: Bool) -> StepResult {
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
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first?
            .trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return mediaType == "application/json" || mediaType.hasSuffix("+json") ? mediaType : nil
    }
}
