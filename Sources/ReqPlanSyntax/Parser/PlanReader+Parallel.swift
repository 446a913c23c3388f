import Dispatch
import Yams

extension PlanReader {
    /// A plan's top-level `steps:` with at least this many entries are read in two halves at once.
    static let stepsReadInParallel = 512

    /// Reads top-level steps in two halves on two threads (reading is a third of a 10,000-step plan's
    /// `validate`, and its steps are independent until names are resolved), then joins what the second half
    /// found into this reader as if it had been read after the first: its diagnostics, the step ids it
    /// declared (an id the first half declared too is a duplicate at the second one), the nodes it charged.
    mutating func readStepsInParallel(_ entries: [(key: Located<String>, value: Node)], in node: Node) -> [Step] {
        let middle = entries.count / 2
        var later = self
        later.diagnostics = DiagnosticCollector(file: source.path)
        later.stepIDs = [:]
        later.invalidStepIDs = []
        later.invalidNeeds = []
        later.inputsReadWhereNotEvaluated = []
        later.declaredStepIDs = []
        // Each thread reads its own half of the (immutable) node tree into its own reader; nothing is
        // shared but the tree, which is only read.
        nonisolated(unsafe) var readers = (first: self, second: later)
        nonisolated(unsafe) var halves: (first: [Step], second: [Step]) = ([], [])
        nonisolated(unsafe) let entries = entries
        DispatchQueue.concurrentPerform(iterations: 2) { half in
            if half == 0 {
                halves.first = entries[..<middle].compactMap { readers.first.readDeclaredStep(id: $0.key, $0.value) }
            } else {
                halves.second = entries[middle...].compactMap {
                    readers.second.readDeclaredStep(id: $0.key, $0.value)
                }
            }
        }
        self = readers.first
        join(readers.second, forkedAt: later, steps: node)
        return halves.first + halves.second
    }

    /// Takes in what `other`, a copy of this reader made when its budget was `start`, read after this one.
    private mutating func join(_ other: PlanReader, forkedAt start: PlanReader, steps node: Node) {
        for id in other.declaredStepIDs ?? [] {
            if let first = stepIDs[id.value] { reportDuplicateStep(id, first: first) }
        }
        // RP0005 is reported once: by the first half that ran out, else by `joinBudget`. (RP0008 for a value
        // nested too deep may come once from each half.)
        let alreadyOut = budgetExceeded
        diagnostics.append(
            contentsOf: other.diagnostics.diagnostics.filter { !(alreadyOut && $0.code == .aliasExpansion) })
        for (id, range) in other.stepIDs where stepIDs[id] == nil { stepIDs[id] = range }
        invalidStepIDs.formUnion(other.invalidStepIDs)
        invalidNeeds += other.invalidNeeds
        inputsReadWhereNotEvaluated.formUnion(other.inputsReadWhereNotEvaluated)
        sawMalformedExpression = sawMalformedExpression || other.sawMalformedExpression
        joinBudget(of: other, forkedAt: start, steps: node)
    }
}
