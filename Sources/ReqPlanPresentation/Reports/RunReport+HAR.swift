import ReqPlanRuntime

extension RunReport {
    /// The run's page of a HAR report: its exchanges, titled by the plan file, redacted with every secret
    /// the run knew (secret inputs and what it learned) and the plan's `redact_headers`.
    public var harPage: HARLog.Page {
        let redactHeaders = graph.instances.flatMap(\.plan.redactHeaders).map { $0.value.lowercased() }
        return HARLog.Page(
            title: graph.plan.source.path, startedAt: result.startedAt, exchanges: exchanges,
            redactor: Redactor(secrets: inputs.secrets + result.secrets),
            hiddenHeaders: SecretFlow.alwaysSecretHeaders.union(redactHeaders))
    }
}
