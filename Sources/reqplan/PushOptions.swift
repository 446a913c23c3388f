import ArgumentParser
import ReqPlanHTTP
import ReqPlanPipeline
import ReqPlanPresentation
import ReqPlanRuntime
import ReqPlanSyntax

/// `--push URL` and `--push-timeout`, as `load` and `report merge` take them: the figures of a load put to a
/// Prometheus Pushgateway at its end (`MetricsPush`).
struct PushOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "At the end, put the figures to the Prometheus Pushgateway at this URL (job reqplan, grouped by plan "
                + "and shard).", valueName: "url"))
    var push: String?

    @Option(
        name: .customLong("push-timeout"),
        help: ArgumentHelp("How long the push may take in all (default 30s).", valueName: "duration"))
    var pushTimeout: String?

    func validate() throws {
        _ = try target()
    }

    /// The push asked for, or `nil`.
    /// - Throws: a usage error for a URL or a timeout that cannot be used.
    func target() throws -> MetricsPush? {
        guard let push else {
            if pushTimeout != nil { throw ValidationError("--push-timeout is for --push") }
            return nil
        }
        var target: MetricsPush
        do {
            target = try MetricsPush(gateway: push)
        } catch {
            throw ValidationError(error.message)
        }
        if let pushTimeout {
            guard let value = try? PlanDuration.parse(pushTimeout), value.milliseconds > 0,
                value.milliseconds <= 3_600_000
            else {
                throw ValidationError(
                    "--push-timeout must be a duration from 1ms to 1h, such as 10s, not `\(VisibleText.line(pushTimeout))`"
                )
            }
            target.timeout = value.duration
        }
        return target
    }

    /// Puts `result`'s figures (with the outcomes of `objectives`) to the gateway, when `--push` asks; says
    /// on standard error where they went, or why they did not.
    /// - Returns: whether the figures were pushed (or no push was asked for).
    func send(
        _ result: LoadResult, objectives: [ServiceLevelObjective], pipeline: Pipeline,
        transport: HTTPClientTransport.Configuration
    ) async -> Bool {
        guard var pushing = try? target() else { return true }
        pushing.group(result)
        let text = result.metrics(
            outcomes: ObjectiveCheck.check(objectives, against: result), format: .prometheusText)
        do {
            try await pipeline.push(text, with: pushing, transport: transport)
            writeError("pushed the figures to \(pushing.shownURL)\n")
            return true
        } catch {
            writeError("error: \(error.message)\n")
            return false
        }
    }
}
