import Foundation
import ReqPlanSyntax

/// The data files of `for_each: { file: … }` steps: read when the plan is checked, their rows kept in the steps.
extension PlanLibrary {
    /// What reading a plan's data files gave: the plan with each for_each's rows in it, the problems, and the
    /// text of each data file that has problems (for excerpts).
    struct ItemFiles {
        var plan: Plan
        var diagnostics: [Diagnostic] = []
        var sources: [SourceFile] = []
    }

    /// Reads the data file of every `for_each: { file: … }` of `plan`, relative to the plan's folder, as a file
    /// the plan names (`FileReader.Origin.input`: a regular file inside the boundary once its links are
    /// resolved, under the plan size limit), and keeps its rows in the step (`ItemsFile.rows`).
    ///
    /// A file outside the boundary, missing, a folder or a FIFO is RP0602/RP0601 at the `file:` value; one too
    /// large or that cannot be read is RP0004/RP0001 there too; a malformed file (RP0009, RP0008) is reported in
    /// the data file itself, with a note at the `file:` value. A file is read once per plan however many steps
    /// name it.
    func readItemFiles(of plan: Plan, _ context: Context) -> ItemFiles {
        var result = ItemFiles(plan: plan)
        guard plan.allSteps.contains(where: { $0.itemsFile != nil }) else { return result }
        var read: [String: DataFile.Items?] = [:]
        func rows(of file: ItemsFile) -> DataFile.Items? {
            guard let format = file.resolvedFormat else { return nil }
            let resolved = FileBoundary.resolve(file.path.value, relativeTo: context.folder)
            let key = resolved.path + "#" + format.rawValue
            if let known = read[key] { return known }
            let items = readItems(of: file, at: resolved, format: format, context, into: &result)
            read[key] = items
            return items
        }
        let steps = plan.steps.map { Self.attachingRows(to: $0, rows) }
        result.plan.steps = steps
        return result
    }

    private func readItems(
        of file: ItemsFile, at resolved: URL, format: DataFile.Format, _ context: Context, into result: inout ItemFiles
    ) -> DataFile.Items? {
        let what = "data file `\(file.path.value)`"
        if let problem = problem(with: resolved, written: file.path, what: what, context) {
            result.diagnostics.append(problem)
            return nil
        }
        let display = FileBoundary.displayPath(of: file.path.value, includedFrom: context.display)
        switch DataFile.readItems(
            atPath: resolved.path, shownAs: display, format: format, limits: context.limits,
            origin: .input(context.boundary))
        {
        case .success(let items):
            return items
        case .failure(let failure):
            guard let source = failure.source else {
                // The file could not be read at all (too large, not UTF-8…): said at the `file:` value.
                for read in failure.diagnostics {
                    var diagnostic = Diagnostic.error(
                        read.code, read.message, at: file.path.range, notes: read.notes, hint: read.hint)
                    diagnostic.file = context.display
                    result.diagnostics.append(diagnostic)
                }
                return nil
            }
            for var diagnostic in failure.diagnostics {
                diagnostic.notes.append(.includedFrom(context.display, at: file.path.range))
                result.diagnostics.append(diagnostic)
            }
            result.sources.append(source)
            return nil
        }
    }

    /// `step` with the rows of its data file (and of its members') in it. Steps nest at most `maxNesting` deep.
    private static func attachingRows(to step: Step, _ rows: (ItemsFile) -> DataFile.Items?) -> Step {
        switch step.kind {
        case .request, .plan:
            return step
        case .group(let members):
            return step.with(kind: .group(members.map { attachingRows(to: $0, rows) }))
        case .sequence(let members):
            return step.with(kind: .sequence(members.map { attachingRows(to: $0, rows) }))
        case .forEach(var loop):
            if case .group(let members) = loop.body {
                loop.body = .group(members.map { attachingRows(to: $0, rows) })
            }
            if case .file(var file) = loop.source {
                file.rows = rows(file)
                loop.source = .file(file)
            }
            return step.with(kind: .forEach(loop))
        }
    }
}

extension Step {
    /// The data file of a `for_each: { file: … }` step.
    var itemsFile: ItemsFile? {
        if case .forEach(let loop) = kind { return loop.file }
        return nil
    }
}
