import ReqPlanRuntime
import ReqPlanSyntax

extension RunReport {
    /// The version of the JSON report format; it changes only when a field changes meaning or goes away.
    public static let jsonFormat = "reqplan-run/1"

    /// The whole run as one JSON document (`--report json:PATH`), format `reqplan-run/1`.
    ///
    /// Keys are always present and in a fixed order; a field that does not apply is `null`
    /// (scalars) or empty (`attempts`, `children`). Times are milliseconds with microsecond
    /// precision; step times count from the run's start (`started_at`). docs/reports.md
    /// documents every field.
    public func jsonText() -> String {
        net.redact(jsonValue).jsonText(pretty: true) + "\n"
    }

    /// The JSON report as a value.
    var jsonValue: Value {
        let counts = result.counts
        return .object([
            .init("format", .string(Self.jsonFormat)),
            .init(
                "plan",
                .object([
                    .init("name", graph.plan.name.map { .string($0.value) } ?? .null),
                    .init("file", .string(graph.plan.source.path)),
                ])),
            .init("inputs", .object(inputValues.map { .init($0.name, $0.value) })),
            .init("started_at", .string(startedAtText)),
            .init("duration_ms", result.duration.millisecondsValue),
            .init("exit_code", .int(Int(result.exitCode))),
            .init("interrupted", .bool(result.interrupted)),
            .init("timed_out", .bool(result.timedOut)),
            .init("counts", .object(StepState.allCases.map { .init($0.rawValue, .int(counts[$0] ?? 0)) })),
            .init("outputs", .object(result.shownOutputs.map { .init($0.name, $0.value) })),
            .init("output_errors", .list(result.outputErrors.map(Value.string))),
            .init("steps", .list(steps.map(jsonValue(of:)))),
            .init("graph", graphPicture.jsonValue),
        ])
    }

    /// An expectation: what it checks, where the plan writes it, whether the response met it and why not.
    static func jsonValue(of expectation: ReportExpectation) -> Value {
        .object([
            .init("expectation", .string(expectation.text)),
            .init("at", expectation.at.map(Value.string) ?? .null),
            .init("passed", .bool(expectation.passed)),
            .init("problems", .list(expectation.problems.map(Value.string))),
        ])
    }

    private func jsonValue(of step: ReportStep) -> Value {
        let stepResult = step.result
        func optional(_ value: Int?) -> Value { value.map(Value.int) ?? .null }
        func time(_ value: Duration?) -> Value { value?.millisecondsValue ?? .null }
        func difference(_ from: Duration?, _ to: Duration?) -> Value {
            guard let from, let to else { return .null }
            return (to - from).millisecondsValue
        }
        let reason: Value =
            stepResult.reason.map { reason in
                .object(
                    [.init("kind", .string(reason.kind.rawValue)), .init("message", .string(reason.message))]
                        + (step.failedExpectation.map { [.init("at", .string($0))] } ?? []))
            } ?? .null
        let attempts: [Value] = stepResult.attempts.map { attempt in
            .object([
                .init("number", .int(attempt.number)),
                .init("poll", optional(attempt.poll)),
                .init("visit", optional(attempt.visit)),
                .init("start_ms", attempt.start.millisecondsValue),
                .init("duration_ms", attempt.duration.millisecondsValue),
                .init("status", optional(attempt.status)),
                .init("error", attempt.error.map(Value.string) ?? .null),
                .init("retry_delay_ms", time(attempt.retryDelay)),
            ])
        }
        return .object([
            .init("id", .string(step.id)),
            .init("step", .string(step.step)),
            .init("item", optional(step.item)),
            .init("kind", .string(step.kind.rawValue)),
            .init("parent", step.parent.map(Value.string) ?? .null),
            .init("state", .string(stepResult.state.rawValue)),
            .init("reason", reason),
            .init("caused_by_failure", .bool(stepResult.causedByFailure)),
            .init("handled_by", stepResult.handledBy.map(Value.string) ?? .null),
            .init("visits", optional(stepResult.visits)),
            .init("method", stepResult.method.map(Value.string) ?? .null),
            .init("url", stepResult.url.map(Value.string) ?? .null),
            .init("operation", step.operation.map(Value.string) ?? .null),
            .init("status", optional(stepResult.status)),
            .init("response_size", optional(stepResult.responseSize)),
            .init("response_excerpt", stepResult.responseExcerpt.map(Value.string) ?? .null),
            .init("expectations", .list(step.expectations.map(Self.jsonValue(of:)))),
            .init("attempts", .list(attempts)),
            .init(
                "timings",
                .object([
                    .init("ready_ms", time(stepResult.ready)),
                    .init("start_ms", time(stepResult.start)),
                    .init("end_ms", time(stepResult.end)),
                    .init("queue_wait_ms", difference(stepResult.ready, stepResult.start)),
                    .init("duration_ms", difference(stepResult.start, stepResult.end)),
                ])),
            .init("children", .list(step.children.map(jsonValue(of:)))),
        ])
    }
}
