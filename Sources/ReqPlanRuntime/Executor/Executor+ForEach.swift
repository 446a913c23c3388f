import Synchronization
import ReqPlanPlanner
import ReqPlanSyntax

extension Executor {
    /// The list a for_each iterates over.
    func forEachItems(_ loop: ForEach, context: EvaluationContext) throws(EvaluationError) -> [Value] {
        let value = try ExpressionEvaluator.evaluate(loop.items, in: context)
        switch value {
        case .list(let items): return items
        case .null: return []
        default:
            throw EvaluationError("`for_each` needs a list, got \(value.type.withArticle)", at: loop.items.range)
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
            var item = result ?? StepResult(
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
        return Frame(parent: frame, loop: node.nodeID, itemIndex: index, items: visible,
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
    private func runRequestLoop(
        _ node: StepNode, _ loop: ForEach, items: [Value], frame: Frame, scope: Scope, store: ItemResults
    ) async {
        let workers = min(items.count, scope.limiters.map(\.limit).min() ?? configuration.maxActiveRequests)
        let cursor = ItemCursor()
        do {
            try await withThrowingDiscardingTaskGroup { group in
                for _ in 0..<workers {
                    group.addTask {
                        while !Task.isCancelled {
                            let index = cursor.take()
                            guard index < items.count else { return }
                            let frame = self.itemFrame(node, loop, items: items, index: index, frame: frame)
                            let result = await self.runIteration(node, loop, index: index, frame: frame, scope: scope)
                            if self.finishItem(node, index: index, result: result, scope: scope, store: store) {
                                throw LoopStopped()
                            }
                        }
                    }
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
        let window = items.count
        let (events, continuation) = AsyncStream<Int>.makeStream()
        defer { continuation.finish() }
        await withDiscardingTaskGroup { group in
            var next = 0
            func addIteration() {
                let index = next
                next += 1
                let itemFrame = self.itemFrame(node, loop, items: items, index: index, frame: frame)
                group.addTask {
                    let result = await self.runIteration(node, loop, index: index, frame: itemFrame, scope: scope)
                    continuation.yield(self.finishItem(node, index: index, result: result, scope: scope, store: store)
                                       ? -1 : index)
                }
            }
            while next < window { addIteration() }
            var finished = 0
            if items.isEmpty { continuation.finish() }
            for await index in events {
                finished += 1
                if index < 0 {
                    group.cancelAll()
                    break
                }
                if finished == items.count { break }
                if next < items.count && !Task.isCancelled { addIteration() }
            }
            continuation.finish()
        }
    }

    private func runIteration(_ node: StepNode, _ loop: ForEach, index: Int, frame: Frame, scope: Scope) async
        -> StepResult
    {
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
            let context = evaluationContext(frame: frame, succeeded: true, failed: false)
            result = await runRequest(node, spec, frame: frame, scope: scope, itemIndex: index, context: context)
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
