import ReqPlanTransport
import ReqPlanPlanner
import ReqPlanSyntax

extension Executor {
    /// The deadline of an attempt whose step sets no `timeout` (grammar.md §13.4), which polling's own
    /// bound may shorten.
    static let defaultAttemptTimeout = Duration.seconds(60)

    /// Polls a request (`poll:`, grammar.md "Polling"): each poll is one exchange with its retries, its
    /// response read by `until` as `response`.
    ///
    /// - `until` holds: polling ends with this response, which must meet `expect:` apart from its status
    ///   (the condition accepted it).
    /// - `until` does not hold on a response `expect.status` accepts: wait (`every`, or the response's
    ///   `Retry-After`) and poll again, holding no concurrency slot meanwhile.
    /// - A response neither accepts fails the step as any request does (after its retries).
    /// - The bound runs out (`attempts` polls made, or the next poll would start after `timeout`; an
    ///   attempt in flight is given only the time left): the step fails with reason `timeout`, naming the
    ///   last values `until` read.
    func runPolling(_ run: RequestRun, _ poll: PollPolicy, result initial: StepResult) async -> StepResult {
        var result = initial
        let started = now()
        let deadline = poll.timeout.map { started + $0.value.duration }
        var lastSeen: String?
        var number = 0
        while true {
            number += 1
            var attemptTimeout: Duration?? = nil
            if let deadline {
                let left = max(deadline - now(), .milliseconds(1))
                if left < run.timeout ?? Self.defaultAttemptTimeout { attemptTimeout = .some(left) }
            }
            var retryAfter: Duration?
            let end = await exchange(
                run, result: &result, poll: number, timeout: attemptTimeout, deadline: deadline,
                decodingBody: true
            ) { response, body, bodyProblem, duration in
                var context = run.context
                context.items["response"] = Self.responseValue(
                    response, body: body, duration: duration, url: run.prepared.shownURL)
                let accepted = Self.accepts(run.expectation, status: response.status)
                let holds: Bool
                do throws(EvaluationError) {
                    holds = try ExpressionEvaluator.condition(poll.until, in: context)
                } catch {
                    guard accepted else {
                        return self.verdict(
                            on: response, body: body, bodyProblem: bodyProblem, duration: duration,
                            of: run)
                    }
                    let message = "`until` of `poll`: \(self.secretNet.redact(error.message))"
                    return .failed(
                        StepReason(.evaluation, message), attemptError: message, retryable: false,
                        retryAfter: nil, checks: [])
                }
                lastSeen = Self.lastSeen(poll.until, status: response.status, in: context)
                if holds {
                    // The condition accepted the response, whatever its status: `expect` checks the rest.
                    let written = run.expectation
                    let range = written?.range ?? poll.range
                    let rest = Expectation(
                        status: [Located(.code(response.status), at: range)], headers: written?.headers,
                        body: written?.body, maxDuration: written?.maxDuration, range: range,
                        conditions: written?.conditions ?? [])
                    return self.verdict(
                        on: response, body: body, bodyProblem: bodyProblem, duration: duration,
                        of: run, expectation: rest)
                }
                guard accepted else {
                    return self.verdict(on: response, body: body, bodyProblem: bodyProblem, duration: duration, of: run)
                }
                retryAfter = Self.retryAfter(response.header("retry-after"))
                return .pending
            }
            switch end {
            case .cancelled:
                return result
            case .finished:
                if attemptTimeout != nil, result.state == .failed, result.reason?.kind == .timeout,
                    let timeout = poll.timeout
                {
                    result.reason = StepReason(.timeout, Self.timedOut(after: timeout.value, polls: number, lastSeen))
                }
                return result
            case .pending:
                break
            }
            if let attempts = poll.attempts?.value, number >= attempts {
                let elapsed = StepResult.elapsedText(milliseconds: Int((now() - started).milliseconds))
                result.state = .failed
                result.reason = StepReason(
                    .timeout,
                    "`until` did not hold after \(number) poll\(number == 1 ? "" : "s") "
                        + "(\(elapsed))" + (lastSeen.map { "; last response: \($0)" } ?? ""))
                return result
            }
            let delay =
                (retryAfter.map { min($0, configuration.maxRetryAfter) } ?? poll.interval.wait(before: number + 1))
                * configuration.backoffScale
            if let deadline, let timeout = poll.timeout, now() + delay >= deadline {
                result.state = .failed
                result.reason = StepReason(.timeout, Self.timedOut(after: timeout.value, polls: number, lastSeen))
                return result
            }
            if !result.attempts.isEmpty { result.attempts[result.attempts.count - 1].retryDelay = delay }
            guard await wait(delay, run: run) else {
                return cancelled(result, scope: run.scope, node: run.node, started: true)
            }
            // A wait that overslept (a loaded machine) must not start a poll after the bound.
            if let deadline, let timeout = poll.timeout, now() >= deadline {
                result.state = .failed
                result.reason = StepReason(.timeout, Self.timedOut(after: timeout.value, polls: number, lastSeen))
                return result
            }
        }
    }

    private static func timedOut(after timeout: PlanDuration, polls: Int, _ lastSeen: String?) -> String {
        "polling timed out after \(timeout) (\(polls) poll\(polls == 1 ? "" : "s")) without `until` holding"
            + (lastSeen.map { "; last response: \($0)" } ?? "")
    }

    /// `response` as `until` reads it: the request result's fields for this response.
    static func responseValue(_ response: TransportResponse, body: Value, duration: Duration, url: String) -> Value {
        var view = StepResult(id: "", state: .succeeded)
        view.cookies = response.setCookies
        return .object([
            .init("status", .int(response.status)),
            .init("headers", ResponseHeaders(response.headers).value),
            .init("body", body),
            .init("cookies", view.cookiesValue),
            .init("duration", .int(Int(duration.milliseconds))),
            .init("url", .string(url)),
        ])
    }

    /// The status and the values of the `response` paths `until` reads (`200, response.body.state =
    /// "running"`), each shortened to 120 characters: what a poll that never satisfied it last saw.
    static func lastSeen(_ until: Expression, status: Int, in context: EvaluationContext) -> String {
        var parts = ["\(status)"]
        var shown: Set<String> = ["response.status"]
        for reference in until.references where reference.root.value == "response" {
            let path = reference.description
            guard shown.insert(path).inserted else { continue }
            let expression = reference.components.reduce(Expression.variable(reference.root)) {
                .access($0, $1, reference.range)
            }
            guard let value = try? ExpressionEvaluator.evaluate(expression, in: context) else { continue }
            // What a server sent, shown as every output shows it.
            var text =
                context.secretFlow.carriesSecret(expression)
                ? ExpressionEvaluator.secretMarker : context.secretNet.redact(value).jsonText()
            if text.count > 120 { text = String(text.prefix(117)) + "…" }
            parts.append("\(path) = \(text)")
        }
        return parts.joined(separator: ", ")
    }
}
