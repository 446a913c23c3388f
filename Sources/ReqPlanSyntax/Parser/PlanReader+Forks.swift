import Dispatch
import Synchronization

/// What a reader forked for some of a plan's top-level steps found (`PlanReader.forkForSteps`), to be joined
/// into the plan's reader as if it had read them itself (`PlanReader.join`). Depends only on the steps' text
/// and on what the plan says before its steps that reading a step reads (`ForkBase`), so it can be kept
/// between readings of a changing plan (`PlanReadCache`).
struct StepsRead: Sendable {
    var steps: [Step]
    var diagnostics: [Diagnostic]
    /// The ids it declared, in order (a duplicate of an id declared before them is reported at the join).
    var declaredStepIDs: [Located<String>]
    var stepIDs: [String: SourceRange]
    var invalidStepIDs: Set<String>
    var invalidNeeds: [Located<String>]
    var inputsReadWhereNotEvaluated: Set<String>
    var sawMalformedExpression: Bool
    /// The nodes it charged against the alias-expansion budget.
    var nodesSpent: Int
    var reportedExpansion: Bool
    var depthExceeded: Bool
}

extension PlanReader {
    /// A plan's top-level `steps:` with at least this many entries are read in two halves at once.
    static let stepsReadInParallel = 512

    /// What reading a top-level step reads of the reader's state: equal bases read equal steps alike.
    struct ForkBase: Hashable, Sendable {
        var hasBaseURL: Bool
        var depthExceeded: Bool
        var reportedExpansion: Bool
    }

    var forkBase: ForkBase {
        ForkBase(hasBaseURL: hasBaseURL, depthExceeded: depthExceeded, reportedExpansion: reportedExpansion)
    }

    /// A reader for some of the plan's top-level steps, apart from this one: it knows what this one read
    /// before the steps (the base URL, the limits, the budget left) and none of the step ids.
    func forkForSteps() -> PlanReader {
        var fork = self
        fork.diagnostics = DiagnosticCollector(file: source.path)
        fork.stepIDs = [:]
        fork.invalidStepIDs = []
        fork.invalidNeeds = []
        fork.inputsReadWhereNotEvaluated = []
        fork.sawMalformedExpression = false
        fork.declaredStepIDs = []
        fork.stepBlocks = nil
        return fork
    }

    /// Reads `entries`, top-level steps, in this reader, a fork of `start` (`forkForSteps`).
    mutating func readForked(_ entries: ArraySlice<(key: Located<String>, value: YAMLNode)>, forkedAt start: PlanReader)
        -> StepsRead
    {
        let steps = entries.compactMap { readDeclaredStep(id: $0.key, $0.value) }
        return StepsRead(
            steps: steps, diagnostics: diagnostics.diagnostics, declaredStepIDs: declaredStepIDs ?? [],
            stepIDs: stepIDs, invalidStepIDs: invalidStepIDs, invalidNeeds: invalidNeeds,
            inputsReadWhereNotEvaluated: inputsReadWhereNotEvaluated, sawMalformedExpression: sawMalformedExpression,
            nodesSpent: budgetSpent(since: start), reportedExpansion: reportedExpansion,
            depthExceeded: depthExceeded)
    }

    /// Reads top-level steps in two halves on two threads (reading is a third of a 10,000-step plan's
    /// `validate`, and its steps are independent until names are resolved), then joins what each found.
    mutating func readStepsInParallel(_ entries: [(key: Located<String>, value: YAMLNode)], in node: YAMLNode) -> [Step]
    {
        let middle = entries.count / 2
        let start = forkForSteps()
        // Each thread reads its own half of the node tree, which is immutable, into its own reader; nothing
        // else is shared.
        let halves = Self.inParallel(2) { half in
            var fork = start
            return fork.readForked(half == 0 ? entries[..<middle] : entries[middle...], forkedAt: start)
        }
        return join(halves.compactMap { $0 }, steps: range(node))
    }

    /// Reads the top-level steps cut into blocks on `read.threads` threads, in runs of consecutive blocks
    /// (`runs(of:threads:)`), each run composed from its text and read alone (composing is the largest
    /// serial part of a long plan's `validate`); `read.failed` when a run does not compose alone as it is in
    /// the plan.
    mutating func readStepBlocksInParts(_ read: inout StepBlocksRead) -> [Step] {
        let blocks = read.blocks
        let parts = Self.runs(of: blocks.count, threads: read.threads)
        let start = forkForSteps()
        let found = Self.inParallel(parts.count) { part in start.readAlone(blocks[parts[part]]) }
        let runs = found.compactMap { $0 }
        guard runs.count == parts.count else {
            read.failed = true
            return []
        }
        let at = SourceRange(at: SourceLocation(line: blocks.first?.firstLine ?? 1, column: 1))
        return join(runs, steps: at)
    }

    /// The runs `count` blocks are read in on `threads` threads, in order: each a quarter of what is left for
    /// each thread, down to a sixteenth of an equal share, so the first runs are long and the last short, and
    /// the threads run out of work together. (Eight equal runs on two cores left one idle for up to a run,
    /// a tenth of the time; more equal runs cost a parser each.)
    static func runs(of count: Int, threads: Int) -> [Range<Int>] {
        let threads = max(1, threads)
        let shortest = max(1, count / (16 * threads))
        var runs: [Range<Int>] = []
        var start = 0
        while start < count {
            let end = min(count, start + max(shortest, (count - start) / (2 * threads)))
            runs.append(start..<end)
            start = end
        }
        return runs
    }

    /// Composes `blocks` (consecutive top-level steps) from their text alone, at their lines, and reads them
    /// in a fork of this reader (`forkForSteps`); `nil` unless they compose to a mapping of exactly their ids,
    /// as in the plan.
    func readAlone(_ blocks: ArraySlice<StepBlocks.Block>) -> StepsRead? {
        guard let first = blocks.first, let last = blocks.last else { return nil }
        // Composed from its own text, its lines counted from the run's first (`lineOffset`): a run late in a long
        // plan no longer composes (and indexes) a newline for every line before it.
        let text = String(source.text[first.text.startIndex..<last.text.endIndex])
        guard
            let node = YAMLLoader.composePlanPart(text),
            case .mapping(let mapping) = node, mapping.count == blocks.count,
            zip(mapping.keys, blocks).allSatisfy({ key, block in
                guard case .scalar(let id) = key else { return false }
                return id.style == .plain && id.string == block.id
            })
        else { return nil }
        var fork = self
        fork.lineOffset = first.firstLine - 1
        guard let entries = fork.mapping(node, "`steps`") else { return nil }
        return fork.readForked(entries.entries[...], forkedAt: self)
    }

    /// Runs `work` for each of `count` parts at once, on as many threads as there are cores, and gives
    /// what each found, in order.
    static func inParallel(_ count: Int, _ work: @Sendable (Int) -> StepsRead?) -> [StepsRead?] {
        let found = Mutex([StepsRead?](repeating: nil, count: count))
        DispatchQueue.concurrentPerform(iterations: count) { part in
            let read = work(part)
            found.withLock { $0[part] = read }
        }
        return found.withLock { $0 }
    }

    /// Joins what forks read, in order (`join(_:steps:)`), and gives their steps.
    mutating func join(_ forks: [StepsRead], steps range: SourceRange) -> [Step] {
        var steps: [Step] = []
        steps.reserveCapacity(forks.reduce(0) { $0 + $1.steps.count })
        stepIDs.reserveCapacity(forks.reduce(stepIDs.count) { $0 + $1.stepIDs.count })
        for fork in forks {
            join(fork, steps: range)
            steps += fork.steps
        }
        return steps
    }

    /// Takes in what a fork of this reader read after everything this one read: its diagnostics, the step
    /// ids it declared (an id declared before is a duplicate at its second declaration), the nodes it
    /// charged (RP0005 at `range` if together they pass the budget).
    mutating func join(_ other: StepsRead, steps range: SourceRange) {
        for id in other.declaredStepIDs {
            if let first = stepIDs[id.value] { reportDuplicateStep(id, first: first) }
        }
        // RP0005 is reported once: by the first fork that ran out, else by `joinBudget`. (RP0008 for a value
        // nested too deep may come once from each fork.)
        let alreadyOut = budgetExceeded
        diagnostics.append(contentsOf: other.diagnostics.filter { !(alreadyOut && $0.code == .aliasExpansion) })
        for (id, range) in other.stepIDs where stepIDs[id] == nil { stepIDs[id] = range }
        invalidStepIDs.formUnion(other.invalidStepIDs)
        invalidNeeds += other.invalidNeeds
        inputsReadWhereNotEvaluated.formUnion(other.inputsReadWhereNotEvaluated)
        sawMalformedExpression = sawMalformedExpression || other.sawMalformedExpression
        joinBudget(
            nodes: other.nodesSpent, reported: other.reportedExpansion, depthExceeded: other.depthExceeded,
            at: range)
    }
}
