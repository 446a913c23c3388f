import Synchronization
import ReqPlanPlanner
import ReqPlanSyntax

extension Executor {
    /// The list a for_each iterates over: its list evaluated, or the rows of its data file (read when the plan
    /// was checked, `PlanLibrary`).
    func forEachItems(_ loop: ForEach, context: EvaluationContext) throws(EvaluationError) -> [Value] {
        let items: ValueTemplate
        switch loop.source {
        case .file(let file):
            guard let rows = file.rows else {
                throw EvaluationError(
                    "the rows of `\(file.path.value)` were not read: the plan was not checked with its files",
                    at: file.path.range)
            }
            return rows.values
        case .list(let list): items = list
        }
        let value = try ExpressionEvaluator.evaluate(items, in: context)
        switch value {
        case .list(let items): return items
        case .null: return []
        default:
            throw EvaluationError("`for_each` needs a list, got \(value.type.withArticle)", at: items.range)
        }
    }

    /// Runs one body per item; results come back in the order of the items whatever order they end in.
    func runLoop(_ node: StepNode, _ loop: ForEach, items: [Value], frame: Frame, scope: Scope) async
        -> [StepResult]
    {
        observer.loopStarted(node.id, itemCount: items.count)
        // Children store their results here, so even results not yet consumed when the loop is
        // cancelled are kept.
        let store = ItemResults(count: items.count)
        if case .request = loop.body {
            await runRequestLoop(node, loop, items: items, frame: frame, scope: scope, store: store)
        } else {
            await runGroupLoop(node, loop, items: items, frame: frame, scope: scope, store: store)
        }
        let results = store.all
        return results.enumerated().map { index, result in
            var item =
                result
                ?? StepResult(
                    id: node.id, state: .cancelled,
                    reason: scope.cancellationReason.map { StepReason(.cancelled, $0.message) }
                        ?? StepReason(.cancelled, "never started"))
            item.itemIndex = index
            return item
        }
    }

    /// The frame an item's body sees: the loop's, with the item variable bound.
    private func itemFrame(_ node: StepNode, _ loop: ForEach, items: [Value], index: Int, frame: Frame) -> Frame {
        var visible = frame.items
        visible[loop.itemName.value] = items[index]
        return Frame(
            parent: frame, loop: node.nodeID, itemIndex: index, items: visible,
            nodes: node.kind == .forEachGroup ? (nodesByLoop[node.nodeID] ?? []) : [])
    }

    /// Records an item's result; under `fail_fast` a failed item cancels the loop's scope.
    /// - Returns: whether the loop must stop.
    private func finishItem(_ node: StepNode, index: Int, result: StepResult, scope: Scope, store: ItemResults)
        -> Bool
    {
        store.set(index, result)
        observer.stepFinished(result)
        guard result.state == .failed && scope.policy == .failFast, let reason = scope.reasons.first else {
            return false
        }
        reason.set(StepReason(.cancelled, "cancelled because item #\(index) of `\(node.id)` failed (fail_fast)"))
        return true
    }

    /// Items whose body is one request: as many workers as requests may be in flight, each taking
    /// the next item when its request ends. An item's request is sent by the task that finished the
    /// previous one (no task, queue or hand-off per item), and an item not yet taken holds nothing.
    /// A worker whose item waits for a retry holds no slot, so another worker starts in its place
    /// and the loop keeps its requests in flight; workers beyond the number needed stop after
    /// their item.
    private func runRequestLoop(
        _ node: StepNode, _ loop: ForEach, items: [Value], frame: Frame, scope: Scope, store: ItemResults
    ) async {
        let wanted = min(items.count, scope.limiters.map(\.limit).min() ?? configuration.maxActiveRequests)
        guard wanted > 0 else { return }
        let cursor = ItemCursor()
        let crew = LoopWorkers(wanted: wanted)
        let (replacements, replace) = AsyncStream<Void>.makeStream()
        let backoff: @Sendable (Bool) -> Void = { started in
            if started {
                if crew.pause() && !cursor.exhausted(items.count) { replace.yield() }
            } else {
                crew.resume()
            }
        }
        @Sendable func work() async throws {
            var retired = false
            defer { if crew.leave(counted: retired) { replace.finish() } }
            while !Task.isCancelled {
                let index = cursor.take()
                guard index < items.count else { return }
                let frame = self.itemFrame(node, loop, items: items, index: index, frame: frame)
                let result = await self.runIteration(
                    node, loop, index: index, frame: frame, scope: scope,
                    retryWait: backoff)
                if self.finishItem(node, index: index, result: result, scope: scope, store: store) {
                    throw LoopStopped()
                }
                if crew.retireIfSpare() {
                    retired = true
                    return
                }
            }
        }
        do {
            try await withThrowingDiscardingTaskGroup { group in
                for _ in 0..<wanted { crew.join() }
                for _ in 0..<wanted { group.addTask { try await work() } }
                for await _ in replacements {
                    crew.join()
                    group.addTask { try await work() }
                }
            }
        } catch {
            // A failed item under fail_fast: the group has cancelled the other workers.
        }
    }

    /// Items whose body is a group: a task per item (a group's members wait on each other, so an
    /// item may hold no request slot for a while and limits count requests, not items).
    private func runGroupLoop(
        _ node: StepNode, _ loop: ForEach, items: [Value], frame: Frame, scope: Scope, store: ItemResults
    ) async {
        do {
            try await withThrowingDiscardingTaskGroup { group in
                for index in items.indices {
                    let itemFrame = self.itemFrame(node, loop, items: items, index: index, frame: frame)
                    group.addTask {
                        let result = await self.runIteration(node, loop, index: index, frame: itemFrame, scope: scope)
                        if self.finishItem(node, index: index, result: result, scope: scope, store: store) {
                            throw LoopStopped()
                        }
                    }
                }
            }
        } catch {
            // A failed item under fail_fast: the group has cancelled the other items.
        }
    }

    /// - Parameter retryWait: told when the item's request starts and ends waiting for a retry.
    private func runIteration(
        _ node: StepNode, _ loop: ForEach, index: Int, frame: Frame, scope: Scope,
        retryWait: (@Sendable (Bool) -> Void)? = nil
    ) async -> StepResult {
        if Task.isCancelled {
            var result = cancelledResult(node, scope: scope, started: false)
            result.itemIndex = index
            return result
        }
        let start = now()
        observer.stepStarted(node.id, item: index, at: start)
        var result: StepResult
        switch loop.body {
        case .request(let spec):
            let context = evaluationContext(frame: frame, instance: node.instance, succeeded: true, failed: false)
            result = await runRequest(
                node, spec, frame: frame, scope: scope, itemIndex: index, context: context,
                retryWait: retryWait)
        case .group:
            let children = await runMembers(node.children, frame: frame, scope: scope)
            result = aggregate(node, children)
        }
        result.itemIndex = index
        result.start = start
        result.ready = start
        result.end = now()
        return result
    }
}

/// Thrown by a worker to stop a loop under `fail_fast`.
private struct LoopStopped: Error {}

/// The next item a loop's workers take.
final class ItemCursor: Sendable {
    private let next = Atomic<Int>(0)

    /// The index of an item no other worker has taken.
    func take() -> Int { next.add(1, ordering: .relaxed).oldValue }

    /// Whether every one of `count` items has been taken.
    func exhausted(_ count: Int) -> Bool { next.load(ordering: .relaxed) >= count }
}

/// How many workers a request loop has, and how many of them wait for a retry.
final class LoopWorkers: Sendable {
    private struct State {
        var running = 0
        var waiting = 0
    }

    /// Workers that should be sending at once: the loop's concurrency.
    private let wanted: Int
    private let state = Mutex(State())

    init(wanted: Int) { self.wanted = wanted }

    /// A worker starts.
    func join() { state.withLock { $0.running += 1 } }

    /// A worker stops (`counted`: `retireIfSpare` has counted it already); returns whether it was
    /// the last one.
    func leave(counted: Bool) -> Bool {
        state.withLock { state in
            if !counted { state.running -= 1 }
            return state.running == 0
        }
    }

    /// A worker's item waits for a retry; returns whether to start a worker in its place.
    func pause() -> Bool {
        state.withLock { state in
            state.waiting += 1
            return state.running - state.waiting < wanted
        }
    }

    /// The wait is over.
    func resume() { state.withLock { $0.waiting -= 1 } }

    /// After an item: whether this worker is one too many (replacements outlived the waits) and
    /// stops, leaving the others to take the rest.
    func retireIfSpare() -> Bool {
        state.withLock { state in
            guard state.running - state.waiting > wanted else { return false }
            state.running -= 1
            return true
        }
    }
}

/// The results of a for_each's items, written by the item tasks.
final class ItemResults: Sendable {
    private let results: Mutex<[StepResult?]>

    init(count: Int) {
        results = Mutex([StepResult?](repeating: nil, count: count))
    }

    func set(_ index: Int, _ result: StepResult) {
        results.withLock { $0[index] = result }
    }

    var all: [StepResult?] { results.withLock { $0 } }
}
