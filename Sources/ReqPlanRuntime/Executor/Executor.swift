import ReqPlanTransport
import Synchronization
import Foundation
import ReqPlanPlanner
import ReqPlanSyntax

/// Runs a planned plan on Swift structured concurrency.
///
/// Every step is a child task of the scope it belongs to (the plan, a group, a
/// sequence, a for_each), so scopes join on their boundary and cancelling a
/// scope cancels everything in it. A step's task first awaits the completion
/// events of its dependencies — it starts the moment the last one ends, with
/// no polling — then takes concurrency slots only around each request attempt.
public struct Executor: Sendable {
    let graph: PlanGraph
    let transport: any Transport
    let configuration: RunConfiguration
    let observer: any ExecutionObserver
    let inputs: RunInputs
    /// The request builder of each plan instance (its `defaults`, its folder for relative files).
    let builders: [RequestBuilder]
    let clock = ContinuousClock()
    let startInstant: ContinuousClock.Instant
    /// The wall-clock time of `startInstant`, for reports.
    let startDate: Date
    /// Nodes whose innermost for_each is a given loop (or `nil`: the plan).
    let nodesByLoop: [NodeID?: [NodeID]]
    /// Which names carry secrets in each plan instance, for what outputs show.
    let secretFlows: [SecretFlow]
    /// Each request node's settings, by `NodeID` (nil for other nodes).
    let requestSettings: [RequestSettings?]
    /// The plan's one step, when it is a request and the plan nothing else (`Layout.loneRequest`).
    let loneRequest: NodeID?
    /// The textual net for what cannot be traced (values a server sent, a library's error text): the
    /// secret inputs and what the run learns (`Redactor`).
    let secretNet: Redactor

    /// What every run of one plan with the same files shares: worked out once, then given to each run
    /// (`reqplan load`'s iterations), which would otherwise walk the graph again every time.
    public struct Layout: Sendable {
        let graph: PlanGraph
        /// The request builder of each plan instance (its `defaults`, its folder for relative files).
        let builders: [RequestBuilder]
        /// Nodes whose innermost for_each is a given loop (or `nil`: the plan).
        let nodesByLoop: [NodeID?: [NodeID]]
        /// Which names carry secrets in each plan instance, for what outputs show.
        let secretFlows: [SecretFlow]
        /// Each request node's settings, by `NodeID` (nil for other nodes).
        let requestSettings: [RequestSettings?]
        /// The plan's one step, when it is a request and the plan nothing else (`Executor.buildLone`).
        let loneRequest: NodeID?

        /// The layout of runs of `graph` whose relative files are read through `files`.
        public init(graph: PlanGraph, files: FileAccess) {
            self.graph = graph
            self.builders = graph.instances.enumerated().map { index, instance in
                let instanceFiles =
                    index == 0
                    ? files
                    : instance.file.map {
                        files.relative(to: URL(fileURLWithPath: $0).deletingLastPathComponent())
                    } ?? files
                return RequestBuilder(defaults: instance.plan.defaults, files: instanceFiles)
            }
            var byLoop: [NodeID?: [NodeID]] = [:]
            for node in graph.nodes { byLoop[node.loop, default: []].append(node.nodeID) }
            self.nodesByLoop = byLoop
            self.secretFlows = SecretFlow.flows(of: graph)
            self.requestSettings = RequestSettings.all(in: graph)
            self.loneRequest = Self.loneRequest(in: graph)
        }
    }

    /// Creates an executor for one run.
    public init(
        graph: PlanGraph, transport: any Transport, inputs: RunInputs, configuration: RunConfiguration,
        observer: any ExecutionObserver = NoObserver()
    ) {
        self.init(
            layout: Layout(graph: graph, files: configuration.files), transport: transport, inputs: inputs,
            configuration: configuration, observer: observer)
    }

    /// Creates an executor for one run of a plan laid out already; `configuration`'s files are the
    /// layout's.
    public init(
        layout: Layout, transport: any Transport, inputs: RunInputs, configuration: RunConfiguration,
        observer: any ExecutionObserver = NoObserver()
    ) {
        self.graph = layout.graph
        self.transport = transport
        self.inputs = inputs
        self.configuration = configuration
        self.observer = observer
        self.builders = layout.builders
        self.startInstant = ContinuousClock.now
        self.startDate = Date()
        self.nodesByLoop = layout.nodesByLoop
        self.secretFlows = layout.secretFlows
        self.requestSettings = layout.requestSettings
        self.loneRequest = layout.loneRequest
        self.secretNet = Redactor(secrets: inputs.secrets, store: configuration.secrets)
    }

    /// Time since the run started.
    func now() -> Duration { clock.now - startInstant }

    /// Runs the plan to the end, or until the task is cancelled (interrupt) or the plan's timeout.
    /// Always returns the results gathered, even when interrupted.
    public func run() async -> RunResult {
        let root = Frame(parent: nil, loop: nil, itemIndex: nil, items: [:], nodes: nodesByLoop[nil] ?? [])
        root.record(InstanceState(inputs: inputs.values, variables: graph.plan.vars), for: 0)
        let rootReason = CancellationReason()
        let planLimit = configuration.concurrency ?? graph.plan.concurrency?.value
        let scope = Scope(
            policy: graph.plan.onFailure?.value ?? .continue,
            limiters: planLimit.map { [AsyncLimiter(limit: $0)] } ?? [], reasons: [rootReason])
        var timedOut = false
        if let timeout = graph.plan.timeout?.value {
            timedOut = await withTimeout(
                timeout.duration, reason: rootReason,
                message: "the plan timed out after \(timeout)", limitName: "the plan's timeout of \(timeout)"
            ) {
                _ = await self.runMembers(self.graph.roots, frame: root, scope: scope)
            }
        } else {
            _ = await runMembers(graph.roots, frame: root, scope: scope)
        }
        let interrupted = Task.isCancelled && !timedOut

        let context = evaluationContext(frame: root, instance: 0, succeeded: true, failed: false)
        var outputs: [(name: String, value: Value)] = []
        var shownOutputs: [(name: String, value: Value)] = []
        var outputErrors: [String] = []
        for output in graph.plan.outputs {
            do {
                let (value, shown) = try ExpressionEvaluator.render(output.value, in: context)
                if output.isSecret { configuration.secrets.addValue(value) }
                outputs.append((output.name.value, value))
                shownOutputs.append(
                    (output.name.value, output.isSecret ? .string(ExpressionEvaluator.secretMarker) : shown ?? value))
            } catch {
                outputs.append((output.name.value, .null))
                shownOutputs.append((output.name.value, .null))
                outputErrors.append("output `\(output.name.value)`: \(secretNet.redact(error.message))")
            }
        }
        // The results move out of the completion events (nothing reads those any more), so a large
        // plan's results are not held twice while the summary is built.
        let members = nodesByLoop[nil] ?? []
        var results: [String: StepResult] = [:]
        results.reserveCapacity(members.count)
        var order: [String] = []
        order.reserveCapacity(members.count)
        for id in members {
            let node = graph.nodes[id]
            order.append(node.id)
            results[node.id] =
                root.completions[id]?.takeResult()
                ?? StepResult(id: node.id, state: .cancelled, reason: StepReason(.cancelled, "the run was interrupted"))
        }
        var result = RunResult(
            results: results, order: order, outputs: outputs, outputErrors: outputErrors,
            interrupted: interrupted, timedOut: timedOut, duration: now(), startedAt: startDate)
        result.shownOutputs = shownOutputs
        result.secrets = configuration.secrets.all
        result.secretOutputs = Set(graph.plan.outputs.filter(\.isSecret).map(\.name.value))
        return result
    }

    // MARK: Scopes

    /// The scope whose member the current task is running (see `runMembers`).
    @TaskLocal static var currentScope: ObjectIdentifier?
    /// The visit of a control flow's member being run, and the attempts its earlier visits made: each
    /// attempt is numbered on from them and says its visit (`FlowControl`).
    @TaskLocal static var currentVisit: (visit: Int, attemptsBefore: Int)?

    /// Runs `members` as child tasks of one task group and returns their results in order.
    ///
    /// A member starts the moment its last dependency ends: completion callbacks mark it
    /// ready. The member task whose step made it ready runs it next, in the same task (a
    /// chain of steps costs no task switch); any other ready members are handed to the
    /// scope's loop, which starts a task for each at once. Waiting steps cost no task, and
    /// finished tasks are discarded at once. With `fail_fast`, the first failure cancels the
    /// others and members that never started end `cancelled`.
    func runMembers(_ members: [NodeID], frame: Frame, scope: Scope) async -> [StepResult] {
        guard !members.isEmpty else { return [] }
        // One member has no one to wait for in this scope, nor to cancel or be capped with: it runs in this
        // task, with no task group, stream or child task (a one-request plan's whole run; `reqplan load`
        // runs millions of them). It waits for its dependencies outside the scope itself (`runStep`).
        if members.count == 1 { return [await runStep(members[0], frame: frame, scope: scope)] }
        enum Event: Sendable {
            case wake
            case failed(Int)
            case done
        }
        let (events, continuation) = AsyncStream<Event>.makeStream()
        let isRequest = members.map { graph.nodes[$0].kind == .request }
        // Requests started but not ended in this scope are capped (at the tightest concurrency
        // limit that applies, else `maxActiveRequests`), so a scope of 100,000 ready requests does
        // not hold 100,000 tasks at once. Groups and loops are never held back, nor run inline:
        // their members may wait for steps of this scope.
        let cap = scope.limiters.map(\.limit).min() ?? configuration.maxActiveRequests
        let run = ScopeRun(isRequest: isRequest, cap: cap)
        let key = ObjectIdentifier(run)
        let dependencies = members.map { member in
            graph.nodes[member].dependencies.compactMap { frame.completion(of: $0.target) }
        }
        let counters = ReadinessCounters(dependencies.map(\.count))
        for (position, completions) in dependencies.enumerated() {
            if completions.isEmpty { run.markReady(position) }
            for completion in completions {
                completion.whenFired { _ in
                    guard counters.decrement(position) == 0 else { return }
                    run.markReady(position)
                    // A member task of this scope picks it up itself when its step returns.
                    if Executor.currentScope != key { continuation.yield(.wake) }
                }
            }
        }
        continuation.yield(.wake)
        let policy = scope.policy

        /// Runs `first`, then whatever request it made ready, in this task.
        @Sendable func chain(from first: Int) async {
            var position = first
            while true {
                let state = await Executor.$currentScope.withValue(key) {
                    await self.runStep(members[position], frame: frame, scope: scope).state
                }
                if state == .failed && policy == .failFast { continuation.yield(.failed(position)) }
                if run.finishOne() { continuation.yield(.done) }
                guard !Task.isCancelled, let next = run.claimInline() else {
                    run.endTask(runningRequest: isRequest[first])
                    if run.hasReady { continuation.yield(.wake) }
                    return
                }
                if run.hasReady { continuation.yield(.wake) }
                position = next
            }
        }

        await withDiscardingTaskGroup { group in
            loop: for await event in events {
                switch event {
                case .wake:
                    while let position = run.claimForTask() {
                        group.addTask { await chain(from: position) }
                    }
                case .failed(let position):
                    if let reason = scope.reasons.first {
                        reason.set(
                            StepReason(
                                .cancelled,
                                "cancelled because `\(graph.nodes[members[position]].id)` failed (fail_fast)"))
                    }
                    group.cancelAll()
                    break loop
                case .done:
                    break loop
                }
            }
            continuation.finish()
        }
        // Members that never started end now, so nothing waits for them.
        for (position, member) in members.enumerated() where !run.wasClaimed(position) {
            if frame.completion(of: member)?.result == nil {
                _ = finish(member, frame: frame, cancelledResult(graph.nodes[member], scope: scope, started: false))
            }
        }
        return members.map { member in
            frame.completion(of: member)?.result
                ?? StepResult(
                    id: graph.nodes[member].id, state: .cancelled, reason: StepReason(.cancelled, "never started"))
        }
    }

    /// Runs `body`, cancelling it when `duration` passes first.
    /// - Parameter limitName: the timeout, in the message of an evaluation it stops (`the plan's timeout of 2s`).
    /// - Returns: whether the timeout fired.
    func withTimeout(
        _ duration: Duration, reason: CancellationReason, message: String, limitName: String,
        body: @escaping @Sendable () async -> Void
    ) async -> Bool {
        enum Event: Sendable { case finished, timerFired, timerCancelled }
        return await withTaskGroup(of: Event.self) { group in
            // Evaluations inside end by the same time (`EvaluationLimits`): one busy on a server's body gives
            // its thread back then, so the timer below gets one to fire on.
            let limits = EvaluationLimits.current.ending(
                by: ContinuousClock.now.advanced(by: duration), name: limitName)
            group.addTask {
                await EvaluationLimits.$current.withValue(limits) { await body() }
                return .finished
            }
            group.addTask {
                do {
                    try await Task.sleep(for: duration)
                    return .timerFired
                } catch {
                    return .timerCancelled
                }
            }
            let first = await group.next()
            if first == .timerFired {
                reason.set(StepReason(.timeout, message))
                group.cancelAll()
                while await group.next() != nil {}
                return true
            }
            group.cancelAll()
            while await group.next() != nil {}
            return false
        }
    }

    // MARK: Steps

    /// Waits for the step's dependencies, decides whether it runs, runs it, and fires its completion.
    func runStep(_ id: NodeID, frame: Frame, scope: Scope) async -> StepResult {
        let node = graph.nodes[id]
        var dependencies: [StepResult] = []
        for dependency in node.dependencies {
            guard let completion = frame.completion(of: dependency.target), let result = await completion.wait()
            else {
                return finish(id, frame: frame, cancelledResult(node, scope: scope, started: false))
            }
            dependencies.append(result)
        }
        let ready = now()
        if Task.isCancelled { return finish(id, frame: frame, cancelledResult(node, scope: scope, started: false)) }

        let allSucceeded = dependencies.allSatisfy { $0.state == .succeeded }
        let failure = dependencies.first { $0.state == .failed || $0.state == .cancelled || $0.causedByFailure }
        let context = evaluationContext(
            frame: frame, instance: node.instance, succeeded: allSucceeded,
            failed: failure != nil)

        if let condition = node.step.condition {
            do {
                if !(try ExpressionEvaluator.condition(condition, in: context)) {
                    var result = StepResult(
                        id: node.id, state: .skipped,
                        reason: StepReason(.condition, node.step.skippedBecause ?? "its `if` is false"))
                    result.causedByFailure = failure != nil && !allSucceeded
                    return finish(id, frame: frame, result, ready: ready)
                }
            } catch {
                return finish(
                    id, frame: frame,
                    StepResult(
                        id: node.id, state: .failed,
                        reason: StepReason(.evaluation, "`if`: \(secretNet.redact(error.message))")),
                    ready: ready)
            }
        } else if !allSucceeded, let blocker = dependencies.first(where: { $0.state != .succeeded }) {
            let verb: String
            switch blocker.state {
            case .failed: verb = "failed"
            case .cancelled: verb = "was cancelled"
            default: verb = "was skipped"
            }
            var result = StepResult(
                id: node.id, state: .skipped,
                reason: StepReason(.dependency, "dependency `\(blocker.id)` \(verb)"))
            result.causedByFailure = failure != nil
            return finish(id, frame: frame, result, ready: ready)
        }

        let start = now()
        configuration.logger.debug("step started", metadata: ["step": "\(node.id)", "kind": "\(node.kind.rawValue)"])
        observer.stepStarted(node.id, item: frame.itemIndex, at: start)
        var result: StepResult
        switch node.step.kind {
        case .request(let spec):
            result = await runRequest(node, spec, frame: frame, scope: scope, itemIndex: nil, context: context)
        case .group, .sequence:
            if let flow = node.step.flow {
                result = await runComposite(node, scope: scope) { inner in
                    await self.runFlow(node, flow, frame: frame, scope: inner)
                }
            } else {
                result = await runComposite(node, scope: scope) { inner in
                    await self.runMembers(node.children, frame: frame, scope: inner)
                }
            }
        case .plan(let call):
            result = await runSubPlan(node, call, frame: frame, scope: scope, context: context)
        case .forEach(let loop):
            do {
                let items = try forEachItems(loop, context: context)
                result = await runComposite(node, scope: scope) { inner in
                    await self.runLoop(node, loop, items: items, frame: frame, scope: inner)
                }
            } catch {
                result = StepResult(
                    id: node.id, state: .failed, reason: StepReason(.evaluation, secretNet.redact(error.message)))
            }
        }
        result.ready = ready
        result.start = start
        return finish(id, frame: frame, result, ready: ready)
    }

    /// Runs a group, sequence, for_each body or sub-plan under its own scope and timeout, and aggregates the
    /// results. A sub-plan's own `on_failure`, `concurrency` and `timeout` hold inside it (its `timeout` and
    /// the step's both run from the step's start: the shorter one ends it).
    func runComposite(
        _ node: StepNode, scope: Scope, subPlan: Plan? = nil, body: @escaping @Sendable (Scope) async -> [StepResult]
    ) async -> StepResult {
        let reason = CancellationReason()
        let entered = scope.entering(node.step, reason: reason)
        let inner = subPlan.map { entered.including($0) } ?? entered
        var limit = node.step.timeout.map { ($0.value, "timed out after \($0.value)") }
        if let own = subPlan?.timeout?.value, limit.map({ own < $0.0 }) ?? true {
            limit = (own, "the sub-plan's `timeout` ran out after \(own)")
        }
        let box = MemberResultsBox()
        var timedOut = false
        if let (timeout, _) = limit {
            timedOut = await withTimeout(
                timeout.duration, reason: reason,
                message: "\(node.step.kindName) `\(node.id)` timed out after \(timeout)",
                limitName: "the timeout of \(node.step.kindName) `\(node.id)` (\(timeout))"
            ) {
                box.set(await body(inner))
            }
        } else {
            box.set(await body(inner))
        }
        var result = aggregate(node, box.value ?? [])
        if timedOut, let (_, message) = limit {
            result.state = .failed
            result.reason = StepReason(.timeout, message)
        }
        return result
    }

    /// The state of a group, sequence or for_each from its members' or items' results.
    func aggregate(_ node: StepNode, _ children: [StepResult]) -> StepResult {
        var result = StepResult(id: node.id, state: .succeeded)
        result.children = children
        // A failure a control flow handled (`handledBy`) does not fail what holds it.
        let failed = children.filter { $0.state == .failed && $0.handledBy == nil }
        let cancelled = children.filter { $0.state == .cancelled }
        let blocked = children.filter { $0.state == .skipped && $0.causedByFailure }
        let noun =
            node.kind == .forEachRequest || node.kind == .forEachGroup
            ? "item"
            : node.kind == .plan ? "step" : "member"
        func names(_ list: [StepResult]) -> String {
            list.prefix(5).map { $0.itemIndex.map { "#\($0)" } ?? "`\($0.id)`" }.joined(separator: ", ")
                + (list.count > 5 ? ", …" : "")
        }
        if !failed.isEmpty {
            result.state = .failed
            result.reason = StepReason(
                .members, "\(failed.count) of \(children.count) \(noun)s failed: \(names(failed))")
        } else if !cancelled.isEmpty {
            result.state = .cancelled
            result.reason = cancelled.first?.reason ?? StepReason(.cancelled, "cancelled")
        } else if !blocked.isEmpty {
            result.state = .skipped
            result.causedByFailure = true
            result.reason = StepReason(.dependency, "\(blocked.count) \(noun)s were skipped: \(names(blocked))")
        }
        return result
    }

    /// Records the end of a step: times, the completion event, the observer. Steps that never
    /// started end their members too, so nothing waits for them forever.
    func finish(_ id: NodeID, frame: Frame, _ result: StepResult, ready: Duration? = nil) -> StepResult {
        var result = result
        if result.ready == nil { result.ready = ready }
        result.end = now()
        if result.itemIndex == nil { result.itemIndex = nil }
        if result.children == nil, graph.nodes[id].kind != .request, result.state != .succeeded {
            endUnstartedMembers(of: id, frame: frame, like: result)
        }
        frame.completion(of: id)?.fire(result)
        configuration.logger.debug(
            "step ended",
            metadata: [
                "step": "\(result.id)", "state": "\(result.state.rawValue)",
                "reason": "\(result.reason?.kind.rawValue ?? "-")",
            ])
        observer.stepFinished(result)
        return result
    }

    private func endUnstartedMembers(of id: NodeID, frame: Frame, like parent: StepResult) {
        for child in graph.nodes[id].children where graph.nodes[child].loop == frame.loop {
            guard let completion = frame.completion(of: child), completion.result == nil else { continue }
            var result = StepResult(
                id: graph.nodes[child].id, state: parent.state == .cancelled ? .cancelled : .skipped,
                reason: StepReason(
                    parent.state == .cancelled ? .cancelled : .dependency,
                    "`\(parent.id)` did not run"))
            result.causedByFailure = parent.causedByFailure || parent.state == .failed || parent.state == .cancelled
            result.end = now()
            endUnstartedMembers(of: child, frame: frame, like: result)
            completion.fire(result)
            observer.stepFinished(result)
        }
    }

    /// A `cancelled` result whose reason says why (fail_fast, timeout, or the user's interrupt).
    func cancelledResult(_ node: StepNode, scope: Scope, started: Bool) -> StepResult {
        let reason =
            scope.cancellationReason.map { reason in
                StepReason(.cancelled, reason.message)
            } ?? StepReason(.cancelled, started ? "interrupted while running" : "the run was interrupted")
        return StepResult(id: node.id, state: .cancelled, reason: reason)
    }

    // MARK: Expressions

    /// What the expressions of `instance` (the plan, or one run of a sub-plan) see from `frame`: its own
    /// steps, inputs and vars.
    func evaluationContext(frame: Frame, instance: Int, succeeded: Bool, failed: Bool) -> EvaluationContext {
        let index = graph.instances[instance].index
        var context = EvaluationContext(
            inputs: instance == 0 ? inputs.values : frame.state(of: instance)?.inputs ?? [:],
            environment: inputs.environment,
            step: { id in
                guard let node = index[id] else { return nil }
                return frame.completion(of: node)?.current?.value
            },
            items: frame.items, dependenciesSucceeded: succeeded, dependencyFailed: failed)
        context.secretFlow = secretFlows[instance]
        context.secretNet = secretNet
        context.stepBodyProblem = { id in
            guard let node = index[id] else { return nil }
            return frame.completion(of: node)?.result?.bodyProblem
        }
        // Only a plan with vars pays for the closure (it holds the executor, to evaluate them).
        if !graph.instances[instance].plan.vars.isEmpty {
            context.variable = { name in self.variableValue(name, frame: frame, instance: instance) }
        }
        return context
    }
}

/// Carries a scope's member results out of a timed task.
final class MemberResultsBox: Sendable {
    private let storage = Mutex<[StepResult]?>(nil)
    func set(_ value: [StepResult]) { storage.withLock { $0 = value } }
    var value: [StepResult]? { storage.withLock { $0 } }
}
