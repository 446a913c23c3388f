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
        let itemName = loop.itemName.value
        // Over a request with a limit, one iteration is one request: keep only that many
        // iterations alive at once instead of parking one task per item.
        let window: Int = {
            if case .request = loop.body, let limit = node.step.concurrency?.value { return limit }
            return items.count
        }()
        let (events, continuation) = AsyncStream<(Int, StepResult)>.makeStream()
        defer { continuation.finish() }
        await withDiscardingTaskGroup { group in
            var next = 0
            func addIteration() {
                let index = next
                next += 1
                var visible = frame.items
                visible[itemName] = items[index]
                let itemFrame = Frame(parent: frame, loop: node.nodeID, itemIndex: index, items: visible,
                                      nodes: node.kind == .forEachGroup ? (nodesByLoop[node.nodeID] ?? []) : [])
                group.addTask {
                    let result = await self.runIteration(node, loop, index: index, frame: itemFrame, scope: scope)
                    store.set(index, result)
                    continuation.yield((index, result))
                }
            }
            while next < min(window, items.count) { addIteration() }
            var finished = 0
            if items.isEmpty { continuation.finish() }
            for await (index, result) in events {
                finished += 1
                observer.stepFinished(result)
                if result.state == .failed && scope.policy == .failFast, let reason = scope.reasons.first {
                    reason.set(StepReason(.cancelled, "cancelled because item #\(index) of `\(node.id)` failed (fail_fast)"))
                    group.cancelAll()
                    break
                }
                if finished == items.count { break }
                if next < items.count && !Task.isCancelled { addIteration() }
            }
            continuation.finish()
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
