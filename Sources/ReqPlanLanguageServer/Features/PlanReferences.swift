import Foundation
import ReqPlanSyntax

/// Where a plan names its steps, inputs and vars: each name's declaration and every place that reads it
/// (`textDocument/references`; `textDocument/definition` of `inputs.x`, `vars.x` and a sub-plan's `file:`).
///
/// Every place comes from the plan's AST: step ids, `needs:` entries, `slo:` items' `step:` and declarations
/// where the parser read them, and `steps.X`, `inputs.X`, `vars.X` where the expression parser read them, in every expression of
/// the plan (the ones the planner resolves: URLs, headers, bodies, conditions, `for_each` lists, a sub-plan's
/// inputs, expectations, `poll.until`, vars, outputs, defaults). No second parser reads the text.
public struct PlanReferences {
    /// What a name names.
    public enum Kind: Sendable, Hashable {
        case step
        case input
        case variable

        /// What messages call it.
        var noun: String {
            switch self {
            case .step: "step"
            case .input: "input"
            case .variable: "var"
            }
        }
    }

    /// One place where a step, an input or a var is named.
    public struct Occurrence: Sendable, Hashable {
        /// What the name names.
        public var kind: Kind
        /// The name.
        public var name: String
        /// Where it is written (the name only: `login` of `steps.login.body`).
        public var range: TextRange
        /// Whether this is where it is declared (a step's id, an input's or a var's key) rather than read.
        public var isDeclaration: Bool
    }

    /// The plan, as its text reads now.
    public let plan: Plan
    /// Every occurrence, declarations first, then the reads in the order of the plan's parts.
    public let occurrences: [Occurrence]

    /// The occurrences of `plan`'s names.
    public init(plan: Plan) {
        self.plan = plan
        let source = plan.source
        var found: [Occurrence] = []
        func add(_ kind: Kind, _ name: Located<String>, declaration: Bool = false) {
            let range = Self.nameOnly(name, in: source)
            found.append(
                Occurrence(
                    kind: kind, name: name.value, range: TextRange(range, in: source), isDeclaration: declaration))
        }
        let steps = plan.allSteps
        for step in steps { add(.step, step.id, declaration: true) }
        for input in plan.inputs { add(.input, input.name, declaration: true) }
        for variable in plan.vars { add(.variable, variable.name, declaration: true) }
        for step in steps {
            for need in step.needs { add(.step, need) }
        }
        // `slo:` items name their step as `needs:` does.
        for objective in plan.slo {
            if case .step(let name) = objective.subject { add(.step, name) }
        }
        for expression in Self.expressions(of: plan) {
            for reference in expression.references {
                guard let name = reference.memberName(at: 0) else { continue }
                switch reference.root.value {
                case "steps": add(.step, name)
                case "inputs": add(.input, name)
                case "vars": add(.variable, name)
                default: break
                }
            }
        }
        occurrences = found
    }

    /// The range of the name itself where it is written quoted or in brackets (`"login"`, `['login']`): the
    /// range of `name` within it, on one line; else `name`'s range.
    static func nameOnly(_ name: Located<String>, in source: SourceFile) -> SourceRange {
        let range = name.range
        let length = name.value.unicodeScalars.count
        guard range.start.line == range.end.line, range.end.column - range.start.column > length,
            let line = source.line(range.start.line)
        else { return range }
        let written = Array(
            line.unicodeScalars.dropFirst(range.start.column - 1).prefix(range.end.column - range.start.column))
        let wanted = Array(name.value.unicodeScalars)
        guard length > 0, written.count >= length,
            let offset = (0...(written.count - length)).first(where: { Array(written[$0..<($0 + length)]) == wanted })
        else { return range }
        return SourceRange(start: range.start.advanced(by: offset), length: length)
    }

    /// Every expression of `plan`, wherever it is written: those the planner's name resolution reads.
    static func expressions(of plan: Plan) -> [ReqPlanSyntax.Expression] {
        var result = plan.defaults.expressions
        result += plan.vars.flatMap(\.value.expressions)
        result += plan.outputs.flatMap(\.value.expressions)
        for step in plan.allSteps {
            if let condition = step.condition { result.append(condition) }
            if case .forEach(let loop) = step.kind { result += loop.itemExpressions }
            if let call = step.subPlan { result += call.expressions }
            if let request = step.request { result += request.expressions }
            result += step.expect?.expressions ?? []
            if let poll = step.poll { result.append(poll.until) }
            result += (step.expect?.conditions ?? []).map(\.expression)
        }
        return result
    }

    /// The occurrence at `position`: the name the cursor is in or just after.
    public func occurrence(at position: TextPosition) -> Occurrence? {
        occurrences.first { $0.range.start <= position && position <= $0.range.end }
    }

    /// The places that name what `position` names: its declaration (when `includeDeclaration`, and when
    /// it has one) and every place that reads it, in document order; empty where no step, input or var
    /// is named.
    public func references(at position: TextPosition, includeDeclaration: Bool) -> [TextRange] {
        guard let target = occurrence(at: position) else { return [] }
        return
            occurrences
            .filter { $0.kind == target.kind && $0.name == target.name && (includeDeclaration || !$0.isDeclaration) }
            .map(\.range)
            .sorted { $0.start < $1.start }
    }

    /// The declaration of the input or var read at `position` (`inputs.user`, `vars.base`), or of the step
    /// named there; `nil` elsewhere, or for a name the plan does not declare.
    public func declaration(at position: TextPosition) -> TextRange? {
        guard let target = occurrence(at: position) else { return nil }
        return occurrences.first { $0.isDeclaration && $0.kind == target.kind && $0.name == target.name }?.range
    }

    /// The LSP `Location` of the definition of what `position` names, in the plan's document `uri`: a step
    /// (in `needs:`, after `steps.`), an input or a var read in an expression, or the file of a sub-plan
    /// (its first line); `nil` where nothing is named.
    public func definition(at position: TextPosition, uri: DocumentURI) -> Location? {
        if let range = StepNavigation(plan: plan).definition(at: position) ?? declaration(at: position) {
            return Location(uri: uri, range: range)
        }
        guard let file = subPlanFile(at: position) else { return nil }
        let start = TextPosition(line: 0, character: 0)
        return Location(uri: DocumentURI(filePath: file), range: TextRange(start: start, end: start))
    }

    /// The edits that rename what `position` names (a step, an input or a var) to `newName`: its declaration
    /// and every place that reads it, `needs:` and `slo:` included.
    /// - Returns: the ranges to replace with `newName`, in document order; empty where nothing is named.
    /// - Throws: why `newName` cannot be the name: not a name (`[A-Za-z_][A-Za-z0-9_-]*`), or the name of
    ///   another step, input or var of the same kind.
    public func renaming(at position: TextPosition, to newName: String) throws(RenameProblem) -> [TextRange] {
        guard let target = occurrence(at: position) else { return [] }
        guard Plan.isValidName(newName) else {
            throw RenameProblem(
                message: "`\(VisibleText.line(newName))` is not a name: names start with a letter or `_` and contain "
                    + "letters, digits, `_` and `-`")
        }
        if newName != target.name,
            occurrences.contains(where: { $0.isDeclaration && $0.kind == target.kind && $0.name == newName })
        {
            throw RenameProblem(message: "the plan has a \(target.kind.noun) `\(newName)` already")
        }
        return references(at: position, includeDeclaration: true)
    }

    /// Why a rename cannot be made.
    public struct RenameProblem: Error, Sendable {
        /// The reason, for the editor to show.
        public var message: String
    }

    /// The LSP `Location`s of `references(at:includeDeclaration:)` in the plan's document `uri`.
    func referenceLocations(at position: TextPosition, includeDeclaration: Bool, uri: DocumentURI) -> [Location] {
        references(at: position, includeDeclaration: includeDeclaration).map { Location(uri: uri, range: $0) }
    }

    /// The file of the sub-plan whose `file:` is at `position`, resolved as the planner resolves it (from
    /// the folder of the plan's file), when it exists.
    public func subPlanFile(at position: TextPosition) -> String? {
        for step in plan.allSteps {
            guard let call = step.subPlan else { continue }
            let range = TextRange(call.file.range, in: plan.source)
            guard range.start <= position && position <= range.end else { continue }
            let folder = URL(fileURLWithPath: plan.source.path).deletingLastPathComponent()
            let path = FileBoundary.resolve(call.file.value, relativeTo: folder).path
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
                ? path : nil
        }
        return nil
    }
}
