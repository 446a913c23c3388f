import Synchronization
import ReqPlanSyntax

/// What the API checks found for each step of the plans checked with it, kept for the next check of the same
/// file: a plan that changed in one step is checked again in that step and in the steps that read it (an
/// editor's keystroke in a plan of a thousand bound requests). A step's findings are kept while the step is
/// the same (the same AST: `PlanReadCache` gives back the steps that did not change), the steps it reads are
/// the same, and so is everything around the steps (the text around them, the descriptions bound); whatever
/// it finds is what checking the plan whole finds (`APICheckCacheTests` checks that over random edits).
/// Give one to `PlanLibrary(readCache:apiCheckCache:)` with a `PlanReadCache`.
public final class APICheckCache: Sendable {
    /// Everything around the steps that a step's check reads.
    struct Context: Equatable, Sendable {
        var textAroundSteps: String
        var descriptions: [String: ObjectIdentifier]
    }

    /// What one step's check found.
    struct Entry: Sendable {
        /// The step (kept alive, so its identity is not reused).
        var step: Step
        /// Its operation, read in full.
        var bound: BoundOperation?
        /// What binding it found (an unknown operation).
        var binding: [Diagnostic]
        /// What checking its request and its data flow found; `nil` when it reads what cannot be kept (a
        /// sub-plan's outputs).
        var checked: [Diagnostic]?
        /// The steps its expressions read, by id, as they were.
        var reads: [String: ObjectIdentifier?]
        /// The step with its operation's method and URL filled in (top-level steps).
        var filled: Step?
    }

    private let files = Mutex<[String: (context: Context, entries: [ObjectIdentifier: Entry])]>([:])
    private let lastChecks = Mutex<[String: StepChecks]>([:])

    public init() {}

    /// How many steps of a plan one check took from what it kept, and how many it checked again (the language
    /// server's trace says it after each check).
    public struct StepChecks: Sendable, Hashable {
        /// Steps whose findings were kept from the check before.
        public var kept: Int
        /// Steps checked again (all of them when the plan was checked whole).
        public var checked: Int

        /// Counts.
        public init(kept: Int, checked: Int) {
            self.kept = kept
            self.checked = checked
        }
    }

    /// What the last check of the plan at `path` kept and checked again; `nil` before the plan's first check
    /// with this cache. A report has its own check's (`ValidationReport.apiStepChecks`).
    func lastCheck(of path: String) -> StepChecks? { lastChecks.withLock { $0[path] } }

    func record(_ checks: StepChecks, for path: String) {
        lastChecks.withLock { $0[path] = checks }
    }

    func entries(for path: String, _ context: Context) -> [ObjectIdentifier: Entry] {
        files.withLock { files in
            guard let kept = files[path], kept.context == context else { return [:] }
            return kept.entries
        }
    }

    func keep(_ entries: [ObjectIdentifier: Entry], for path: String, _ context: Context) {
        files.withLock { $0[path] = (context, entries) }
    }

    /// Drops what is kept of `path`.
    func forget(_ path: String) {
        files.withLock { _ = $0.removeValue(forKey: path) }
    }
}

extension APIChecker {
    /// `check`, keeping in `cache` what each step's check found, and taking what it kept of the steps that
    /// did not change. A plan not read block by block (`Plan.textAroundSteps`), or with a step id given
    /// twice, is checked whole.
    static func check(
        _ plan: Plan, apis: [String: LoadedAPI], subPlanOutputs: [String: [String: FlowType]],
        cache: APICheckCache
    ) -> (plan: Plan, diagnostics: [Diagnostic], operations: [String: BoundOperation], outputs: [String: FlowType]) {
        let steps = plan.allSteps
        guard let text = plan.textAroundSteps, Set(steps.map(\.id.value)).count == steps.count else {
            cache.forget(plan.source.path)
            cache.record(.init(kept: 0, checked: steps.count), for: plan.source.path)
            return check(plan, apis: apis, subPlanOutputs: subPlanOutputs)
        }
        let context = APICheckCache.Context(
            textAroundSteps: text, descriptions: apis.mapValues { ObjectIdentifier($0.description.identity) })
        let kept = cache.entries(for: plan.source.path, context)
        var entries: [ObjectIdentifier: APICheckCache.Entry] = [:]
        var checker = APIChecker(plan: plan, apis: apis, subPlanOutputs: subPlanOutputs)

        // Binding: kept for a step that is the same (its operation depends only on it and the context).
        var fresh: Set<String> = []
        for step in steps {
            if let entry = kept[ObjectIdentifier(step)] {
                checker.bound[step.id.value] = entry.bound
                checker.diagnostics.append(contentsOf: entry.binding)
                entries[ObjectIdentifier(step)] = entry
                continue
            }
            let before = checker.diagnostics.diagnostics.count
            if let request = step.request, let bound = checker.bind(request) {
                checker.bound[step.id.value] = bound
                fresh.insert(step.id.value)
            }
            entries[ObjectIdentifier(step)] = APICheckCache.Entry(
                step: step, bound: nil, binding: Array(checker.diagnostics.diagnostics[before...]), checked: nil,
                reads: [:])
        }
        let beforeDetails = checker.diagnostics.diagnostics.count
        checker.readBoundOperationsInFull(of: fresh)
        // A description whose operations could not be read is reported anew at each check.
        let keepsBindings = checker.diagnostics.diagnostics.count == beforeDetails

        // Requests and data flow: kept for a step that is the same and reads the same steps.
        var keptCount = 0
        for step in steps {
            let identity = ObjectIdentifier(step)
            if let entry = kept[identity], let checked = entry.checked,
                entry.reads.allSatisfy({ id, read in checker.steps[id].map(ObjectIdentifier.init) == read })
            {
                checker.diagnostics.append(contentsOf: checked)
                keptCount += 1
                continue
            }
            let before = checker.diagnostics.diagnostics.count
            if let request = step.request, let bound = checker.bound[step.id.value] {
                checker.checkRequest(request, of: step, bound)
            }
            checker.checkDataFlow(of: step)
            var reads: [String: ObjectIdentifier?] = [:]
            var readsSubPlan = false
            for expression in Self.expressions(of: step) {
                for reference in expression.references where reference.root.value == "steps" {
                    guard let id = reference.memberName(at: 0)?.value else { continue }
                    let read = checker.steps[id]
                    if let read, case .plan = read.kind { readsSubPlan = true }
                    // `updateValue`: a step not there is kept as such (a subscript would drop the key).
                    reads.updateValue(read.map(ObjectIdentifier.init), forKey: id)
                }
            }
            entries[identity]?.bound = checker.bound[step.id.value]
            entries[identity]?.checked = readsSubPlan ? nil : Array(checker.diagnostics.diagnostics[before...])
            entries[identity]?.reads = reads
        }
        checker.checkPlanDataFlow()
        checker.checkCredentials()
        let outputs = checker.outputFlows()

        var rewritten = plan
        rewritten.steps = plan.steps.map { step in
            if let filled = kept[ObjectIdentifier(step)]?.filled { return filled }
            let filled = checker.filled(step)
            entries[ObjectIdentifier(step)]?.filled = filled
            return filled
        }
        cache.record(.init(kept: keptCount, checked: steps.count - keptCount), for: plan.source.path)
        if keepsBindings {
            cache.keep(entries, for: plan.source.path, context)
        } else {
            cache.forget(plan.source.path)
        }
        return (rewritten, checker.diagnostics.diagnostics, checker.bound, outputs)
    }
}
