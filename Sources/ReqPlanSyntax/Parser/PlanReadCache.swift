import Synchronization

/// What was read of each top-level step of the plans parsed with it, kept for the next parse of the same
/// file: a plan that changed in one step is read again only in that step and around its steps (an editor's
/// keystroke in a plan of a thousand steps). Give one to `PlanParser.parse(_:limits:cache:)`; a parse keeps
/// the steps of its own file only (memory stays one plan's worth per file), and whatever it reads is what
/// reading the plan whole reads (`PlanReadCacheTests` checks that over random edits).
public final class PlanReadCache: Sendable {
    struct Key: Hashable, Sendable {
        var text: Substring
        var firstLine: Int
        var base: PlanReader.ForkBase
    }

    private let files = Mutex<[String: [Key: StepsRead]]>([:])

    public init() {}

    func steps(in path: String) -> [Key: StepsRead] { files.withLock { $0[path] ?? [:] } }

    func keep(_ steps: [Key: StepsRead], in path: String) {
        files.withLock { $0[path] = steps }
    }

    /// Drops what is kept of `path` (a closed document).
    public func forget(_ path: String) {
        files.withLock { _ = $0.removeValue(forKey: path) }
    }
}

extension PlanParser {
    /// Parses `source`, reading again only the top-level steps that changed since `cache` last saw the file
    /// (see `PlanReadCache`); the same result as `parse(_:limits:)`.
    public static func parse(_ source: SourceFile, limits: ParseLimits = ParseLimits(), cache: PlanReadCache?)
        -> ParseResult
    {
        guard let cache, source.text.utf8.count <= limits.maxFileSize, let blocks = StepBlocks.cut(source),
            let result = parse(source, blocks, limits: limits, cache: cache)
        else { return parse(source, limits: limits) }
        return result
    }

    /// Reads the plan around its steps from `blocks.outline`, and each step from the cache or from its own
    /// block; `nil` when the plan must be read whole.
    private static func parse(_ source: SourceFile, _ blocks: StepBlocks, limits: ParseLimits, cache: PlanReadCache)
        -> ParseResult?
    {
        let reading = StepBlocksRead(blocks: blocks.blocks, kept: cache.steps(in: source.path))
        guard case (var result, let read)? = parse(source, blocks, limits: limits, reading: reading) else { return nil }
        result.plan?.textAroundSteps = blocks.outline
        cache.keep(read.used, in: source.path)
        return result
    }

    /// Reads the plan around its steps from `blocks.outline` and its steps as `reading` says; `nil` when a
    /// block is not read alone as it is in the plan (it does not compose alone, or it uses an anchor of
    /// another) or the budget ran out: the plan is then read whole.
    static func parse(_ source: SourceFile, _ blocks: StepBlocks, limits: ParseLimits, reading: StepBlocksRead)
        -> (ParseResult, StepBlocksRead)?
    {
        let outline = SourceFile(path: source.path, text: blocks.outline)
        guard case .success(let root?) = YAMLLoader.composePlan(outline, limits: limits) else { return nil }
        var reader = PlanReader(source: source, limits: limits)
        reader.stepBlocks = reading
        let plan = reader.readPlan(root)
        guard let read = reader.stepBlocks, !read.failed, !reader.budgetExceeded else { return nil }
        return (ParseResult(plan: plan, diagnostics: reader.diagnostics.diagnostics, source: source), read)
    }
}

/// The top-level steps of a plan cut into blocks, as the reader reads them (`PlanReader.readStepBlocks`).
struct StepBlocksRead {
    var blocks: [StepBlocks.Block]
    /// What the cache kept from the last parse of the file.
    var kept: [PlanReadCache.Key: StepsRead]
    /// What this parse read or took, to keep for the next.
    var used: [PlanReadCache.Key: StepsRead] = [:]
    /// Whether a block could not be read alone (the plan is then read whole).
    var failed = false
    /// On how many threads to read the steps at once, in runs of consecutive blocks, each run composed and read
    /// alone (`PlanReader.readStepBlocksInParts`); 1: block by block, with the cache.
    var threads = 1
}

extension PlanReader {
    /// Reads the plan's top-level steps block by block (`stepBlocks`), each from the cache when its text, its
    /// line and what it reads of the plan before it are unchanged; `nil` if a block cannot be read alone.
    mutating func readStepBlocks(_ read: inout StepBlocksRead) -> [Step] {
        if read.threads > 1 { return readStepBlocksInParts(&read) }
        var steps: [Step] = []
        let base = forkBase
        let at = read.blocks.first.map { SourceRange(at: SourceLocation(line: $0.firstLine, column: 1)) }
        for (index, block) in read.blocks.enumerated() {
            let cacheKey = PlanReadCache.Key(text: block.text, firstLine: block.firstLine, base: base)
            let stepsRead: StepsRead
            if let kept = read.kept[cacheKey] {
                stepsRead = kept
            } else {
                guard let found = forkForSteps().readAlone(read.blocks[index...index]) else {
                    read.failed = true
                    return []
                }
                stepsRead = found
            }
            read.used[cacheKey] = stepsRead
            join(stepsRead, steps: at ?? SourceRange(at: SourceLocation(line: 1, column: 1)))
            steps += stepsRead.steps
        }
        return steps
    }
}
