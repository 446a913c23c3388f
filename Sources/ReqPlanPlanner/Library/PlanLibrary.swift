import Foundation
import ReqPlanSyntax
import Synchronization

/// A plan file after the static pipeline, its sub-plans included: what `validate` reports of it.
public struct CheckedPlan: Sendable {
    /// The path shown in diagnostics.
    public let path: String
    /// The file, absolute with symbolic links resolved; `nil` for plan text not read from a file.
    public let file: String?
    /// Its text, when it could be read.
    public let source: SourceFile?
    /// Its AST, when it is a plan.
    public let plan: Plan?
    /// Its graph, sub-plans nested, when neither it nor any file it includes has errors.
    public let graph: PlanGraph?
    /// Every diagnostic of the file and of the files it includes; those of an included file carry an
    /// `included from FILE:LINE:COL` note for each inclusion between it and this file, innermost first.
    public let diagnostics: [Diagnostic]
    /// The text of this file and of every file it includes, for excerpts.
    public let sources: [SourceFile]
    /// The display paths of the files it includes, directly or not, each once.
    public let includedFiles: [String]
    /// Whether a cycle between files was met below it: the result then depends on where the walk entered
    /// the cycle, and is not kept in the cache.
    let involvesCycle: Bool
    /// Whether a chain of sub-plans too long was met below it (RP0304): the result then depends on how deep
    /// the walk entered, and is kept in the cache for that depth only.
    var reachesDepthLimit = false
    /// The types of its outputs that its API checks could tell, for a plan that runs it as a sub-plan.
    var outputFlows: [String: FlowType] = [:]
    /// The API descriptions it binds (`openapi:`) that could be read, by entry name, as they were read (in
    /// outline, mostly: see `APIDescription.details`).
    public internal(set) var apis: [String: APIDescription] = [:]
    /// Each of its own request steps' operation, by step id, whether or not the plan has errors (the
    /// graph's `apiOperations` holds them only for a plan without errors).
    public internal(set) var operations: [String: BoundOperation] = [:]
    /// How many of its steps' API checks were kept from the check before and how many were done again, when
    /// the library has an `APICheckCache` and the plan binds an API description.
    public internal(set) var apiStepChecks: APICheckCache.StepChecks?
}

/// Reads and checks plan files for the static pipeline, each file **once** however many plans include it:
/// results are kept by file (absolute path with symbolic links resolved), for one boundary and one set of
/// limits. One library serves one `validate` (or `run`) invocation, however many files it is given, so a
/// suite of plans sharing a sub-plan reads that sub-plan once. Safe to use from several threads (two
/// threads may check the same file at the same moment; both get the same result).
///
/// Checking a file reads it, parses it, checks the files it names literally (`body_file`, multipart
/// `file`, sub-plans: they exist and stay inside the boundary), checks its sub-plans first (recursively,
/// reporting a cycle between files with the chain of files), reads the rows of its `for_each: { file: … }`
/// data files into its steps, then plans it with its sub-plans nested.
public final class PlanLibrary: Sendable {
    private struct Key: Hashable {
        var file: String
        /// The plan of a document that holds several (`PlanDocumentReader`); nil for a plan file.
        var entry: String? = nil
        var boundary: FileBoundary
        var limits: ParseLimits
        /// How many files include it, for a result that depends on it (RP0304); nil for the others.
        var depth: Int?
    }

    private let cache = Mutex<[Key: CheckedPlan]>([:])
    private let reads = Atomic<Int>(0)
    /// Reads the API descriptions plans bind with `openapi:`; `nil`: a plan that binds one is an error.
    let apiLoader: (any APIDescriptionLoader)?
    /// API descriptions read so far, by file and boundary: each is read once per library.
    let apiCache = Mutex<[APICacheKey: Result<APIDescription, APIDescriptionLoadError>]>([:])
    /// Reads documents of another kind into plans (Arazzo workflows); `nil`: every file is read as a plan.
    let documentReader: (any PlanDocumentReader)?
    /// The text of plan files as an editor holds them, unsaved, by absolute path: read instead of the file.
    let unsavedText: (@Sendable (String) -> String?)?
    /// What was read of plans' steps in earlier libraries, to read again only the steps that changed.
    let readCache: PlanReadCache?
    /// What earlier libraries' API checks found for each step, to check again only the steps that changed.
    public let apiCheckCache: APICheckCache?
    /// Credentials for the security schemes of the descriptions plans bind, from the command line
    /// (`--credential`): they replace a binding's own `credentials:` for the same scheme.
    let commandLineCredentials: CommandLineCredentials
    /// The step a file checked by `check(fileAt:)` is narrowed to (`--scenario`, `PlanScenario`); `nil`: all.
    let scenario: String?

    /// An empty library.
    /// - Parameters:
    ///   - apiLoader: reads the API descriptions plans bind (`openapi:`); the command line passes
    ///     `ReqPlanOpenAPI`'s OpenAPI reader.
    ///   - documentReader: reads the files it recognises into plans instead of `PlanParser`; the command
    ///     line passes `ReqPlanArazzo`'s reader of Arazzo documents.
    ///   - unsavedText: the text of a plan file (by its absolute, standardized path, symbolic links resolved)
    ///     as an editor holds it, unsaved, or nil to read the file; the language server passes the open
    ///     documents, so a sub-plan's unsaved edits reach the plans that include it.
    ///   - readCache: what earlier libraries read of plans' top-level steps, kept to read again only the steps
    ///     that changed (the language server passes one for all its checks); `nil`: every plan is read whole.
    ///   - apiCheckCache: what earlier libraries' API checks found for each step of plans read with
    ///     `readCache`, kept to check again only the steps that changed and those that read them.
    ///   - commandLineCredentials: credentials for the descriptions' security schemes (`--credential`).
    ///   - scenario: the step id the plans checked by `check(fileAt:)` are narrowed to, with what it needs
    ///     (`--scenario`; `PlanScenario`); `nil` for whole plans.
    public init(
        apiLoader: (any APIDescriptionLoader)? = nil, documentReader: (any PlanDocumentReader)? = nil,
        unsavedText: (@Sendable (String) -> String?)? = nil, readCache: PlanReadCache? = nil,
        apiCheckCache: APICheckCache? = nil, commandLineCredentials: CommandLineCredentials = CommandLineCredentials(),
        scenario: String? = nil
    ) {
        self.commandLineCredentials = commandLineCredentials
        self.scenario = scenario
        self.apiLoader = apiLoader
        self.documentReader = documentReader
        self.unsavedText = unsavedText
        self.readCache = readCache
        self.apiCheckCache = apiCheckCache
    }

    /// How many files have been read (and parsed) so far: one per file, however many plans include it.
    public var filesRead: Int { reads.load(ordering: .relaxed) }

    /// Checks the plan file at `path`.
    /// - Parameters:
    ///   - path: the file to read.
    ///   - displayPath: how diagnostics name it (default: `path`); included files are named relative to it.
    ///   - limits: size and alias-expansion limits, for it and every file it includes.
    ///   - boundary: where the files it names may be; default: its folder.
    public func check(
        fileAt path: String, displayPath: String? = nil, limits: ParseLimits = ParseLimits(),
        boundary: FileBoundary? = nil
    ) -> CheckedPlan {
        let file = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        let display = displayPath ?? path
        let boundary = boundary ?? FileBoundary(planFile: file, outsideSetting: limits.outsideSetting)
        let checked = check(file: file, display: display, limits: limits, boundary: boundary, chain: [])
        guard let scenario, let graph = checked.graph else { return checked }
        switch graph.scenario(scenario) {
        case .failure(let unknown):
            return CheckedPlan(
                path: checked.path, file: checked.file, source: checked.source, plan: checked.plan, graph: nil,
                diagnostics: checked.diagnostics + [unknown], sources: checked.sources,
                includedFiles: checked.includedFiles, involvesCycle: checked.involvesCycle)
        case .success(let selection):
            // The plan checked again with only the scenario's steps: the whole plan's warnings stand (those of
            // the narrowed one, an input only a step left out reads, would only puzzle), its errors would too.
            let narrowed = check(
                file: file, display: display, limits: limits, boundary: boundary, chain: [], keeping: selection)
            let errors = narrowed.diagnostics.filter { $0.severity == .error }
            var narrowedGraph = narrowed.graph
            narrowedGraph?.scenario = selection
            var result = CheckedPlan(
                path: checked.path, file: checked.file, source: checked.source, plan: narrowed.plan,
                graph: errors.isEmpty ? narrowedGraph : nil, diagnostics: checked.diagnostics + errors,
                sources: checked.sources, includedFiles: checked.includedFiles, involvesCycle: checked.involvesCycle)
            result.apis = checked.apis
            result.operations = checked.operations
            return result
        }
    }

    /// Checks plan text that was not read from a file (tests, editors): sub-plans and the data files of
    /// `for_each: { file: … }` are read relative to the folder of `source.path`; the other files it names
    /// (`body_file`, multipart `file`) are not checked.
    public func check(_ source: SourceFile, limits: ParseLimits = ParseLimits(), boundary: FileBoundary? = nil)
        -> CheckedPlan
    {
        let folder = URL(fileURLWithPath: source.path).deletingLastPathComponent()
        let context = Context(
            file: nil, display: source.path, folder: folder.standardizedFileURL,
            limits: limits,
            boundary: boundary ?? FileBoundary(planFolder: folder, outsideSetting: limits.outsideSetting),
            chain: [],
            checksFiles: false)
        return assemble(parse(source, file: nil, entry: nil, limits: limits), context)
    }

    /// The plan `entry` of `source`: read by the document reader when it recognises the text, else a plan.
    private func parse(_ source: SourceFile, file: String?, entry: String?, limits: ParseLimits) -> ParseResult {
        if let documentReader, documentReader.recognises(source) {
            return documentReader.parse(source, file: file, entry: entry, limits: limits)
        }
        return PlanParser.parse(source, limits: limits, cache: readCache)
    }

    // MARK: Checking

    /// One plan of the chain being checked: its file and entry (`identity`), how it is shown, and its entry.
    struct Link {
        var file: String
        var display: String
        var entry: String?
    }

    /// What checking one file needs to know about where it is.
    struct Context {
        var file: String?
        var display: String
        var folder: URL
        var limits: ParseLimits
        var boundary: FileBoundary
        /// The files being checked above this one, outermost first: (file, display path).
        var chain: [Link]
        /// Whether to check the files it names literally (only for a file on disk).
        var checksFiles: Bool
        /// The plan of the document checked, for a document that holds several (`PlanDocumentReader`).
        var entry: String? = nil
        /// The scenario its steps are narrowed to (`--scenario`), for the file given only.
        var keeping: PlanScenario? = nil

        /// The file and entry, as the chain of files being checked names it.
        var identity: String { (file ?? display) + (entry.map { "#" + $0 } ?? "") }
    }

    private func check(
        file: String, entry: String? = nil, display: String, limits: ParseLimits, boundary: FileBoundary,
        chain: [Link], keeping scenario: PlanScenario? = nil
    ) -> CheckedPlan {
        let key = Key(file: file, entry: entry, boundary: boundary, limits: limits)
        let depthKey = Key(file: file, entry: entry, boundary: boundary, limits: limits, depth: chain.count)
        // A scenario's plan is another plan than the file's: neither taken from the cache nor kept in it.
        if scenario == nil, let cached = cache.withLock({ $0[key] ?? $0[depthKey] }) { return cached }
        reads.add(1, ordering: .relaxed)
        let context = Context(
            file: file, display: display,
            folder: URL(fileURLWithPath: file).deletingLastPathComponent(), limits: limits,
            boundary: boundary, chain: chain, checksFiles: true, entry: entry, keeping: scenario)
        let parsed: ParseResult
        // An editor's unsaved text, unless larger than a file may be (the file is then read, and refused).
        if let text = unsavedText?(file), text.utf8.count <= limits.maxFileSize {
            parsed = parse(SourceFile(path: display, text: text), file: file, entry: entry, limits: limits)
        } else {
            // The top file is the one the user named; every file below it was named by a plan, so it must be
            // a regular file inside the boundary once its links are resolved (`FileReader`).
            let origin: FileReader.Origin = chain.isEmpty ? .user : .input(boundary)
            switch PlanParser.readFile(atPath: file, displayPath: display, limits: limits, origin: origin) {
            case .failure(let failed): parsed = failed.result
            case .success(let source): parsed = parse(source, file: file, entry: entry, limits: limits)
            }
        }
        let checked = assemble(parsed, context)
        if scenario == nil, !checked.involvesCycle {
            let kept = checked.reachesDepthLimit ? depthKey : key
            cache.withLock { cache in
                if cache[kept] == nil { cache[kept] = checked }
            }
        }
        return checked
    }

    private func assemble(_ parsed: ParseResult, _ context: Context) -> CheckedPlan {
        var diagnostics = parsed.diagnostics
        guard let parsedPlan = parsed.plan else {
            return CheckedPlan(
                path: context.display, file: context.file, source: parsed.source, plan: nil, graph: nil,
                diagnostics: diagnostics, sources: parsed.source.map { [$0] } ?? [], includedFiles: [],
                involvesCycle: false)
        }
        var plan = parsedPlan
        if let scenario = context.keeping { plan = plan.keeping(scenario) }
        // Sub-plans first: their outputs' types are part of this plan's API checks.
        var subPlans: [String: IncludedPlan] = [:]
        var subPlanOutputs: [String: [String: FlowType]] = [:]
        var sources = [plan.source]
        var included: [String] = []
        var attached: Set<String> = []
        var involvesCycle = false
        var reachesDepthLimit = false
        var subPlanDiagnostics: [Diagnostic] = []
        var reportedCycles: Set<String> = []
        for step in plan.allSteps {
            guard let call = step.subPlan else { continue }
            switch subPlanFile(call, context) {
            case .failure(let diagnostic):
                subPlanDiagnostics.append(diagnostic)
            case .success(let file):
                let identity = file + (call.entry.map { "#" + $0 } ?? "")
                if let start = context.chain.firstIndex(where: { $0.file == identity })
                    ?? (identity == context.identity ? context.chain.count : nil)
                {
                    let cycle = cycleDiagnostic(call, startingAt: start, context)
                    if reportedCycles.insert(cycle.message).inserted { subPlanDiagnostics.append(cycle) }
                    involvesCycle = true
                    continue
                }
                // A plan of the same document (another workflow) is named as the document is.
                let sameDocument = file == context.file
                let display =
                    sameDocument
                    ? context.display : FileBoundary.displayPath(of: call.file.value, includedFrom: context.display)
                // The chain is walked by recursion: past `maxNesting` files it stops, located, never a crash.
                if context.chain.count + 1 >= context.limits.maxNesting {
                    subPlanDiagnostics.append(depthDiagnostic(call, display: display, context))
                    reachesDepthLimit = true
                    continue
                }
                let sub = check(
                    file: file, entry: call.entry, display: display, limits: context.limits,
                    boundary: context.boundary,
                    chain: context.chain + [
                        Link(file: context.identity, display: context.display, entry: context.entry)
                    ])
                involvesCycle = involvesCycle || sub.involvesCycle
                reachesDepthLimit = reachesDepthLimit || sub.reachesDepthLimit
                subPlans[step.id.value] = IncludedPlan(plan: sub.plan, graph: sub.graph)
                subPlanOutputs[step.id.value] = sub.outputFlows
                // A file included twice reports its problems once, from its first inclusion; a cycle found from
                // each of its members is one cycle (its message names it the same way whichever it was).
                guard attached.insert(identity).inserted else { continue }
                for var diagnostic in sub.diagnostics {
                    if diagnostic.code == .fileCycle {
                        guard reportedCycles.insert(diagnostic.message).inserted else { continue }
                    }
                    if !sameDocument { diagnostic.notes.append(.includedFrom(context.display, at: call.file.range)) }
                    subPlanDiagnostics.append(diagnostic)
                }
                for source in sub.sources where !sources.contains(where: { $0.path == source.path }) {
                    sources.append(source)
                }
                for path in [sub.path] + sub.includedFiles where !included.contains(path) && path != context.display {
                    included.append(path)
                }
            }
        }

        var operations: [String: BoundOperation] = [:]
        var outputFlows: [String: FlowType] = [:]
        var apis: [String: APIDescription] = [:]
        var apiStepChecks: APICheckCache.StepChecks?
        if !plan.apis.isEmpty {
            let checked = checkAPIs(plan, context, subPlanOutputs: subPlanOutputs)
            apiStepChecks = apiCheckCache?.lastCheck(of: plan.source.path)
            diagnostics += checked.diagnostics
            plan = checked.plan
            operations = checked.operations
            outputFlows = checked.outputs
            apis = checked.apis
        }
        let ownOperations = operations
        if context.checksFiles { diagnostics += literalFileDiagnostics(plan.allSteps, context) }
        diagnostics += subPlanDiagnostics
        // The rows of `for_each: { file: … }`, read like a sub-plan whether or not the plan is on disk: without
        // them there is nothing to run.
        let itemFiles = readItemFiles(of: plan, context)
        plan = itemFiles.plan
        diagnostics += itemFiles.diagnostics
        for source in itemFiles.sources where !sources.contains(where: { $0.path == source.path }) {
            sources.append(source)
        }

        var planned = Planner.plan(
            plan, file: context.file, subPlans: subPlans, limits: context.limits)
        diagnostics += planned.diagnostics
        for (stepID, sub) in subPlans {
            for (id, operation) in sub.graph?.apiOperations ?? [:] { operations["\(stepID)/\(id)"] = operation }
        }
        planned.graph?.apiOperations = operations
        let hasErrors = diagnostics.contains { $0.severity == .error }
        var checked = CheckedPlan(
            path: context.display, file: context.file, source: parsed.source, plan: plan,
            graph: hasErrors ? nil : planned.graph, diagnostics: diagnostics, sources: sources,
            includedFiles: included, involvesCycle: involvesCycle, reachesDepthLimit: reachesDepthLimit,
            outputFlows: outputFlows)
        checked.apis = apis
        checked.apiStepChecks = apiStepChecks
        checked.operations = ownOperations
        return checked
    }

    // MARK: Sub-plan files

    /// The file a `plan` step names, resolved; or why it cannot be read.
    private func subPlanFile(_ call: SubPlanCall, _ context: Context) -> Result<String, Diagnostic> {
        let resolved = FileBoundary.resolve(call.file.value, relativeTo: context.folder)
        if let problem = problem(
            with: resolved, written: call.file, what: "sub-plan file `\(call.file.value)`", context)
        {
            return .failure(problem)
        }
        return .success(resolved.path)
    }

    /// RP0303: the plans from `start` of the chain to `context` run each other, named from the file validated.
    /// Plans of one document (Arazzo workflows) are named by their entries, from the first in byte order:
    /// the document checks each of them, and the cycle found from each reads the same (reported once,
    /// `assemble`).
    private func cycleDiagnostic(_ call: SubPlanCall, startingAt start: Int, _ context: Context) -> Diagnostic {
        var members =
            context.chain[start...].map { $0 } + [
                Link(file: context.identity, display: context.display, entry: context.entry)
            ]
        let noun = documentReader?.entryNoun ?? "plan"
        let oneDocument = members.allSatisfy { $0.entry != nil && $0.display == members[0].display }
        if oneDocument,
            let first = members.indices.min(by: {
                members[$0].file.utf8.lexicographicallyPrecedes(members[$1].file.utf8)
            })
        {
            members = Array(members[first...] + members[..<first])
        }
        let message: String
        let hint: String
        if oneDocument {
            let names = (members + [members[0]]).map { "`\($0.entry ?? "")`" }
            message =
                members.count == 1
                ? "\(noun) `\(members[0].entry ?? "")` of `\(members[0].display)` runs itself"
                : "cycle between the \(noun)s of `\(members[0].display)`: " + names.joined(separator: " → ")
            hint = "a \(noun) cannot run itself, directly or through the \(noun)s it runs; remove one of these steps"
        } else {
            let names = (members + [members[0]]).map { link in
                "`\(link.display)`" + (link.entry.map { " (\(noun) `\($0)`)" } ?? "")
            }
            message =
                members.count == 1
                ? "plan file `\(context.display)` includes itself"
                : "cycle between plan files: " + names.joined(separator: " → ")
            hint =
                "a plan cannot run itself, directly or through the plans it runs; move what they share into a third file"
        }
        var diagnostic = Diagnostic.error(.fileCycle, message, at: call.file.range, hint: hint)
        diagnostic.file = context.display
        return diagnostic
    }

    /// RP0304: running the sub-plan of `call` would make the chain of files longer than `maxNesting`.
    private func depthDiagnostic(_ call: SubPlanCall, display: String, _ context: Context) -> Diagnostic {
        let files = context.chain.map(\.display) + [context.display, display]
        let shown =
            files.count <= 6
            ? files.map { "`\($0)`" }
            : files.prefix(2).map { "`\($0)`" } + ["… \(files.count - 4) more …"]
                + files.suffix(2).map { "`\($0)`" }
        var diagnostic = Diagnostic.error(
            .subPlansTooDeep,
            "sub-plans are nested more than \(context.limits.maxNesting) files deep: "
                + shown.joined(separator: " → "),
            at: call.file.range,
            hint: "a chain of sub-plans is at most \(context.limits.maxNesting) files long; "
                + "run the inner plans from a plan higher up")
        diagnostic.file = context.display
        return diagnostic
    }

    // MARK: Literal files

    /// RP0601/RP0602 for each file a request names with a literal path (`body_file`, multipart `file`).
    private func literalFileDiagnostics(_ steps: [Step], _ context: Context) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for step in steps {
            guard let request = step.request else { continue }
            var paths: [(template: Template, what: (String) -> String)] = []
            switch request.body {
            case .file(let template)?:
                paths.append((template, { "`body_file` `\($0)`" }))
            case .multipart(let parts)?:
                for part in parts {
                    if case .file(let template) = part.content {
                        paths.append((template, { "file `\($0)` of multipart part `\(part.name.value)`" }))
                    }
                }
            default:
                break
            }
            for (template, what) in paths {
                guard let text = template.literalText, !Template.opensExpression(text), !text.isEmpty else { continue }
                let resolved = FileBoundary.resolve(text, relativeTo: context.folder)
                if let problem = problem(
                    with: resolved, written: Located(text, at: template.range),
                    what: what(text), context)
                {
                    diagnostics.append(problem)
                }
            }
        }
        return diagnostics
    }

    /// Why a file a plan names cannot be used: outside the boundary, missing, or a folder. `what` names it
    /// (``sub-plan file `x` ``).
    func problem(with resolved: URL, written: Located<String>, what: String, _ context: Context) -> Diagnostic? {
        var diagnostic: Diagnostic
        var isDirectory: ObjCBool = false
        if !context.boundary.permits(resolved) {
            diagnostic = .error(
                .fileOutsideFolder, "\(what) is outside \(context.boundary.scope)", at: written.range,
                hint: context.boundary.outsideHint)
        } else if !FileManager.default.fileExists(atPath: resolved.path, isDirectory: &isDirectory) {
            diagnostic = .error(
                .fileNotFound, "\(what) does not exist", at: written.range,
                hint: Self.closestFile(to: written.value, near: resolved))
        } else if isDirectory.boolValue {
            diagnostic = .error(.fileNotFound, "\(what) is a folder, not a file", at: written.range)
        } else if let kind = FileReader.nonRegularKind(atPath: resolved.path) {
            diagnostic = .error(.fileNotFound, "\(what) is \(kind), not a regular file", at: written.range)
        } else if !FileManager.default.isReadableFile(atPath: resolved.path) {
            diagnostic = .error(
                .fileNotFound, "\(what) cannot be read: permission denied",
                at: written.range)
        } else {
            return nil
        }
        diagnostic.file = context.display
        return diagnostic
    }

    /// "did you mean `shared/login.yaml`?" when a file of the same folder has a close name.
    private static func closestFile(to written: String, near resolved: URL) -> String? {
        let folder = resolved.deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return nil }
        let wanted = resolved.lastPathComponent
        guard let name = Suggestion.closest(to: wanted, in: names.sorted()) else { return nil }
        let prefix = written.hasSuffix(wanted) ? String(written.dropLast(wanted.count)) : ""
        return "did you mean `\(prefix + name)`?"
    }
}
