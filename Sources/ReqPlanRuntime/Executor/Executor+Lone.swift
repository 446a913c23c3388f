import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTransport

extension Executor {
    /// The request of a plan that is one request and nothing else, built once for every run of it with the same
    /// inputs (`reqplan load`'s iterations, when no data file gives each its own): each run then sends it and
    /// judges its response as `run()` would, with its own transport, settings and secrets, but builds nothing.
    ///
    /// A plan's requests are pure functions of its inputs, files and environment (no expression reads a clock
    /// or draws a random number: grammar.md §10.9), so a request built once is the request every such run
    /// builds. What changes from run to run is applied as it is sent, by the same code as always: credentials
    /// (tokens, signatures, digests), cookies, retries, timeouts.
    public struct LoneRequest: Sendable {
        let built: BuiltRequest

        /// Whether its runs may send it again and again on a connection of their own, judging each response as
        /// it comes (`RepeatingTransport`): its one attempt gets no credentials made as it is sent, no retry,
        /// no poll.
        var repeatable: Bool {
            built.run.credentials == nil && built.run.retry.attempts <= 1 && built.run.node.step.poll == nil
        }
        /// What building it learnt (the credentials it sends, in every form the net hides): each run starts
        /// its own store from a copy.
        public let secrets: SecretStore
    }

    /// The plan's one request built in this executor's inputs and settings, or nil when the plan is more than
    /// one request (`Layout.loneRequest`) or its request cannot be built (each run then fails as `run()` says).
    public func buildLone() async -> LoneRequest? {
        guard let id = loneRequest, case .request(let spec) = graph.nodes[id].step.kind else { return nil }
        let frame = Frame(parent: nil, loop: nil, itemIndex: nil, items: [:], nodes: [id])
        frame.record(InstanceState(inputs: inputs.values, variables: graph.plan.vars), for: 0)
        let context = evaluationContext(frame: frame, instance: 0, succeeded: true, failed: false)
        guard
            case .success(let built) = await buildRequest(
                graph.nodes[id], spec, scope: Self.loneScope, itemIndex: nil, context: context)
        else { return nil }
        return LoneRequest(built: built, secrets: configuration.secrets)
    }

    /// A run of the plan whose one request `lone` is: what `run()` returns for it, with the request sent as
    /// built. This executor's settings should hold a copy of `lone.secrets` (`SecretStore(copying:)`).
    public func runLone(_ lone: LoneRequest) async -> RunResult {
        var built = lone.built
        let node = built.run.node
        // What the run's own net hides (its secrets store), not the building run's.
        built.run.context.secretNet = secretNet
        let start = now()
        var result: StepResult
        if Task.isCancelled {
            result = cancelledResult(node, scope: Self.loneScope, started: false)
        } else {
            observer.stepStarted(node.id, item: nil, at: start)
            result = await runBuilt(built)
            result.start = start
        }
        result.ready = start
        result.end = now()
        observer.stepFinished(result)
        var run = RunResult(
            results: [node.id: result], order: [node.id], outputs: [], outputErrors: [],
            interrupted: Task.isCancelled, timedOut: false, duration: now(), startedAt: startDate)
        run.secrets = configuration.secrets.all
        return run
    }

    /// What the only attempt of a run of `lone` makes of `response`, when judging it reads no more than its
    /// status and time (no header or body, no schema): `verdict` itself, as `runLone` would call it. Nil when it
    /// reads more, for `runLone` to judge under its evaluation limits.
    func judgeLone(_ lone: LoneRequest, response: TransportResponse, duration: Duration) -> LoneVerdict? {
        let run = lone.built.run
        guard !lone.built.decodes, run.expectation?.headers == nil else { return nil }
        // With no body to read and no header, only the status and the time limit are checked: a status
        // `expect.status` accepts, with no time limit, is what `verdict` calls a success (the problems are worded
        // by `verdict` itself).
        if run.expectation?.maxDuration == nil, Self.accepts(run.expectation, status: response.status) {
            return .succeeded
        }
        switch verdict(on: response, body: .null, bodyProblem: nil, duration: duration, of: run) {
        case .succeeded: return .succeeded
        case .failed(let reason, _, _, _, _): return .failed(reason)
        case .pending: return nil
        }
    }

    /// How an attempt judged by `judgeLone` ended.
    enum LoneVerdict {
        case succeeded
        case failed(StepReason)
    }

    /// The scope of a plan's one request: no limit holds a request alone in its run, and no timeout or
    /// failure cancels it (the plan has none: `Layout.loneRequest`).
    static var loneScope: Scope { Scope(policy: .continue, limiters: [], reasons: [CancellationReason()]) }
}

extension Executor.Layout {
    /// The plan's one step when it is a request and the plan nothing else: no sub-plan, `if:`, plan `timeout`
    /// or `outputs` (what `Executor.runLone` leaves to `run()`).
    static func loneRequest(in graph: PlanGraph) -> NodeID? {
        guard graph.nodes.count == 1, graph.instances.count == 1, let node = graph.nodes.first,
            node.kind == .request, node.step.condition == nil, node.dependencies.isEmpty,
            graph.plan.timeout == nil, graph.plan.outputs.isEmpty
        else { return nil }
        return node.nodeID
    }
}
